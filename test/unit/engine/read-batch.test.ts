// A read through the real engine (issue 42, "Done means"): the test operation of
// test/helpers/read-operation.ts, run by runBatch in-process against a loopback server, with a
// journal, shards, a dry run, a budget and a signal. It says its own words, never delete's, and
// no deletion limit refuses it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { journalWordsFrom, registerJournalWords } from '../../../src/engine/journal-words.js';
import { inProcess } from '../../helpers/in-process.js';
import { READ_OPERATION, READ_RESULTS } from '../../helpers/read-operation.js';
import { runOperation } from '../../helpers/run-operation.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

const TOKEN = 'read-token-5c1e9b7a';
/** Plants 1 to 5 exist; any other id is answered with the spec's Error object and a 404. */
function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const id = Number(req.url?.split('/').pop());
  if (req.method === 'GET' && id >= 1 && id <= 5) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, name: `plant ${id}` }));
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 1, message: `plant ${id} does not exist` }));
}

let dir: string;
let server: ScriptedServer;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-read-'));
  server = await startScriptedServer(answer);
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Read {
  exit: number;
  stdout: string;
  stderr: string;
  /** The paths the server was asked for, as it saw them. */
  asked: string[];
}

/** Runs the read operation on `ids` with `parsed` flags (as commander hands them over) and `env`. */
async function read(
  ids: string[],
  parsed: Record<string, unknown> = {},
  env: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Read> {
  const before = server.requests.length;
  const run = await runOperation(READ_OPERATION, ids, { dir, url: server.url, token: TOKEN, parsed, env, ...(signal ? { signal } : {}) });
  const asked = server.requests.slice(before).map((request) => `${request.method} ${request.url}`);
  return { ...run, asked };
}

const summaryOf = (stderr: string): string | undefined => stderr.split('\n').find((line) => / in \d+\.\ds/.test(line));

describe('a read through the engine says its own words', () => {
  it('found and not found, in its words: no "deleted", no "already absent"', async () => {
    const run = await read(['1', '2', '9']);
    expect(run.exit).toBe(0);
    expect(run.asked).toEqual(['GET /plants/1', 'GET /plants/2', 'GET /plants/9']);
    expect(run.stdout).toBe('Read plant 1\nRead plant 2\nPlant 9 not found\n');
    expect(summaryOf(run.stderr)).toMatch(/^2 read, 1 not found, 0 failed, 0 not asked in \d+\.\ds$/);
    expect(run.stderr).not.toMatch(/delete|absent/);
  });

  it("--json: the summary object has its keys, and none of delete's", async () => {
    const run = await read(['1', '9'], { json: true });
    const last = run.stderr.trim().split('\n').at(-1) ?? '';
    const { summary } = JSON.parse(last) as { summary: Record<string, unknown> };
    expect(summary).toMatchObject({ read: 1, notFound: 1, failed: 0, notAsked: 0, readBefore: 0 });
    expect(Object.keys(summary)).not.toContain('deleted');
    expect(Object.keys(summary)).not.toContain('absent');
    expect(run.stdout).toBe('{"id":1,"read":true,"status":200}\n{"id":9,"not-found":true,"status":404}\n');
  });

  it("no deletion limit refuses it: PLANTSTORE_MAX_DELETES=1, a profile's max-deletes, --max-deletes given anyway", async () => {
    const run = await read(['1', '2', '3'], { maxDeletes: '1' }, { PLANTSTORE_MAX_DELETES: '1' });
    expect(run.exit).toBe(0);
    expect(run.asked).toHaveLength(3);
    expect(run.stderr).not.toMatch(/refusing|max-deletes/);
  });

  it('--dry-run: its requests, nothing sent, and no limit would stop it', async () => {
    const run = await read(['1', '2'], { dryRun: true }, { PLANTSTORE_MAX_DELETES: '1' });
    expect(run.exit).toBe(0);
    expect(run.asked).toEqual([]);
    expect(run.stdout).toContain(`GET ${server.url}/plants/1`);
    expect(run.stderr).not.toMatch(/would stop|refusing/);
  });

  it('--shard: only its part is asked for, and the summary counts the rest in its words', async () => {
    const ids = ['1', '2', '3', '4', '5', '6', '7', '8'];
    const [zero, one] = [await read(ids, { shard: '0/2' }), await read(ids, { shard: '1/2' })];
    expect(zero.asked.length + one.asked.length).toBe(8);
    expect(summaryOf(zero.stderr)).toMatch(new RegExp(`, ${8 - zero.asked.length} left to other shards \\(shard 0/2\\) in `));
    expect(`${zero.stderr}${one.stderr}`).not.toMatch(/delete|absent/);
  });

  it('a budget: --fail-fast after a failure leaves the rest "not asked"', async () => {
    await server.close();
    server = await startScriptedServer((req, res) => {
      if (req.url === '/plants/2') res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":7,"message":"not yours"}');
      else answer(req, res);
    });
    const run = await read(['1', '2', '3', '4'], { failFast: true, concurrency: '1' });
    expect(run.asked).toEqual(['GET /plants/1', 'GET /plants/2']);
    expect(summaryOf(run.stderr)).toMatch(/^1 read, 0 not found, 1 failed, 2 not asked in /);
    expect(run.stderr).toContain('✗ plant 3: not sent: --fail-fast stopped after plant 2 failed');
  });

  it('a signal: the interrupt line counts what it read, in its word', async () => {
    await server.close();
    const held: http.ServerResponse[] = [];
    server = await startScriptedServer((_req, res) => held.push(res));
    const interrupt = new AbortController();
    void server.nextRequest().then(() => interrupt.abort('SIGINT'));
    const run = await read(['1', '2', '3'], { concurrency: '1' }, {}, interrupt.signal);
    expect(run.exit).toBe(130);
    expect(run.stderr).toMatch(
      /interrupted: 0 of 3 read before the interrupt; the rest were not, or may not have been: run it again to read the rest/,
    );
    expect(run.stderr).not.toMatch(/delete|absent/);
  });

  it("--journal: the first run is recorded in the journal's own words, and a second run resumes it", async () => {
    const journal = path.join(dir, 'read.journal');
    const first = await read(['1', '9'], { journal, concurrency: '1' });
    expect(first.exit).toBe(0);
    expect(summaryOf(first.stderr)).toMatch(/^1 read, 0 read before \(journal\), 1 not found, 0 failed, 0 not asked in /);
    // Its header names it; its records are the engine's states, not its --json lines.
    const lines = readFileSync(journal, 'utf8').split('\n');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ plantstore: 'delete-journal', version: 3, operation: 'get' });
    expect(lines.filter((line) => line.startsWith('{"id":'))).toEqual([
      '{"id":1,"sent":true}',
      '{"id":1,"state":"done","status":200}',
      '{"id":9,"sent":true}',
      '{"id":9,"state":"absent","status":404}',
    ]);
    const second = await read(['1', '9', '2'], { json: true, journal });
    expect(second.exit).toBe(0);
    expect(second.asked).toEqual(['GET /plants/2']);
    expect(summaryOf(second.stderr)).toMatch(/^1 read, 2 read before \(journal\), 0 not found, 0 failed, 0 not asked in /);
    expect(second.stdout).toBe('{"id":1,"skipped":true}\n{"id":9,"skipped":true}\n{"id":2,"read":true,"status":200}\n');
  });

  it('--journal: a failure is recorded with its status, error code, message and exit, in flight apart', async () => {
    await server.close();
    server = await startScriptedServer((req, res) => {
      if (req.url === '/plants/2') res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":7,"message":"not yours"}');
      else answer(req, res);
    });
    const journal = path.join(dir, 'read.journal');
    const run = await read(['2'], { journal });
    expect(run.exit).toBe(4);
    expect(
      readFileSync(journal, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"state"')),
    ).toEqual([
      `{"id":2,"state":"failed","status":403,"error":null,"message":${JSON.stringify(run.stderr.match(/✗ plant 2: (.*)/)?.[1])},"exit":4}`,
    ]);
  });
});

