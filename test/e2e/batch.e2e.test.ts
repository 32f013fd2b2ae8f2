// Many ids in one process: order, accounting, stdin, dry runs, against real loopback servers.
import { type StdioOptions, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';

const TOKEN = 'batch-Token-3e9d1a77';
const { serve, envFor } = loopbackCases(TOKEN);
const idOf = (url: string) => url.split('/').pop() ?? '';
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
const jsonLines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

// A deterministic shuffle of answer delays, so responses come back out of order.
function latencyFor(id: string): number {
  return (Number(id) * 7919) % 23;
}

it('prints results in input order whatever order the answers arrive in', async () => {
  const answered: string[] = [];
  const server = await serve((req, res) => {
    const id = idOf(req.url ?? '');
    setTimeout(() => {
      answered.push(id);
      res.writeHead(204).end();
    }, latencyFor(id));
  });
  const ids = range(1, 60);
  const human = await runPlantstore(['delete', '--concurrency', '16', ...ids], { env: envFor(server.url) });
  expect(human.code).toBe(0);
  expect(human.stdout).toBe(ids.map((id) => `Deleted plant ${id}\n`).join(''));
  const json = await runPlantstore(['--json', 'delete', '--stdin'], { env: envFor(server.url), input: ids.join('\n') });
  expect(jsonLines(json.stdout).map((r) => r['id'])).toEqual(ids.map(Number));
  expect(server.requests.length).toBe(120);
  // The answers really were out of order: the server finished them in another order.
  expect(answered.slice(0, 60)).not.toEqual(ids);
});

it('--fail-fast sends nothing new after a failure and accounts for every id', async () => {
  const server = await serve((req, res) => {
    const id = idOf(req.url ?? '');
    if (id === '5') res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":9,"message":"plant 5 is protected"}');
    else res.writeHead(204).end();
  });
  const ids = range(1, 40);
  const result = await runPlantstore(['--json', 'delete', '--fail-fast', '--concurrency', '2', ...ids], { env: envFor(server.url) });
  expect(result.code).toBe(1);
  const lines = jsonLines(result.stdout);
  expect(lines.map((r) => r['id'])).toEqual(ids.map(Number));
  const attempted = lines.filter((r) => r['attempted'] !== false);
  const notAttempted = lines.filter((r) => r['attempted'] === false);
  expect(lines[4]).toMatchObject({ id: 5, deleted: false, status: 400, error: 9, exit: 1 });
  // Only what was in flight when 5 failed (at most one more with two in flight) was sent.
  expect(attempted.length).toBeLessThanOrEqual(6);
  expect(server.requests.length).toBe(attempted.length);
  expect(notAttempted.length).toBe(40 - attempted.length);
  for (const line of notAttempted) expect(line).toMatchObject({ deleted: false, status: null, exit: 1, attempted: false });
  expect(result.stderr).toContain(`${attempted.length - 1} deleted, 0 already absent, 1 failed, ${notAttempted.length} not attempted`);
});

it('without --fail-fast every id is attempted', async () => {
  const server = await serve((req, res) => res.writeHead(idOf(req.url ?? '') === '2' ? 500 : 204).end());
  const result = await runPlantstore(['delete', ...range(1, 10)], { env: envFor(server.url) });
  expect(result.code).toBe(6);
  expect(server.requests.length).toBe(10);
  expect(result.stderr).toContain('9 deleted, 0 already absent, 1 failed, 0 not attempted');
});

it('--ignore-missing counts a 404 with an Error object as already absent (exit 0)', async () => {
  const server = await serve((req, res) => {
    if (Number(idOf(req.url ?? '')) % 2 === 0) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"no such plant"}');
    } else res.writeHead(204).end();
  });
  const human = await runPlantstore(['delete', '--ignore-missing', '1', '2', '3'], { env: envFor(server.url) });
  expect(human).toMatchObject({ code: 0, stdout: 'Deleted plant 1\nPlant 2 already absent\nDeleted plant 3\n' });
  expect(human.stderr).toContain('2 deleted, 1 already absent, 0 failed, 0 not attempted');
  const json = await runPlantstore(['--json', 'delete', '--ignore-missing', '2'], { env: envFor(server.url) });
  expect(json.code).toBe(0);
  expect(jsonLines(json.stdout)).toEqual([{ id: 2, deleted: false, absent: true, status: 404 }]);
  const strict = await runPlantstore(['delete', '2'], { env: envFor(server.url) });
  expect(strict.code).toBe(5);
});

