// "Already absent" only when the API says so: the spec defines one error (400 with an
// Error object) and leaves "no such plant" unspecified, so the user declares which
// API error codes mean it (the sandbox's is 1). Here against the sandbox; where the codes come
// from, their precedence, bad values and 404s without an Error object run in-process in
// test/unit/commands/delete/ignore-missing.test.ts, and "no such plant" after an answer lost before a retry in
// test/http/retry-and-bodies.test.ts.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunResult, runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';

const TOKEN = 'missing-Token-5e1b7c';
let sandbox: SandboxProcess;
let config: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  sandbox = await startSandboxProcess([], { PLANTSTORE_SANDBOX_TOKEN: TOKEN });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

function plantstore(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return runPlantstore(args, {
    env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url, ...env },
  });
}

describe('--ignore-missing with the codes that mean "no such plant"', () => {
  it('re-running a batch against the sandbox is idempotent: exit 0, the second time "already absent"', async () => {
    const run = (ids: string[]) => plantstore(['delete', '--ignore-missing', '--missing-error', '1', ...ids]);
    const base = 10 + Math.floor(Math.random() * 80);
    const ids = [String(base), String(base + 1)];
    // The first run deletes what exists, whichever of the two was already gone.
    expect((await run(ids)).code).toBe(0);
    const again = await run(ids);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(ids.map((id) => `Plant ${id} already absent\n`).join(''));
  });

  it('a wrong path prefix is not "already absent": exit 5, nothing deleted, a hint about the base URL', async () => {
    const run = await plantstore(['delete', '--ignore-missing', '--missing-error', '1', '20', '21', '22'], {
      PLANTSTORE_BASE_URL: `${sandbox.url}/v2`,
    });
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      "✗ plant 20: no route for DELETE /v2/plants/20; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status) (HTTP 404)",
    );
  });
});