describe("a read's journal, read by the journal commands and by delete", () => {
  const cli = inProcess();
  // As a verb's command registers its words in the CLI: the journal commands find them by the header's name.
  beforeAll(() => registerJournalWords(READ_OPERATION.words.command, journalWordsFrom(READ_RESULTS.states)));

  /** A read's journal: 1 read, 9 not found, 2 refused (403), written through the engine. */
  async function readJournal(): Promise<string> {
    await server.close();
    server = await startScriptedServer((req, res) => {
      if (req.url === '/plants/2') res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":7,"message":"not yours"}');
      else answer(req, res);
    });
    const journal = path.join(dir, 'read.journal');
    expect((await read(['1', '9', '2'], { journal, concurrency: '1' })).exit).toBe(4);
    return journal;
  }

  it('journal status says its counts in its own words: "read 1", "not found 1", "not asked", never delete\'s', async () => {
    const journal = await readJournal();
    const status = await cli.run(['journal', 'status', journal]);
    expect(status.exit).toBe(0);
    const rows = status.stdout.split('\n');
    expect(rows.slice(4, 9)).toEqual(['read       1', 'not found  1', 'failed     1  (exit 4: 1)', 'in flight  0', 'not asked  0']);
    expect(status.stdout).not.toMatch(/deleted|absent/);
    const json = JSON.parse((await cli.run(['--json', 'journal', 'status', journal])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ read: 1, notFound: 1, failed: 1, inFlight: 0, notAsked: 0 });
    expect(Object.keys(json)).not.toContain('deleted');
    // --watch over the finished job says so at once, in the same words.
    const watch = await cli.run(['journal', 'status', '--watch', journal]);
    expect(watch.exit).toBe(0);
    expect(watch.stdout).toMatch(/^decided 3 of 3 \(100%\): 1 read, 1 not found, 1 failed, 0 in flight, 0 not asked; /m);
    expect(watch.stdout).not.toMatch(/deleted|absent/);
  });

  it('journal failed and journal left list its ids to do, as for any operation', async () => {
    const journal = await readJournal();
    expect((await cli.run(['journal', 'failed', journal])).stdout).toBe('2\n');
    expect((await cli.run(['journal', 'left', journal], { stdin: ['1\n9\n2\n3\n'] })).stdout).toBe('2\n3\n');
  });

  it('delete refuses it (exit 2), naming the operation that wrote it, and sends nothing', async () => {
    const journal = await readJournal();
    const before = readFileSync(journal, 'utf8');
    const run = await cli.run(['delete', '--journal', journal, '1', '2'], {
      env: { PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN: TOKEN },
    });
    expect(run.exit).toBe(2);
    expect(run.error).toBe(
      `journal ${journal} was written by plantstore get, and this run is plantstore delete: a journal resumes only the operation that wrote it; give --journal another file`,
    );
    expect(run.sent).toEqual([]);
    expect(readFileSync(journal, 'utf8')).toBe(before);
  });

  it("a read refuses delete's journal, one of format 2 (whose header names no operation) too", async () => {
    const journal = path.join(dir, 'delete.journal');
    const header = {
      plantstore: 'delete-journal',
      version: 2,
      baseUrl: server.url,
      profile: 'default',
      started: '2026-03-01T12:00:00.000Z',
    };
    writeFileSync(journal, `${JSON.stringify(header)}\n{"id":1,"deleted":true,"status":204}\n`, { mode: 0o600 });
    const run = await read(['1', '2'], { journal });
    expect(run.exit).toBe(2);
    expect(run.stderr).toContain('was written by plantstore delete, and this run is plantstore get');
    expect(run.asked).toEqual([]);
  });

  it("a journal of an operation this plantstore does not know is said in the engine's words, never delete's", async () => {
    // A name no test registers: files share their worker's modules, and so the registry of words.
    const journal = path.join(dir, 'transplant.journal');
    const header = {
      plantstore: 'delete-journal',
      version: 3,
      operation: 'transplant-unregistered',
      baseUrl: server.url,
      profile: 'default',
      started: '2026-03-01T12:00:00.000Z',
    };
    writeFileSync(journal, `${JSON.stringify(header)}\n{"id":1,"state":"done","status":200}\n`, { mode: 0o600 });
    const status = await cli.run(['journal', 'status', journal]);
    expect(
      status.stdout
        .split('\n')
        .slice(4, 9)
        .map((row) => row.split(/\s{2,}/)[0]),
    ).toEqual(['done', 'absent', 'failed', 'in flight', 'not sent']);
  });
});