describe('--dry-run', () => {
  it('prints each request, token masked, and sends nothing', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', '--dry-run', '1', '007', '9223372036854775807'], { env: envFor(`${server.url}/v1/`) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [1, 7, '9223372036854775807'].map((id) => `DELETE ${server.url}/v1/plants/${id}  (Authorization: Bearer ***)\n`).join(''),
    );
    const json = await runPlantstore(['--json', 'delete', '--dry-run', '1'], { env: envFor(server.url) });
    expect(jsonLines(json.stdout)).toEqual([{ id: 1, dryRun: true, method: 'DELETE', url: `${server.url}/plants/1` }]);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['delete', '--dry-run', '1', 'x'], {}, 2],
    [['delete', '--dry-run', '1'], { PLANTSTORE_BASE_URL: '' }, 3],
  ])('still stops on usage and configuration errors: %j', async (args, env, exit) => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(args, { env: { ...envFor(server.url), ...env } });
    expect(result.code).toBe(exit);
    expect(server.requests).toHaveLength(0);
  });
});

describe('ids from standard input', () => {
  it('reads whitespace-separated ids with comments, via --stdin or -', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const input = '# plants to remove\n1 2\t3\n\n  4 # the old fern\r\n5';
    for (const args of [
      ['delete', '--stdin'],
      ['delete', '-'],
    ]) {
      const result = await runPlantstore(args, { env: envFor(server.url), input });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        range(1, 5)
          .map((id) => `Deleted plant ${id}\n`)
          .join(''),
      );
    }
  });

  it('names the line of an invalid id and deletes nothing', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', '--stdin'], { env: envFor(server.url), input: '1\n2\n# fine\n3 4x\n5\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("plantstore: invalid plant id '4x' on line 4 of standard input: an id is a whole number such as 42\n");
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['delete', '--stdin', '5'], 'not both'],
    [['delete', '--concurrency', '0', '1'], '--concurrency'],
    [['delete', '--concurrency', '65', '1'], '--concurrency'],
  ])('refuses %j (exit 2)', async (args, message) => {
    const result = await runPlantstore(args, { env: envFor('http://127.0.0.1:9') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('deletes 100,000 plants from stdin in one run, leaving the sandbox empty', async () => {
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, token: TOKEN, plants: 100_000 });
    try {
      const ids = range(1, 100_000).join('\n');
      const result = await runPlantstore(['-q', 'delete', '--stdin', '--concurrency', '16'], { env: envFor(sandbox.url), input: ids });
      expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(sandbox.plantCount).toBe(0);
      expect(sandbox.requestCount).toBe(100_000);
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});

describe('a reader that leaves early', () => {
  it.each([
    ['stderr', 1, ['2000', '1', '3000'], 1],
    ['stderr', 1, [], 0],
    ['stdout', 0, [], 0],
  ] as const)(
    '%s closing after its first line stops nothing: every id is sent, and the exit code is that of the deletions',
    async (stream, fd, failing, exit) => {
      const server = await serve((req, res) => {
        const id = idOf(req.url ?? '');
        if ((failing as readonly string[]).includes(id)) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(`{"error":1,"message":"plant ${id} is protected"}`);
        } else res.writeHead(204).end();
      });
      const ids = range(1, 2000);
      const child = startPlantstore(['delete', '--stdin'], { env: envFor(server.url), input: ids.join('\n') });
      const reader = fd === 0 ? child.stdout : child.stderr;
      // The reader takes one chunk, then goes away: later writes meet EPIPE.
      reader?.once('data', () => reader.destroy());
      const result = await finished(child);
      expect({ stream, code: result.code }).toEqual({ stream, code: exit });
      expect(new Set(server.requests.map((request) => idOf(request.url))).size).toBe(2000);
    },
  );
});

describe('slow answers', () => {
  it('one slow answer does not hold back the others: the rest finish while it is outstanding', async () => {
    let releaseSlow: () => void = () => {};
    const slowHeld = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const server = await serve((req, res) => {
      const id = idOf(req.url ?? '');
      if (id === '1') void slowHeld.then(() => res.writeHead(204).end());
      else {
        res.writeHead(204).end();
        // Every other id answered while plant 1 still waits: only then is it let go.
        if (server.requests.length === 300) releaseSlow();
      }
    });
    const ids = range(1, 300);
    const result = await runPlantstore(['delete', '--stdin', '--concurrency', '2'], { env: envFor(server.url), input: ids.join('\n') });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(ids.map((id) => `Deleted plant ${id}\n`).join(''));
    expect(server.requests.map((request) => idOf(request.url))[0]).toBe('1');
  });
});

describe.skipIf(!existsSync('/dev/full'))('output on a full disk (/dev/full)', () => {
  it.each([
    ['stdout: the results are lost, so exit 70 with one line saying so', 1, 70],
    ['stderr: only messages are lost; the exit code is unchanged', 2, 0],
  ] as const)('%s', async (_name, fd, exit) => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const full = openSync('/dev/full', 'w');
    const stdio: StdioOptions = fd === 1 ? ['pipe', full, 'pipe'] : ['pipe', 'pipe', full];
    const child = spawn(process.execPath, [BIN, 'delete', '--stdin'], { env: cleanEnv(envFor(server.url)), stdio });
    child.stdin?.end(range(1, 50).join('\n'));
    const result = await finished(child);
    closeSync(full);
    expect(result.code).toBe(exit);
    if (fd === 1) expect(result.stderr).toContain('plantstore: cannot write the output (ENOSPC); the exit code is 70\n');
    expect(server.requests).toHaveLength(50);
  });
});

describe('--rate', () => {
  it.each([
    [['--rate', '0'], {}, 2, "invalid --rate '0'"],
    [['--rate', '-1'], {}, 2, "invalid --rate '-1'"],
    [['--rate', 'fast'], {}, 2, "invalid --rate 'fast'"],
    [['--rate', '5/y'], {}, 2, "invalid --rate '5/y'"],
    [[], { PLANTSTORE_RATE: '1.5' }, 3, "invalid PLANTSTORE_RATE '1.5'"],
  ])('refuses %j %j before sending anything: exit %i', async (flags, env, exit, message) => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const run = await runPlantstore(['delete', ...flags, '1', '2'], { env: { ...envFor(server.url), ...env } });
    expect(run.code).toBe(exit);
    expect(run.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('a dry run names the rate it would keep', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const run = await runPlantstore(['delete', '--dry-run', '--rate', '300/m', '1', '2'], { env: envFor(server.url) });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("dry run: 2 requests not sent (profile 'default'; at most 300/m)");
  });
});

describe('a server that pushes back', () => {
  it('says so once per change with --verbose, and once in the summary; every id is deleted', async () => {
    let answered = 0;
    const server = await serve((_req, res) => {
      answered += 1;
      // A few requests go through, then three are refused, as by a rate limiter whose burst is spent.
      if (answered > 5 && answered <= 8)
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":429,"message":"slow down"}');
      else res.writeHead(204).end();
    });
    const ids = range(1, 20);
    const run = await runPlantstore(['--verbose', 'delete', '--stdin', '--concurrency', '1'], {
      env: { ...envFor(server.url), PLANTSTORE_RETRIES: '2' },
      input: ids.join('\n'),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(ids.map((id) => `Deleted plant ${id}\n`).join(''));
    const changes = run.stderr.split('\n').filter((line) => line.startsWith('* '));
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.length).toBeLessThan(6);
    expect(changes[0]).toMatch(/^\* throttled: the server refused a request \(429\); sending at ~\d+\/s$/);
    expect(run.stderr).toMatch(
      /20 deleted, 0 already absent, 0 failed, 0 not attempted in \d+\.\ds; throttled: the server refused 3 requests \(429\/503\)/,
    );
  });
});

it('with stdout and stderr in one file, lines come in the order results were decided, the summary last', async () => {
  const server = await serve((req, res) => {
    const id = idOf(req.url ?? '');
    if (id === '1') res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":1,"message":"plant 1 does not exist"}');
    else setTimeout(() => res.writeHead(204).end(), id === '30' ? 30 : 0);
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-order-'));
  const log = path.join(dir, 'log');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [BIN, 'delete', '30', '1', '31'], { env: cleanEnv(envFor(server.url)), stdio: ['ignore', fd, fd] });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  closeSync(fd);
  const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
  rmSync(dir, { recursive: true, force: true });
  expect(code).toBe(1);
  expect(lines.slice(0, 3)).toEqual(['Deleted plant 30', '✗ plant 1: error 1: plant 1 does not exist (HTTP 400)', 'Deleted plant 31']);
  expect(lines[3]).toMatch(/^2 deleted, 0 already absent, 1 failed, 0 not attempted in \d+\.\ds$/);
  expect(lines).toHaveLength(4);
});
