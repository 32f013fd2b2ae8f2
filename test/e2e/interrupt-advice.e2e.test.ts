// Ctrl-C in a batch without a journal, against the sandbox (whose "no such plant" is 400 error 1,
// not a 404), then the advice followed to the letter: it must finish the job (exit 0). The
// advice names what this target says for "no such plant", or how to declare it, and --journal
// for next time.
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const PLANTS = 2000;
const input = `${Array.from({ length: PLANTS }, (_, i) => String(i + 1)).join('\n')}\n`;

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** Runs `args` against a fresh sandbox, interrupted with SIGINT once the sandbox has answered 300 requests; its last stderr line. */
async function interrupted(sandbox: Sandbox, env: Record<string, string>, args: string[]): Promise<string> {
  const child = startPlantstore(args, { env, input });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const ended = finished(child);
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (sandbox.requestLog().length >= 300 || child.exitCode !== null) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
  child.kill('SIGINT');
  const result = await ended;
  expect(result.code).toBe(130);
  return result.stderr.trimEnd().split('\n').at(-1) ?? '';
}

type Sandbox = Awaited<ReturnType<typeof startSandboxProcess>>;

/** A fresh sandbox of PLANTS plants, and the environment that points plantstore at it. */
async function sandboxAndEnv(): Promise<[Sandbox, Record<string, string>]> {
  const sandbox = await startSandboxProcess(['--plants', String(PLANTS)]);
  onTestFinished(() => void sandbox.stop());
  return [sandbox, { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: sandbox.url, PLANTSTORE_TOKEN: 'sandbox-token' }];
}

describe('the advice after Ctrl-C fits the target, and following it finishes the job', () => {
  it('"no such plant" declared (missing-error 1): the advice names error 1, and its command exits 0', async () => {
    const [sandbox, sandboxEnv] = await sandboxAndEnv();
    const env = { ...sandboxEnv, PLANTSTORE_MISSING_ERROR: '1' };
    const advice = await interrupted(sandbox, env, ['delete', '--stdin']);
    expect(advice).toMatch(
      /run it again with --ignore-missing to finish \(the plants deleted already answer error 1, this target's "no such plant"\)/,
    );
    expect(advice).toMatch(/next time, give it a --journal FILE/);
    expect(advice).not.toMatch(/404\)/);
    const again = await runPlantstore(['delete', '--ignore-missing', '--stdin'], { env, input });
    expect(again.code).toBe(0);
  }, 60_000);

  it("nothing declared: the advice says to declare the code, and with the sandbox's (1) the command exits 0", async () => {
    const [sandbox, env] = await sandboxAndEnv();
    const advice = await interrupted(sandbox, env, ['delete', '--stdin']);
    expect(advice).toMatch(
      /run it again with --ignore-missing --missing-error CODE to finish, CODE being the API's error code for "no such plant"/,
    );
    const again = await runPlantstore(['delete', '--ignore-missing', '--missing-error', '1', '--stdin'], { env, input });
    expect(again.code).toBe(0);
  }, 60_000);
});
