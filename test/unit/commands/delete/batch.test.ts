// Many ids in one run, in-process: --ignore-missing, dry runs, ids from standard input, and
// the refusals that come before anything is sent. What needs the real HTTP client (requests
// in flight, --fail-fast stopping them), real servers and pipes (order of real answers, closed
// readers, a full disk, a batch larger than the reorder window) is in test/e2e/batch.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { jsonLines } from '../../../helpers/batch-output.js';
import { type Answer, deleted, inProcess, refused } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const TOKEN = 'batch-Token-3e9d1a77';
const BASE = 'http://127.0.0.1:9';
const READY = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: BASE };

const { run } = inProcess();

const notFound = (id: string): Answer => refused(id, { status: 404, error: 404, message: 'no such plant' });

it('--ignore-missing counts a 404 with an Error object as already absent (exit 0); without it, exit 5', async () => {
  const answer = (id: string): Answer => (Number(id) % 2 === 0 ? notFound(id) : deleted(id));
  const human = await run(['delete', '--ignore-missing', '1', '2', '3'], { env: READY, answer });
  expect({ exit: human.exit, stdout: human.stdout, stderr: normalize(human.stderr) }).toMatchInlineSnapshot(`
    {
      "exit": 0,
      "stderr": "2 deleted, 1 already absent, 0 failed, 0 not sent in <t>s
    ",
      "stdout": "Deleted plant 1
    Plant 2 already absent
    Deleted plant 3
    ",
    }
  `);
  const json = await run(['--json', 'delete', '--ignore-missing', '2'], { env: READY, answer });
  expect(json.exit).toBe(0);
  expect(jsonLines(json.stdout)).toEqual([{ id: 2, deleted: false, absent: true, status: 404 }]);
  expect((await run(['delete', '2'], { env: READY, answer })).exit).toBe(5);
});

describe('--dry-run', () => {
  it('prints each request, token masked, and builds no client', async () => {
    const result = await run(['delete', '--dry-run', '1', '007', '9223372036854775807'], {
      env: { ...READY, PLANTSTORE_BASE_URL: `${BASE}/v1/` },
    });
    expect(result.exit).toBe(0);
    expect(result.stdout).toMatchInlineSnapshot(`
      "DELETE http://127.0.0.1:9/v1/plants/1  (Authorization: Bearer ***)
      DELETE http://127.0.0.1:9/v1/plants/7  (Authorization: Bearer ***)
      DELETE http://127.0.0.1:9/v1/plants/9223372036854775807  (Authorization: Bearer ***)
      "
    `);
    const json = await run(['--json', 'delete', '--dry-run', '1'], { env: READY });
    expect(jsonLines(json.stdout)).toEqual([{ id: 1, dryRun: true, method: 'DELETE', url: `${BASE}/plants/1` }]);
    expect([...result.built, ...json.built, ...result.sent, ...json.sent]).toEqual([]);
  });

  it.each([
    [['delete', '--dry-run', '1', 'x'], {}, 2],
    [['delete', '--dry-run', '1'], { PLANTSTORE_BASE_URL: '' }, 3],
  ])('still stops on usage and configuration errors: %j', async (args, env, exit) => {
    const result = await run(args, { env: { ...READY, ...env } });
    expect(result.exit).toBe(exit);
    expect(result.built).toEqual([]);
  });

  it('names the rate it would keep', async () => {
    const result = await run(['delete', '--dry-run', '--rate', '300/m', '1', '2'], { env: READY });
    expect(result.exit).toBe(0);
    expect(normalize(result.stderr)).toMatchInlineSnapshot(`
      "dry run: 2 requests not sent (profile 'default'; at most 300/m)
      "
    `);
  });
});

describe('ids from standard input', () => {
  it('names the line of an invalid id and sends nothing', async () => {
    const result = await run(['delete', '--stdin'], { env: READY, stdin: ['1\n2\n# fine\n3 4x\n5\n'] });
    expect(result).toMatchObject({ exit: 2, built: [] });
    expect(result.error).toMatchInlineSnapshot(`"invalid plant id '4x' on line 4 of standard input: an id is a whole number such as 42"`);
  });
});

describe('refused before anything is sent', () => {
  it.each([
    [['delete', '--stdin', '5'], {}, 2],
    [['delete', '--concurrency', '0', '1'], {}, 2],
    [['delete', '--concurrency', '257', '1'], {}, 2],
    [['delete', '--rate', '0', '1', '2'], {}, 2],
    [['delete', '--rate', '-1', '1', '2'], {}, 2],
    [['delete', '--rate', 'fast', '1', '2'], {}, 2],
    [['delete', '--rate', '5/y', '1', '2'], {}, 2],
    [['delete', '1', '2'], { PLANTSTORE_RATE: '1.5' }, 3],
  ])('%j %j: exit %i', async (args, env, exit) => {
    const result = await run(args, { env: { ...READY, ...env } });
    expect(result.exit).toBe(exit);
    expect(result.error).toMatchSnapshot();
    expect(result.built).toEqual([]);
  });
});
