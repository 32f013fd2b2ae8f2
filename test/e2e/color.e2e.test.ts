// Color through the built binary, whose stdout and stderr are pipes here: FORCE_COLOR colors
// successes as it colors failures, and --no-color wins even over errors commander raises
// before any command runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';

const ESC = '\u001b[';

let sandbox: SandboxProcess;
let config: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  config = tempConfigDir();
});

afterAll(async () => {
  await sandbox.stop('SIGTERM');
  config.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  PLANTSTORE_CONFIG_DIR: config.dir,
  PLANTSTORE_BASE_URL: sandbox.url,
  PLANTSTORE_TOKEN: 'sandbox-token',
  ...extra,
});

describe('a successful delete, piped', () => {
  it('FORCE_COLOR=1: the green mark, as a terminal would show it', async () => {
    const result = await runPlantstore(['delete', '42'], { env: env({ FORCE_COLOR: '1' }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${ESC}32m✓${ESC}39m Deleted plant 42\n`);
  });

  it('without it: the bare sentence, for scripts', async () => {
    const result = await runPlantstore(['delete', '43'], { env: env() });
    expect(result).toMatchObject({ code: 0, stdout: 'Deleted plant 43\n' });
  });

  it('FORCE_COLOR=1 with --no-color: the bare sentence', async () => {
    const result = await runPlantstore(['delete', '44', '--no-color'], { env: env({ FORCE_COLOR: '1' }) });
    expect(result).toMatchObject({ code: 0, stdout: 'Deleted plant 44\n' });
  });
});

describe('--no-color and errors raised while parsing the command line', () => {
  const MESSAGE = "plantstore: unknown option '--jsn' (did you mean --json?); see plantstore --help\n";

  it('FORCE_COLOR=1 colors them (the control case)', async () => {
    const result = await runPlantstore(['--jsn'], { env: env({ FORCE_COLOR: '1' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(ESC);
  });

  it.each([
    ['before the typo', ['--no-color', '--jsn']],
    ['after the typo', ['--jsn', '--no-color']],
    ['with a command', ['delete', '--jsn', '1', '--no-color']],
  ])('--no-color %s: no escape codes', async (_name, argv) => {
    const result = await runPlantstore(argv, { env: env({ FORCE_COLOR: '1' }) });
    // A typo after the command points at that command's help.
    const help = argv.includes('delete') ? 'plantstore delete --help' : 'plantstore --help';
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: MESSAGE.replace('plantstore --help', help) });
  });

  it('an operand after -- is not the flag', async () => {
    const result = await runPlantstore(['--jsn', '--', '--no-color'], { env: env({ FORCE_COLOR: '1' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(ESC);
  });
});
