// Issue 42 item 6, the journal's side: an operation whose ids carry a value (the suite's rename,
// test/helpers/patch-operation.ts) keys its --journal by the id and its value's print, and one that
// is not repeatable is never sent again for an id an earlier run left in flight. Through the real
// engine (runBatch) and transport, against a loopback server that can hold an answer.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { journalWordsFrom, registerJournalWords } from '../../../src/engine/journal-words.js';
import type { Operation } from '../../../src/engine/operation.js';
import { inProcess } from '../../helpers/in-process.js';
import { RENAME_RESULTS, type RenameResult, renameOperation } from '../../helpers/patch-operation.js';
import { runOperation } from '../../helpers/run-operation.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

const TOKEN = 'rename-journal-token-3a9e1f';

/** How the server answers: 200, a 403 with the API's Error object, or not at all (held until it closes). */
let mode: 'ok' | 'refuse' | 'hold';
let dir: string;
let journal: string;
let server: ScriptedServer;
/** What each PATCH asked, `1 Fern`, in order. */
let asked: string[];

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on('end', () => {
    asked.push(`${req.url?.split('/').pop()} ${(JSON.parse(body) as { name: string }).name}`);
    if (mode === 'hold') return;
    if (mode === 'refuse') res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":7,"message":"not yours"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1,"name":"x"}');
  });
}

// The journal commands, in this process; they find a rename's words by its header's name, as its command would register them.
const cli = inProcess();
beforeAll(() => registerJournalWords('rename', journalWordsFrom(RENAME_RESULTS.states)));

/** `journal status --json` of the journal. */
const status = async (): Promise<Record<string, unknown>> =>
  JSON.parse((await cli.run(['--json', 'journal', 'status', journal])).stdout) as Record<string, unknown>;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-rename-journal-'));
  journal = path.join(dir, 'rename.journal');
  asked = [];
  mode = 'ok';
  server = await startScriptedServer(answer);
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const rename = (op: Operation<RenameResult>, args: string[], parsed: Record<string, unknown> = {}, signal?: AbortSignal) =>
  runOperation(op, args, {
    dir,
    url: server.url,
    token: TOKEN,
    parsed: { journal, concurrency: '1', ...parsed },
    ...(signal ? { signal } : {}),
  });

/** The same rename, its ids given alone (no value each). */
function idsAlone(op: Operation<RenameResult>): Operation<RenameResult> {
  const { value: _value, ...alone } = op;
  return alone;
}

