// Many ids in one process against real loopback servers: the order of real answers, --fail-fast
// with requests in flight, stdin, readers that leave, a full disk, a large batch. Dry runs,
// --ignore-missing and the refusals before anything is sent run in-process in
// test/unit/commands/delete/batch.test.ts.
import { type StdioOptions, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW } from '../../src/batch/ordered-pool.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { idOf, idRange, jsonLines } from '../helpers/batch-output.js';
import { BIN, cleanEnv, finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';

const TOKEN = 'batch-Token-3e9d1a77';
const { serve, envFor } = loopbackCases(TOKEN);

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
  const ids = idRange(1, 60);
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
  const ids = idRange(1, 40);
  const result = await runPlantstore(['--json', 'delete', '--fail-fast', '--concurrency', '2', ...ids], { env: envFor(server.url) });
  expect(result.code).toBe(1);
  const lines = jsonLines(result.stdout);
  expect(lines.map((r) => r['id'])).toEqual(ids.map(Number));
  const attempted = lines.filter((r) => r['attempted'] !== false);
  const notSent = lines.filter((r) => r['attempted'] === false);
  expect(lines[4]).toMatchObject({ id: 5, deleted: false, status: 400, error: 9, exit: 1 });
  // Only what was in flight when 5 failed (at most one more with two in flight) was sent.
  expect(attempted.length).toBeLessThanOrEqual(6);
  expect(server.requests.length).toBe(attempted.length);
  expect(notSent.length).toBe(40 - attempted.length);
  for (const line of notSent) expect(line).toMatchObject({ deleted: false, status: null, exit: 1, attempted: false });
  expect(result.stderr).toContain(`${attempted.length - 1} deleted, 0 already absent, 1 failed, ${notSent.length} not sent`);
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
        idRange(1, 5)
          .map((id) => `Deleted plant ${id}\n`)
          .join(''),
      );
    }
  });

  // More ids than the reorder window holds (DEFAULT_WINDOW: 16,384 started but not yet printed):
  // the window bounds what waits to be printed, never how many ids a run may delete. A thousand
  // more crosses it with room to spare.
  it('deletes 17,384 plants from stdin in one run, more than the reorder window, leaving the sandbox empty', async () => {
    const count = DEFAULT_WINDOW + 1_000;
    expect(count).toBeGreaterThan(DEFAULT_WINDOW);
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, token: TOKEN, plants: count });
    try {
      const ids = idRange(1, count).join('\n');
      const result = await runPlantstore(['-q', 'delete', '--stdin', '--concurrency', '16'], { env: envFor(sandbox.url), input: ids });
      expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(sandbox.plantCount).toBe(0);
      expect(sandbox.requestCount).toBe(count);
    } finally {
      await sandbox.close();
    }
  });
});

describe('a reader that leaves early', () => {
  it.each([
    ['stderr', 1, ['500', '1', '3000'], 1],
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
      // Far more lines than the first chunk the reader takes: most are written after it left.
      const ids = idRange(1, 500);
      const child = startPlantstore(['delete', '--stdin'], { env: envFor(server.url), input: ids.join('\n') });
      const reader = fd === 0 ? child.stdout : child.stderr;
      // The reader takes one chunk, then goes away: later writes meet EPIPE.
      reader?.once('data', () => reader.destroy());
      const result = await finished(child);
      expect({ stream, code: result.code }).toEqual({ stream, code: exit });
      expect(new Set(server.requests.map((request) => idOf(request.url))).size).toBe(500);
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
    const ids = idRange(1, 300);
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
    child.stdin?.end(idRange(1, 50).join('\n'));
    const result = await finished(child);
    closeSync(full);
    expect(result.code).toBe(exit);
    if (fd === 1) {
      expect(result.stderr).toContain(
        'plantstore: cannot write the output: no space left on the device; the results from here on are lost, so the exit code is 70: send stdout where it can be written, and run again\n',
      );
    }
    expect(server.requests).toHaveLength(50);
  });

  it('stdout lost and an id refused (exit 1): the lost results outrank the failure, exit 70', async () => {
    const server = await serve((req, res) =>
      req.url === '/plants/7'
        ? res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":1,"message":"plant 7 does not exist"}')
        : res.writeHead(204).end(),
    );
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [BIN, 'delete', '--stdin'], { env: cleanEnv(envFor(server.url)), stdio: ['pipe', full, 'pipe'] });
    child.stdin?.end(idRange(1, 50).join('\n'));
    const result = await finished(child);
    closeSync(full);
    expect(result.stderr).toContain('plant 7: error 1: plant 7 does not exist');
    expect(result.code).toBe(70);
  });

  it('both, as `> log 2>&1`, with stderr written first (--verbose): the results are still lost, so exit 70', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [BIN, '--verbose', 'delete', '--stdin'], {
      env: cleanEnv(envFor(server.url)),
      stdio: ['pipe', full, full],
    });
    child.stdin?.end(idRange(1, 50).join('\n'));
    const result = await finished(child);
    closeSync(full);
    expect(result.code).toBe(70);
    expect(server.requests).toHaveLength(50);
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
    const ids = idRange(1, 20);
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
      /20 deleted, 0 already absent, 0 failed, 0 not sent in \d+\.\ds; throttled: the server refused 3 requests \(429\/503\)/,
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
  expect(lines[3]).toMatch(/^2 deleted, 0 already absent, 1 failed, 0 not sent in \d+\.\ds$/);
  expect(lines).toHaveLength(4);
});
