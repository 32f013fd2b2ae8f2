// "Already absent" only when the API says so: the spec defines one error (400 with an
// Error object) and leaves "no such plant" unspecified, so the user declares which
// API error codes mean it (the sandbox's is 1).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunResult, runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
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
  it.each([
    ['--missing-error', async (ids: string[]) => plantstore(['delete', '--ignore-missing', '--missing-error', '1', ...ids])],
    [
      'PLANTSTORE_MISSING_ERROR',
      async (ids: string[]) => plantstore(['delete', '--ignore-missing', ...ids], { PLANTSTORE_MISSING_ERROR: '1' }),
    ],
    [
      'the profile key missing-error',
      async (ids: string[]) => {
        const set = await plantstore(['config', 'set', 'missing-error', '1']);
        expect(set.code).toBe(0);
        return plantstore(['delete', '--ignore-missing', ...ids]);
      },
    ],
  ])('re-running a batch is idempotent, codes from %s: exit 0, the second time "already absent"', async (_name, run) => {
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

  it('without a declared code, the API error is a refusal: exit 1', async () => {
    expect((await plantstore(['delete', '5'])).code).toBe(0);
    const again = await plantstore(['delete', '--ignore-missing', '5']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('✗ plant 5: error 1: plant 5 does not exist (HTTP 400)');
  });

  it('the flag is stronger than the environment, which is stronger than the profile', async () => {
    expect((await plantstore(['config', 'set', 'missing-error', '1'])).code).toBe(0);
    expect((await plantstore(['delete', '6'])).code).toBe(0);
    const envWins = await plantstore(['delete', '--ignore-missing', '6'], { PLANTSTORE_MISSING_ERROR: '99' });
    expect(envWins.code).toBe(1);
    const flagWins = await plantstore(['delete', '--ignore-missing', '--missing-error', '1', '6'], { PLANTSTORE_MISSING_ERROR: '99' });
    expect(flagWins.code).toBe(0);
  });

  it.each([
    [['delete', '--missing-error', 'one', '7'], {}, 2, "invalid missing-error 'one' (from --missing-error)"],
    [['delete', '7'], { PLANTSTORE_MISSING_ERROR: '1,x' }, 3, "invalid missing-error '1,x' (from PLANTSTORE_MISSING_ERROR)"],
    [['config', 'set', 'missing-error', 'x'], {}, 2, "invalid missing-error 'x' (from the command line)"],
  ])('a bad value is refused before anything is sent: %j', async (args, env, exit, message) => {
    const before = sandbox.requestLog().length;
    const run = await plantstore(args, env);
    expect(run.code).toBe(exit);
    expect(run.stderr).toContain(message);
    expect(sandbox.requestLog().length).toBe(before);
  });
});

describe('answers that are not the API saying "no such plant"', () => {
  const { serve, envFor } = loopbackCases(TOKEN);

  it.each([
    ['an HTML page', 'text/html', '<html><title>404 Not Found</title></html>', '404 Not Found'],
    ['an empty body', 'text/plain', '', 'Not Found'],
    ["a framework's route-miss JSON", 'application/json', '{"timestamp":"2026-01-01","status":404,"path":"/v2/plants/20"}', 'Not Found'],
  ])('a 404 with %s stays exit 5, with a hint about the base URL, even with --ignore-missing', async (_name, type, body, message) => {
    const server = await serve((_req, res) => res.writeHead(404, { 'content-type': type }).end(body));
    const run = await runPlantstore(['delete', '--ignore-missing', '20', '21'], { env: envFor(server.url) });
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `✗ plant 20: ${message}; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status) (HTTP 404)`,
    );
  });

  it('a 404 with an Error object is absent under --ignore-missing', async () => {
    const server = await serve((_req, res) =>
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"no such plant"}'),
    );
    const run = await runPlantstore(['--json', 'delete', '--ignore-missing', '20'], { env: envFor(server.url) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: 20, deleted: false, absent: true, status: 404 });
  });

  it('after an attempt whose answer was lost, "no such plant" may be that earlier attempt: absent with a note', async () => {
    let first = true;
    const server = await serve((req, res) => {
      if (first) {
        // The server deletes the plant, then the connection drops before the answer.
        first = false;
        req.socket.destroy();
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":1,"message":"plant 42 does not exist"}');
    });
    const env = { ...envFor(server.url), PLANTSTORE_RETRIES: '1', PLANTSTORE_MAX_RETRY_WAIT: '0' };
    const absent = await runPlantstore(['delete', '--ignore-missing', '--missing-error', '1', '42'], { env });
    expect(absent.code).toBe(0);
    expect(absent.stdout).toBe('Plant 42 already absent (it may already have been deleted by an earlier attempt whose answer was lost)\n');
    first = true;
    const refused = await runPlantstore(['delete', '--missing-error', '1', '42'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      '✗ plant 42: error 1: plant 42 does not exist (after 2 attempts); it may already have been deleted by an earlier attempt whose answer was lost (HTTP 400)',
    );
  });
});