/** The journal's id lines. */
const idLines = (): string[] =>
  readFileSync(journal, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"id":'));

/** The summary line. */
const summaryOf = (stderr: string): string | undefined => stderr.split('\n').find((line) => / in \d+\.\ds$/.test(line));

/** A first run of `op` on plant 1 named Fern, stopped by SIGTERM while the server holds its PATCH: in flight. */
async function leftInFlight(op: Operation<RenameResult>): Promise<void> {
  mode = 'hold';
  asked = [];
  const stop = new AbortController();
  void server.nextRequest().then(() => setImmediate(() => stop.abort('SIGTERM')));
  const first = await rename(op, ['1', 'Fern'], {}, stop.signal);
  // The engine's code for a signal (main.ts makes the process's 143 of it); the id's is the signal's own.
  expect(first.exit).toBe(130);
  expect(asked).toEqual(['1 Fern']);
  // Its record: in flight, with the signal's code.
  expect(idLines().at(-1)).toMatch(/^\{"id":1,"valuePrint":"[0-9a-f]{16}","state":"in-flight","status":null,.*"exit":143\}$/);
  mode = 'ok';
  asked = [];
}

describe("an id's value is part of the journal's key", () => {
  it('each id line carries its value as a print (never the value), and the header says ids carry values', async () => {
    const run = await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss']);
    expect(run.exit).toBe(0);
    const text = readFileSync(journal, 'utf8');
    const header = JSON.parse(text.split('\n')[0] ?? '') as Record<string, unknown>;
    expect(header).toMatchObject({
      version: 3,
      operation: 'rename',
      values: { name: 'name', salt: expect.stringMatching(/^[0-9a-f]{16}$/) },
    });
    const lines = idLines();
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\{"id":1,"valuePrint":"[0-9a-f]{16}","sent":true\}$/);
    expect(lines[1]).toMatch(/^\{"id":1,"valuePrint":"[0-9a-f]{16}","state":"done","status":200\}$/);
    expect(lines[0]?.slice(0, 40)).toBe(lines[1]?.slice(0, 40));
    expect(lines[2]?.slice(0, 40)).not.toBe(lines[0]?.slice(0, 40));
    expect(text).not.toMatch(/Fern|Moss/);
  });

  it('a resume skips an id done with the same value, and sends one done with another: a new request', async () => {
    expect((await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss'])).exit).toBe(0);
    asked = [];
    const second = await rename(renameOperation(true), ['1', 'Rose', '2', 'Moss']);
    expect(second.exit).toBe(0);
    expect(asked).toEqual(['1 Rose']);
    expect(summaryOf(second.stderr)).toMatch(/^1 renamed, 1 renamed before \(journal\), /);
    // Its last line is Rose's now: asked Fern again, it is sent again.
    asked = [];
    expect((await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss'])).exit).toBe(0);
    expect(asked).toEqual(['1 Fern']);
    asked = [];
    expect((await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss'])).exit).toBe(0);
    expect(asked).toEqual([]);
  });

  it('--dry-run skips only an id done with the value asked', async () => {
    expect((await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss'])).exit).toBe(0);
    const plan = await rename(renameOperation(true), ['1', 'Rose', '2', 'Moss'], { dryRun: true });
    expect(plan.stdout).toBe(`PATCH ${server.url}/plants/1 {"name":"Rose"}  (Authorization: Bearer ***)\nskip 2: already done (journal)\n`);
  });

  it('an id in flight earlier with another value is not "uncertain earlier" for this one: a refusal now is failed, not in flight', async () => {
    await leftInFlight(renameOperation(true));
    mode = 'refuse';
    const other = await rename(renameOperation(true), ['1', 'Rose', '2', 'Moss']);
    expect(asked).toEqual(['1 Rose', '2 Moss']);
    expect(summaryOf(other.stderr)).toMatch(/, 2 failed, 0 not asked in /);
    expect(other.stderr).not.toMatch(/in flight/);
    expect(idLines().at(-1)).toMatch(/"state":"failed"/);
    // And so the journal counts it: its last line, about Rose, is a failure; the Fern request before it is another's.
    expect(await status()).toMatchObject({ failed: 2, inFlight: 0 });
    // With the same value, the earlier request may have done it: the refusal does not decide it.
    await leftInFlight(renameOperation(true));
    mode = 'refuse';
    const same = await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss']);
    expect(summaryOf(same.stderr)).toMatch(/, 1 failed, 1 in flight /);
    expect(await status()).toMatchObject({ failed: 1, inFlight: 1 });
  });

  it.each([
    [
      'ids carry values, and this run gives ids alone',
      renameOperation(true),
      idsAlone(renameOperation(true)),
      ['1'],
      /records ids each with a name, and this run sends ids alone/,
    ],
    [
      'ids alone, and this run gives ids with values',
      idsAlone(renameOperation(true)),
      renameOperation(true),
      ['1', 'Fern'],
      /records ids alone, and this run sends ids each with a name/,
    ],
  ])('a journal whose %s is refused: exit 2, one line, nothing sent', async (_what, writer, reader, args, why) => {
    const first = await rename(writer, writer.value ? ['1', 'Fern'] : ['1']);
    expect(first.exit).toBe(0);
    const before = readFileSync(journal, 'utf8');
    asked = [];
    const resumed = await rename(reader, args);
    expect(resumed.exit).toBe(2);
    expect(resumed.stderr.trim().split('\n')).toHaveLength(1);
    expect(resumed.stderr).toMatch(why);
    expect(asked).toEqual([]);
    expect(readFileSync(journal, 'utf8')).toBe(before);
  });
});

describe('an operation that is not repeatable is not sent again after a lost answer', () => {
  it('left in flight by a run a signal stopped while its request was held: not sent again, in flight, exit 7 (not that run’s 143)', async () => {
    await leftInFlight(renameOperation(false));
    const second = await rename(renameOperation(false), ['1', 'Fern', '2', 'Moss'], { json: true });
    expect(asked).toEqual(['2 Moss']);
    // This run was not signalled: 143 would tell a script it was.
    expect(second.exit).toBe(7);
    expect(second.stderr).toMatch(
      /^✗ plant 1: not sent again: an earlier run's request may have been carried out, and rename is not repeatable \(check plant 1; to send it anyway, run it without this journal\)$/m,
    );
    const summary = (JSON.parse(second.stderr.trim().split('\n').at(-1) ?? '') as { summary: Record<string, unknown> }).summary;
    expect(summary).toMatchObject({ renamed: 1, inFlight: 1, failed: 0, notAsked: 0 });
    expect(await status()).toMatchObject({ renamed: 1, inFlight: 1, failed: 0 });
    // And again: it stays in flight, never sent.
    const third = await rename(renameOperation(false), ['1', 'Fern', '2', 'Moss']);
    expect(asked).toEqual(['2 Moss']);
    expect(summaryOf(third.stderr)).toMatch(
      /^0 renamed, 1 renamed before \(journal\), 0 not found, 0 failed, 1 in flight \(sent with no decided answer: they may be renamed\)/,
    );
  });

  it('killed with its request in flight (a sent line, no result): not sent again, exit 7', async () => {
    await leftInFlight(renameOperation(false));
    // What a kill -9 leaves: the sent line, and nothing after it.
    const lines = readFileSync(journal, 'utf8').split('\n');
    const sent = lines.findIndex((line) => line.includes('"sent":true'));
    writeFileSync(journal, `${lines.slice(0, sent + 1).join('\n')}\n`);
    const second = await rename(renameOperation(false), ['1', 'Fern', '2', 'Moss']);
    expect(asked).toEqual(['2 Moss']);
    expect(second.exit).toBe(7);
    expect(summaryOf(second.stderr)).toMatch(/, 1 in flight /);
  });

  it('--dry-run says so: held back, with the value it was sent with; another value would be sent', async () => {
    await leftInFlight(renameOperation(false));
    const plan = await rename(renameOperation(false), ['1', 'Fern', '2', 'Moss'], { dryRun: true });
    expect(plan.stdout).toBe(
      `skip 1: in flight when an earlier run stopped, and not repeatable (journal)\nPATCH ${server.url}/plants/2 {"name":"Moss"}  (Authorization: Bearer ***)\n`,
    );
    expect(plan.stderr).toMatch(/^dry run: 1 request not sent, 1 skipped \(journal\)/m);
    const other = await rename(renameOperation(false), ['1', 'Rose'], { dryRun: true });
    expect(other.stdout).toBe(`PATCH ${server.url}/plants/1 {"name":"Rose"}  (Authorization: Bearer ***)\n`);
    expect(asked).toEqual([]);
  });

  it('a repeatable one is sent again, and done', async () => {
    await leftInFlight(renameOperation(true));
    const second = await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss']);
    expect(asked).toEqual(['1 Fern', '2 Moss']);
    expect(second.exit).toBe(0);
    expect(summaryOf(second.stderr)).toMatch(/^2 renamed, .*, 0 failed, 0 not asked in /);
  });

  it('with another value, it is a new request: sent', async () => {
    await leftInFlight(renameOperation(false));
    const second = await rename(renameOperation(false), ['1', 'Rose']);
    expect(asked).toEqual(['1 Rose']);
    expect(second.exit).toBe(0);
  });
});

describe('a journal of values, read by the journal commands: an id counts by its last line', () => {
  it('journal status, failed and left', async () => {
    expect((await rename(renameOperation(true), ['1', 'Fern', '2', 'Moss'])).exit).toBe(0);
    mode = 'refuse';
    expect((await rename(renameOperation(true), ['2', 'Ivy'])).exit).toBe(4);
    expect(await status()).toMatchObject({ renamed: 1, failed: 1, inFlight: 0 });
    expect((await cli.run(['journal', 'failed', journal])).stdout).toBe('2\n');
    const watch = await cli.run(['journal', 'status', '--watch', journal]);
    expect(watch.exit).toBe(0);
    expect(watch.stdout).toMatch(/: 1 renamed, 0 not found, 1 failed, 0 in flight, 0 not asked; /);
    expect((await cli.run(['journal', 'left', journal], { stdin: ['1\n2\n3\n'] })).stdout).toBe('2\n3\n');
  });
});
