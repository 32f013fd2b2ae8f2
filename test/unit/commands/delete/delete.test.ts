// argv to the delete command, in-process: which ids are sent, the request each run builds (its
// target and network options), the output modes, and the exit code of a run with failures.
import { describe, expect, it } from 'vitest';
import type { DeleteOptions } from '../../../../src/commands/delete/command.js';
import { CliError, Exit } from '../../../../src/errors.js';
import { type Answer, deleted, inProcess, refused } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';
/** The env of a run that can reach the (fake) service. */
const READY = { PLANTSTORE_BASE_URL: BASE, PLANTSTORE_TOKEN: TOKEN };

const { run } = inProcess();
/** More ids than a handful (engine/run-throttle.ts HANDFUL): the batch's own limit applies. */
const NINE = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

describe('argv reaches the delete command', () => {
  it.each<[string, string[], string[]]>([
    ['one id', ['delete', '42'], ['42']],
    ['several ids, in order, duplicates dropped', ['delete', '3', '1', '3', '007'], ['3', '1', '7']],
    ['a negative id', ['delete', '-5'], ['-5']],
    ['a negative id after --', ['delete', '--', '-5'], ['-5']],
    ['int64 max exactly', ['delete', '9223372036854775807'], ['9223372036854775807']],
  ])('%s', async (_name, argv, sent) => {
    const result = await run(argv, { env: READY });
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    expect(result.sent).toEqual(sent);
    expect(result.requests).toEqual(sent.map((id) => ({ method: 'DELETE', path: `/plants/${id}` })));
    expect(result.closed).toBe(1);
  });

  /** The options `delete` would run with, captured at gh's seam: nothing is run. */
  async function optionsOf(argv: string[], env: Record<string, string> = READY): Promise<DeleteOptions> {
    let captured: DeleteOptions | undefined;
    const result = await run(argv, {
      env,
      seams: {
        delete: async (opts) => {
          captured = opts;
          return Exit.ok;
        },
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.built).toEqual([]);
    if (!captured) throw new Error(`plantstore ${argv.join(' ')} did not reach the delete command`);
    return captured;
  }

  it.each<[string, string[], Partial<DeleteOptions>, Record<string, string>?]>([
    [
      'defaults',
      ['delete', '1'],
      {
        ids: ['1'],
        stdin: false,
        concurrency: { auto: 64 },
        rate: undefined,
        network: { timeoutMs: 30_000, retries: 2, maxRetryWaitMs: 30_000, caFile: undefined },
        missing: { codes: [], ignore: false },
        output: { json: false, quiet: false },
        verbose: false,
        dryRun: false,
        failFast: false,
        target: { profile: 'default', baseUrl: { value: BASE, source: 'PLANTSTORE_BASE_URL' }, tokenFile: undefined },
      },
    ],
    ['--timeout before the command', ['--timeout', '2.5', 'delete', '1'], { network: expect.objectContaining({ timeoutMs: 2_500 }) }],
    ['--timeout after the ids', ['delete', '1', '--timeout', '7'], { network: expect.objectContaining({ timeoutMs: 7_000 }) }],
    ['--timeout at the minimum', ['delete', '1', '--timeout', '0.01'], { network: expect.objectContaining({ timeoutMs: 10 }) }],
    [
      '--retries and --max-retry-wait',
      ['delete', '1', '--retries', '0', '--max-retry-wait', '5'],
      { network: expect.objectContaining({ retries: 0, maxRetryWaitMs: 5_000 }) },
    ],
    ['--verbose', ['--verbose', 'delete', '1'], { verbose: true }],
    ['--progress', ['delete', '1', '--progress'], { progress: true }],
    ['PLANTSTORE_PROGRESS=1', ['delete', '1'], { progress: true }, { ...READY, PLANTSTORE_PROGRESS: '1' }],
    ['no progress asked for', ['delete', '1'], { progress: false }],
    ['--json -q', ['--json', 'delete', '-q', '1'], { output: { json: true, quiet: true } }],
    [
      '--stdin, --dry-run, --fail-fast',
      ['delete', '--stdin', '--dry-run', '--fail-fast'],
      { ids: [], stdin: true, dryRun: true, failFast: true },
    ],
    ['--concurrency', ['delete', '--concurrency', '3', '1'], { concurrency: 3 }],
    ['--concurrency at its maximum', ['delete', '--concurrency', '256', '1'], { concurrency: 256 }],
    ['--concurrency auto', ['delete', '--concurrency', 'auto', '1'], { concurrency: { auto: 64 } }],
    ['--concurrency auto:256', ['delete', '--concurrency', 'auto:256', '1'], { concurrency: { auto: 256 } }],
    ['--concurrency auto:1', ['delete', '--concurrency', 'auto:1', '1'], { concurrency: { auto: 1 } }],
    ['--concurrency 8, the old default', ['delete', '--concurrency', '8', '1'], { concurrency: 8 }],
    [
      '--concurrency over PLANTSTORE_CONCURRENCY',
      ['delete', '--concurrency', '3', '1'],
      { concurrency: 3 },
      { PLANTSTORE_CONCURRENCY: 'auto' },
    ],
    ['PLANTSTORE_CONCURRENCY=auto', ['delete', '1'], { concurrency: { auto: 64 } }, { PLANTSTORE_CONCURRENCY: 'auto' }],
    ['PLANTSTORE_CONCURRENCY=auto:128', ['delete', '1'], { concurrency: { auto: 128 } }, { PLANTSTORE_CONCURRENCY: 'auto:128' }],
    ['PLANTSTORE_CONCURRENCY=16', ['delete', '1'], { concurrency: 16 }, { PLANTSTORE_CONCURRENCY: '16' }],
    [
      '--ignore-missing --missing-error',
      ['delete', '--ignore-missing', '--missing-error', '1,7', '1'],
      { missing: { codes: [1, 7], ignore: true } },
    ],
    [
      '--base-url',
      ['--base-url', 'https://other.example.com/v2/', 'delete', '1'],
      { target: { profile: 'default', baseUrl: { value: 'https://other.example.com/v2', source: '--base-url' }, tokenFile: undefined } },
    ],
    ['--profile', ['delete', '--profile', 'work', '1'], { target: expect.objectContaining({ profile: 'work' }) }],
    [
      '--cacert',
      ['delete', '--cacert', 'ca.pem', '1'],
      { network: expect.objectContaining({ caFile: { value: 'ca.pem', source: '--cacert' } }) },
    ],
  ])('%s', async (_name, argv, expected, env = {}) => {
    expect(await optionsOf(argv, { ...READY, ...env })).toMatchObject(expected);
  });

  it.each<[string, string[], Record<string, string>, number, string]>([
    [
      '--concurrency 0',
      ['delete', '--concurrency', '0', '1'],
      {},
      Exit.usage,
      "invalid --concurrency '0': give a whole number from 1 to 256, auto (up to 64), or auto:N to let auto go up to N (at most 256)",
    ],
    ['--concurrency 257', ['delete', '--concurrency', '257', '1'], {}, Exit.usage, "invalid --concurrency '257'"],
    ['--concurrency Auto', ['delete', '--concurrency', 'Auto', '1'], {}, Exit.usage, "invalid --concurrency 'Auto'"],
    ['--concurrency auto:257', ['delete', '--concurrency', 'auto:257', '1'], {}, Exit.usage, "invalid --concurrency 'auto:257'"],
    ['--concurrency auto:0', ['delete', '--concurrency', 'auto:0', '1'], {}, Exit.usage, "invalid --concurrency 'auto:0'"],
    ['--concurrency auto:', ['delete', '--concurrency', 'auto:', '1'], {}, Exit.usage, "invalid --concurrency 'auto:'"],
    ['--concurrency auto8', ['delete', '--concurrency', 'auto8', '1'], {}, Exit.usage, "invalid --concurrency 'auto8'"],
    [
      'PLANTSTORE_CONCURRENCY=fast',
      ['delete', '1'],
      { PLANTSTORE_CONCURRENCY: 'fast' },
      Exit.config,
      "invalid PLANTSTORE_CONCURRENCY 'fast': give a whole number from 1 to 256, auto (up to 64), or auto:N to let auto go up to N (at most 256)",
    ],
    ['PLANTSTORE_CONCURRENCY=0', ['delete', '1'], { PLANTSTORE_CONCURRENCY: '0' }, Exit.config, "invalid PLANTSTORE_CONCURRENCY '0'"],
  ])('%s is refused before anything is built', async (_name, argv, env, exit, message) => {
    const result = await run(argv, { env: { ...READY, ...env } });
    expect(result.exit).toBe(exit);
    expect(result.error).toContain(message);
    expect(result.built).toEqual([]);
  });

  it.each<[string, string[], Record<string, string>, number]>([
    ['a fixed --concurrency', ['delete', '--concurrency', '3', ...NINE], {}, 3],
    ['no --concurrency: auto, up to the default ceiling', ['delete', ...NINE], {}, 64],
    ['--concurrency auto', ['delete', '--concurrency', 'auto', ...NINE], {}, 64],
    ['--concurrency auto:256', ['delete', '--concurrency', 'auto:256', ...NINE], {}, 256],
    ['PLANTSTORE_CONCURRENCY=auto:100', ['delete', ...NINE], { PLANTSTORE_CONCURRENCY: 'auto:100' }, 100],
    // A handful goes out at once, as under the old default of 8; auto learns nothing from so few.
    ['one id, no --concurrency', ['delete', '1'], {}, 8],
    ['eight ids, --concurrency auto:256', ['delete', '--concurrency', 'auto:256', ...NINE.slice(1)], {}, 8],
    ['two ids, --concurrency auto:2', ['delete', '--concurrency', 'auto:2', '1', '2'], {}, 2],
  ])('%s: the connection pool allows as many in flight as the throttle may', async (_name, argv, env, connections) => {
    const result = await run(argv, { env: { ...READY, ...env } });
    expect(result.error).toBeUndefined();
    expect(result.built).toEqual([expect.objectContaining({ network: expect.objectContaining({ connections }) })]);
  });

  it('the run builds one transport with the endpoint and network options it was given', async () => {
    const result = await run(['--timeout', '2.5', '--retries', '1', 'delete', '1'], { env: READY });
    expect(result.error).toBeUndefined();
    expect(result.built).toEqual([
      {
        endpoint: { baseUrl: BASE, token: TOKEN },
        network: { timeoutMs: 2_500, retries: 1, maxRetryWaitMs: 30_000, connections: 8 },
        gate: expect.anything(),
      },
    ]);
  });

  it.each<[string, string[]]>([
    ['--json before the command', ['--json', 'delete', '1', '2']],
    ['--json after the ids', ['delete', '1', '2', '--json']],
  ])('%s: one JSON object per id on stdout', async (_name, argv) => {
    const result = await run(argv, { env: READY });
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe('{"id":1,"deleted":true,"status":204}\n{"id":2,"deleted":true,"status":204}\n');
    // Human text, here the summary of a multi-id run, stays on stderr.
    expect(normalize(result.stderr)).toMatchInlineSnapshot(`
      "2 deleted, 0 already absent, 0 failed, 0 not sent in <t>s
      {"summary":{"deleted":2,"absent":0,"failed":0,"inFlight":0,"notSent":0,"skipped":0,"otherShards":0,"shard":null,"ended":"finished","seconds":<t>}}
      "
    `);
  });

  it.each([['--quiet'], ['-q']])('%s: nothing printed on success', async (flag) => {
    const result = await run(['delete', flag, '1', '2'], { env: READY });
    expect(result.exit).toBe(0);
    expect(result.sent).toEqual(['1', '2']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
  });

  it('without flags: one human line per id', async () => {
    const result = await run(['delete', '1', '2'], { env: READY });
    expect(normalize(result.stdout)).toMatchInlineSnapshot(`
      "Deleted plant 1
      Deleted plant 2
      "
    `);
  });

  it('the first failing id decides the exit code, and every id is still tried', async () => {
    const answer = (id: string): Answer =>
      id === '2'
        ? refused(id, { status: 404, error: null, message: 'Not Found' })
        : id === '3'
          ? refused(id, { status: 400, error: 13, message: 'plant 3 is protected' })
          : deleted(id);
    const result = await run(['delete', '1', '2', '3'], { env: READY, answer });
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(Exit.notFound);
    expect(result.sent).toEqual(['1', '2', '3']);
    // A 404 without the API's Error object carries the hint that the base URL may be wrong.
    expect(normalize(result.stderr)).toMatchInlineSnapshot(`
      "✗ plant 2: Not Found; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status) (HTTP 404)
      ✗ plant 3: error 13: plant 3 is protected (HTTP 400)
      1 deleted, 0 already absent, 2 failed, 0 not sent in <t>s
      "
    `);
  });

  describe('--no-color', () => {
    const refuse = (id: string): Answer => refused(id, { status: 400, error: 1, message: 'no' });
    // FORCE_COLOR turns color on for the buffers, so the flag has something to turn off.
    const env = { ...READY, FORCE_COLOR: '1' };

    it('colors the failure mark without the flag (the control case)', async () => {
      const result = await run(['delete', '5'], { env, answer: refuse });
      expect(result.stderr).toContain('\u001b[');
    });

    it.each([
      ['before the command', ['--no-color', 'delete', '5']],
      ['after the id', ['delete', '5', '--no-color']],
    ])('%s: no escape codes at all', async (_name, argv) => {
      const result = await run(argv, { env, answer: refuse });
      expect(result.error).toBeUndefined();
      expect(result.exit).toBe(1);
      expect(result.stderr).toMatchInlineSnapshot(`
        "✗ plant 5: error 1: no (HTTP 400)
        "
      `);
    });
  });

  it('a missing base URL is exit 3 before anything is built', async () => {
    const result = await run(['delete', '1'], { env: { PLANTSTORE_TOKEN: TOKEN } });
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.config);
    expect(result.built).toEqual([]);
  });

  it('a missing token is exit 4 before anything is built', async () => {
    const result = await run(['delete', '1'], { env: { PLANTSTORE_BASE_URL: BASE } });
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.auth);
    expect(result.built).toEqual([]);
  });
});
