// `plantstore sandbox` as a user starts it: the token from PLANTSTORE_SANDBOX_TOKEN
// (argv is visible in ps), --token over it, refusals, and the URL line. Loopback only;
// each sandbox is stopped with SIGTERM and awaited.
import { afterEach, describe, expect, it } from 'vitest';
import { type RunResult, runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const ENV_TOKEN = 'e2e-Sandbox-Env-9d41b7';
const FLAG_TOKEN = 'e2e-Sandbox-Flag-3c82a0';

let running: Array<{ stop(): Promise<RunResult> }> = [];
let configs: Array<ReturnType<typeof tempConfigDir>> = [];

afterEach(async () => {
  // A test that failed before stopping its sandbox: stop it anyway.
  await Promise.all(running.map((sandbox) => sandbox.stop()));
  running = [];
  for (const config of configs) config.cleanup();
  configs = [];
});

/** `plantstore sandbox --port 0 ...` with `env`, stopped after the test if it has not been. */
async function sandbox(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<RunResult> }> {
  const started = await startSandboxProcess(args, env);
  const handle = { url: started.url, stop: () => started.stop('SIGTERM') };
  running.push(handle);
  return handle;
}

/** plantstore delete <id> against the sandbox with `token`: its exit code. */
async function deleteWith(url: string, token: string, id: string): Promise<number | null> {
  const config = tempConfigDir();
  configs.push(config);
  const run = await runPlantstore(['delete', id], {
    env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: url, PLANTSTORE_TOKEN: token },
  });
  return run.code;
}

describe('the sandbox token', () => {
  it('comes from PLANTSTORE_SANDBOX_TOKEN; the public default is then refused, and the token never printed', async () => {
    const sb = await sandbox([], { PLANTSTORE_SANDBOX_TOKEN: ENV_TOKEN });
    expect(await deleteWith(sb.url, ENV_TOKEN, '1')).toBe(0);
    expect(await deleteWith(sb.url, 'sandbox-token', '2')).toBe(4);
    const stopped = await sb.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`${sb.url}\n`);
    expect(stopped.stderr).toContain(`  echo "$PLANTSTORE_SANDBOX_TOKEN" | plantstore auth login --with-token --base-url ${sb.url}`);
    expect(stopped.stderr).toContain('sandbox stopped');
    expect(stopped.stderr).not.toContain(ENV_TOKEN);
  });

  it('--token wins over PLANTSTORE_SANDBOX_TOKEN', async () => {
    const sb = await sandbox(['--token', FLAG_TOKEN], { PLANTSTORE_SANDBOX_TOKEN: ENV_TOKEN });
    expect(await deleteWith(sb.url, FLAG_TOKEN, '1')).toBe(0);
    expect(await deleteWith(sb.url, ENV_TOKEN, '2')).toBe(4);
    expect((await sb.stop()).code).toBe(0);
  });

  it('is the public sandbox-token when neither is given', async () => {
    const sb = await sandbox([]);
    expect(await deleteWith(sb.url, 'sandbox-token', '1')).toBe(0);
    const stopped = await sb.stop();
    expect(stopped.stderr).toContain(`  echo sandbox-token | plantstore auth login --with-token --base-url ${sb.url}`);
  });

  it.each<[string, string[], Record<string, string>, number, string]>([
    [
      'an empty --token',
      ['--token', ''],
      {},
      2,
      'the sandbox token (from --token) is empty: give a token of at least 8 characters (letters, digits, - . _ ~ + /), or leave --token out for the public default sandbox-token',
    ],
    [
      'an empty PLANTSTORE_SANDBOX_TOKEN',
      [],
      { PLANTSTORE_SANDBOX_TOKEN: '' },
      3,
      'the sandbox token (from PLANTSTORE_SANDBOX_TOKEN) is empty: give a token of at least 8 characters (letters, digits, - . _ ~ + /), or unset PLANTSTORE_SANDBOX_TOKEN for the public default sandbox-token',
    ],
    [
      'a PLANTSTORE_SANDBOX_TOKEN with a space inside',
      [],
      { PLANTSTORE_SANDBOX_TOKEN: 'two words-0123' },
      3,
      'the token in PLANTSTORE_SANDBOX_TOKEN has characters a bearer token cannot hold (whitespace, control or non-ASCII characters)',
    ],
  ])('refuses %s, in one line, without listening', async (_name, args, env, code, message) => {
    const run = await runPlantstore(['sandbox', '--port', '0', ...args], { env });
    expect(run).toMatchObject({ code, stdout: '', stderr: `plantstore: ${message}\n` });
  });
});

describe('sandbox --help', () => {
  it('names PLANTSTORE_SANDBOX_TOKEN, and says --token is visible to other users', async () => {
    const run = await runPlantstore(['sandbox', '--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--token <t> bearer token the sandbox accepts, for throwaway tokens: other users see it in ps');
    expect(help).toContain('prefer env PLANTSTORE_SANDBOX_TOKEN');
    expect(help).toContain('Environment: PLANTSTORE_SANDBOX_TOKEN, the token the sandbox accepts');
  });
});

describe.runIf(process.platform === 'linux')('the URL line', () => {
  it('on another loopback address (127.0.0.2): that URL, which plantstore accepts, and no warning', async () => {
    const sb = await sandbox(['--host', '127.0.0.2']);
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(await deleteWith(sb.url, 'sandbox-token', '1')).toBe(0);
    const stopped = await sb.stop();
    expect(stopped.stderr).not.toContain('warning');
  });
});
