// The journal as the delete command uses it: a new one starts with its header, results read
// back, a resumed run skips what earlier runs finished, a torn last line is left out with a
// note and cut off before the next line. Refusals are in refusals.test.ts, write failures in
// writer.test.ts, kill -9 in crash.test.ts.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openJournal, readJournalForPlan } from '../../../../src/batch/journal/index.js';
import { resultJson } from '../../../../src/commands/delete/report.js';
import {
  ABSENT,
  absent,
  DONE,
  deleted,
  FAILED,
  failed,
  HEADER,
  HEADER_V1,
  HEADER_V2,
  journalFolder,
  NOT_SENT,
  notSent,
  RUN,
  STARTED,
  sent,
  V2,
} from './fixtures.js';

const at = journalFolder();
const open = () => openJournal(at.file, { ...RUN, started: STARTED });
const lines = (): string[] => readFileSync(at.file, 'utf8').split('\n');

describe('a new journal', () => {
  it('is created with mode 0600 and starts with its header, durable before any result', async () => {
    const journal = await open();
    expect(journal.resumed).toBe(false);
    expect(readFileSync(at.file, 'utf8')).toBe(`${HEADER}\n`);
    expect(statSync(at.file).mode & 0o777).toBe(0o600);
    journal.close();
  });

  it('holds the result lines in the order they were recorded, after the header', async () => {
    const journal = await open();
    journal.record('42', DONE);
    journal.record('7', ABSENT);
    journal.record('9', FAILED);
    journal.close();
    expect(lines()).toEqual([HEADER, deleted('42'), absent('7'), failed('9'), '']);
  });

  it('flush() has written and synced every line when it returns', async () => {
    const journal = await open();
    journal.record('1', DONE);
    expect(lines()).toEqual([HEADER, '']);
    journal.flush();
    expect(lines()).toEqual([HEADER, deleted('1'), '']);
    journal.close();
  });

  it('an empty file (a run killed before its header) becomes a new journal', async () => {
    writeFileSync(at.file, '', { mode: 0o600 });
    const journal = await open();
    expect(journal.resumed).toBe(false);
    journal.close();
    expect(readFileSync(at.file, 'utf8')).toBe(`${HEADER}\n`);
  });

  it("writes each record as a line of its own format: the state, the status, a failure's fields", async () => {
    const journal = await open();
    journal.record('1', DONE);
    journal.record('2', ABSENT);
    journal.record('3', FAILED);
    journal.record('4', { ...FAILED, state: 'in-flight', status: null, message: 'timed out "here"', exit: 8 });
    journal.record('5', NOT_SENT);
    journal.close();
    expect(lines()).toEqual([
      HEADER,
      '{"id":1,"state":"done","status":204}',
      '{"id":2,"state":"absent","status":404}',
      '{"id":3,"state":"failed","status":503,"error":null,"message":"Service Unavailable","exit":6}',
      '{"id":4,"state":"in-flight","status":null,"error":null,"message":"timed out \\"here\\"","exit":8}',
      '{"id":5,"state":"not-sent","status":null,"error":null,"message":"not sent: interrupted","exit":130}',
      '',
    ]);
  });
});

describe('resuming', () => {
  it('what each id last said: deleted and absent are kept apart, and both are done', async () => {
    const first = await open();
    for (const [id, record] of [
      ['1', DONE],
      ['2', ABSENT],
      ['3', FAILED],
      ['4', NOT_SENT],
    ] as const)
      first.record(id, record);
    first.recordSent('6');
    first.close();
    const journal = await open();
    expect(journal.resumed).toBe(true);
    const ids = ['1', '2', '3', '4', '5', '6'];
    expect(ids.map((id) => journal.recorded(id))).toEqual(['done', 'absent', 'failed', 'notSent', undefined, 'sent']);
    expect(ids.map((id) => journal.isDone(id))).toEqual([true, true, false, false, false, false]);
    expect(ids.map((id) => journal.wasInFlight(id))).toEqual([false, false, false, false, false, true]);
    expect(journal.counts()).toEqual({ done: 1, absent: 1, failed: 1, notSent: 1, sent: 1 });
    journal.close();
  });

  it('a later line for the same id wins: a success after a failure counts, a failure after it is sent again', async () => {
    writeFileSync(at.file, [HEADER, failed('5'), deleted('5'), deleted('6'), failed('6'), ''].join('\n'), { mode: 0o600 });
    const journal = await open();
    expect(journal.isDone('5')).toBe(true);
    expect(journal.isDone('6')).toBe(false);
    expect(journal.counts()).toEqual({ done: 1, absent: 0, failed: 1, notSent: 0, sent: 0 });
    journal.close();
  });

  it('a third run skips what the first two finished, and appends to the same file', async () => {
    const first = await open();
    first.record('1', DONE);
    first.record('2', FAILED);
    first.close();
    const second = await open();
    expect(second.isDone('2')).toBe(false);
    second.record('2', DONE);
    second.record('3', NOT_SENT);
    second.close();
    const third = await open();
    expect(['1', '2', '3'].filter((id) => !third.isDone(id))).toEqual(['3']);
    third.close();
    expect(lines()).toEqual([HEADER, deleted('1'), failed('2'), deleted('2'), notSent('3'), '']);
  });

  it('in flight at a stop: a sent line with no result after it, remembered through later failures until a result settles it', async () => {
    const text = [
      HEADER,
      // 1: sent, and its result followed: not in flight.
      sent('1'),
      deleted('1'),
      // 2: sent, the run killed; sent again by the next run, which failed it (503): the first request may have deleted it.
      sent('2'),
      sent('2'),
      failed('2'),
      // 3: in flight at a stop, then settled by the next run.
      sent('3'),
      sent('3'),
      deleted('3'),
      // 4: failed, then sent again and failed again: every request answered, nothing in flight.
      sent('4'),
      failed('4'),
      sent('4'),
      failed('4'),
      // 5: the last line is a sent line: in flight when the last run stopped.
      sent('5'),
      '',
    ].join('\n');
    writeFileSync(at.file, text, { mode: 0o600 });
    const journal = await readJournalForPlan(at.file, RUN);
    const ids = ['1', '2', '3', '4', '5'];
    expect(ids.map((id) => journal.wasInFlight(id))).toEqual([false, true, false, false, true]);
    expect(ids.map((id) => journal.recorded(id))).toEqual(['done', 'failed', 'done', 'failed', 'sent']);
  });

  it('a sent line reaches the file before recordSent returns, with the results recorded before it', async () => {
    const journal = await open();
    journal.record('1', DONE);
    journal.recordSent('2');
    expect(lines()).toEqual([HEADER, deleted('1'), sent('2'), '']);
    journal.close();
  });

  it('results reach the file at the end of the turn of the event loop they were recorded in, not a second later', async () => {
    const journal = await open();
    journal.record('1', DONE);
    journal.record('2', ABSENT);
    expect(lines()).toEqual([HEADER, '']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines()).toEqual([HEADER, deleted('1'), absent('2'), '']);
    journal.close();
  });

  it('a format-1 journal (result lines only, written before sent lines) is read and resumed', async () => {
    writeFileSync(at.file, [HEADER_V1, V2.deleted('1'), V2.failed('2'), ''].join('\n'), { mode: 0o600 });
    const journal = await open();
    expect(journal.resumed).toBe(true);
    expect(['1', '2'].map((id) => journal.isDone(id))).toEqual([true, false]);
    journal.recordSent('2');
    journal.record('2', DONE);
    journal.close();
    const again = await readJournalForPlan(at.file, RUN);
    expect(again.isDone('2')).toBe(true);
  });

  it("a format-2 journal goes on in its own vocabulary (delete's --json lines), which its plantstore reads", async () => {
    writeFileSync(at.file, [HEADER_V2, sent('1'), V2.deleted('1'), ''].join('\n'), { mode: 0o600 });
    const journal = await open();
    for (const [id, record] of [
      ['2', DONE],
      ['3', ABSENT],
      ['4', FAILED],
      ['5', NOT_SENT],
    ] as const)
      journal.record(id, record);
    journal.record('6', { ...FAILED, state: 'in-flight', status: null, exit: 8 });
    journal.close();
    expect(lines()).toEqual([
      HEADER_V2,
      sent('1'),
      V2.deleted('1'),
      V2.deleted('2'),
      V2.absent('3'),
      V2.failed('4'),
      V2.notSent('5'),
      '{"id":6,"deleted":false,"status":null,"error":null,"message":"Service Unavailable","exit":8,"uncertain":true}',
      '',
    ]);
    const again = await readJournalForPlan(at.file, RUN);
    expect(['1', '2', '3', '4', '5', '6'].map((id) => again.recorded(id))).toEqual([
      'done',
      'done',
      'absent',
      'failed',
      'notSent',
      'failed',
    ]);
    expect(again.wasInFlight('6')).toBe(true);
  });

  it('keeps every digit of int64 ids, past what a JSON number holds', async () => {
    const ids = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '0'];
    const first = await open();
    for (const id of ids) first.record(id, DONE);
    first.close();
    const journal = await readJournalForPlan(at.file, RUN);
    expect(ids.map((id) => journal.isDone(id))).toEqual([true, true, true, true]);
    expect(journal.isDone('9007199254740992')).toBe(false);
    expect(journal.counts().done).toBe(4);
  });

  it('a hundred thousand ids read back, each found and nothing else', async () => {
    const first = await open();
    for (let i = 0; i < 100_000; i++) first.record(String(i * 7919), i % 10 === 0 ? FAILED : DONE);
    first.close();
    const journal = await readJournalForPlan(at.file, RUN);
    let done = 0;
    let strays = 0;
    for (let i = 0; i < 100_000; i++) {
      if (journal.isDone(String(i * 7919))) done++;
      if (journal.recorded(String(i * 7919 + 1)) !== undefined) strays++;
    }
    expect({ done, strays }).toEqual({ done: 90_000, strays: 0 });
  });
});

describe('a torn end (a run killed mid-write, a power cut)', () => {
  it.each([
    ['without its newline', `{"id":3,"delet`],
    ['a whole line without its newline', deleted('3')],
    ['not a result line, newline and all', `{"id":3,"del\u0000\u0000\n`],
    ['a sent line cut short', `{"id":3,"sent":tr`],
    ['NULs past the longest line plantstore writes (a power cut on some file systems)', '\u0000'.repeat(200 * 1024)],
    ['stale bytes with newlines in them, longer than any line', `${'x'.repeat(70 * 1024)}\n${'\u0000'.repeat(1000)}\nzz\n${'y'.repeat(3)}`],
  ])('%s: left out with a note, then cut off so the next line starts clean', async (_, torn) => {
    writeFileSync(at.file, `${HEADER}\n${deleted('1')}\n${deleted('2')}\n${torn}`, { mode: 0o600 });
    const journal = await open();
    expect(journal.note).toBe(
      `journal ${at.file}: its end was torn (${Buffer.byteLength(torn)} bytes: a run stopped while writing, or a power cut) and is left out; the plants it named are sent again`,
    );
    expect(journal.isDone('3')).toBe(false);
    expect(journal.counts().done).toBe(2);
    journal.record('3', DONE);
    journal.close();
    expect(lines()).toEqual([HEADER, deleted('1'), deleted('2'), deleted('3'), '']);
    const again = await readJournalForPlan(at.file, RUN);
    expect(again.note).toBeUndefined();
    expect(again.isDone('3')).toBe(true);
  });
});

describe('a failure recorded uncertain (its request may have been carried out) counts as in flight', () => {
  const uncertain = (id: string): string =>
    resultJson({ id, deleted: false, status: null, error: null, message: 'no complete answer', exit: 8, attempted: true, uncertain: true });
  it('format 3: a line in flight, until a later line settles it, through later failures', async () => {
    const inFlight = (id: string) => `{"id":${id},"state":"in-flight","status":null,"error":null,"message":"no answer","exit":8}`;
    const text = [
      HEADER,
      sent('1'),
      inFlight('1'),
      sent('2'),
      inFlight('2'),
      sent('2'),
      failed('2'),
      sent('3'),
      inFlight('3'),
      sent('3'),
      deleted('3'),
      '',
    ];
    writeFileSync(at.file, text.join('\n'), { mode: 0o600 });
    const journal = await readJournalForPlan(at.file, RUN);
    expect(['1', '2', '3'].map((id) => journal.wasInFlight(id))).toEqual([true, true, false]);
    expect(['1', '2', '3'].map((id) => journal.recorded(id))).toEqual(['failed', 'failed', 'done']);
  });

  it('format 2: until a later line settles it, through later certain failures; 2.0 lines without the field by their exit code', () => {
    const { failed, deleted } = V2;
    const text = [
      HEADER_V2,
      // 1: timed out (uncertain).
      sent('1'),
      uncertain('1'),
      // 2: timed out, then a 503 by the next run: still uncertain.
      sent('2'),
      uncertain('2'),
      sent('2'),
      failed('2'),
      // 3: uncertain, then deleted.
      sent('3'),
      uncertain('3'),
      sent('3'),
      deleted('3'),
      // 4: a 2.0 line for a signal while waiting (no "uncertain" field, status null, exit 143).
      sent('4'),
      '{"id":4,"deleted":false,"status":null,"error":null,"message":"interrupted while waiting for the answer","exit":143}',
      // 5: a 2.0 line for a certain failure: not in flight.
      sent('5'),
      '{"id":5,"deleted":false,"status":400,"error":13,"message":"protected","exit":1}',
      // 6: "uncertain":false said outright.
      sent('6'),
      '{"id":6,"deleted":false,"status":null,"error":null,"message":"x","exit":8,"uncertain":false}',
      '',
    ].join('\n');
    writeFileSync(at.file, text, { mode: 0o600 });
    return readJournalForPlan(at.file, RUN).then((journal) => {
      const ids = ['1', '2', '3', '4', '5', '6'];
      expect(ids.map((id) => journal.wasInFlight(id))).toEqual([true, true, false, true, false, false]);
      expect(ids.map((id) => journal.recorded(id))).toEqual(['failed', 'failed', 'done', 'failed', 'failed', 'failed']);
    });
  });
});

describe('whole lines after the last good one are never cut as torn: only a broken last line is', () => {
  it('a valid line written by hand, spaces and all, is read', async () => {
    writeFileSync(at.file, `${HEADER}\n${deleted('1')}\n{ "id": 2, "state": "absent", "status": 404 }\n`, { mode: 0o600 });
    const journal = await open();
    expect(journal.note).toBeUndefined();
    expect(journal.recorded('2')).toBe('absent');
    journal.close();
  });

  it.each([
    ['a JSON line that is not a journal line', '{"id":"3","state":"done"}\n'],
    ['a JSON line with no id', '{"state":"done"}\n'],
    ['a line of format 2 in a journal of format 3', `${V2.deleted('3')}\n`],
    ['a state no engine has', '{"id":3,"state":"deleted","status":204}\n'],
  ])('%s: refused as damaged, naming the line, and the file left as it was', async (_, line) => {
    const text = `${HEADER}\n${deleted('1')}\n${line}`;
    writeFileSync(at.file, text, { mode: 0o600 });
    await expect(open()).rejects.toThrow(/line 3 is a whole JSON line that is not a journal line/);
    await expect(readJournalForPlan(at.file, RUN)).rejects.toThrow(/line 3/);
    expect(readFileSync(at.file, 'utf8')).toBe(text);
  });
});

describe('--dry-run reads without locking or writing', () => {
  it('a missing journal: nothing done, and no file or lock created', async () => {
    const plan = await readJournalForPlan(at.file, RUN);
    expect(plan.resumed).toBe(false);
    expect(plan.isDone('1')).toBe(false);
    expect(existsSync(at.file)).toBe(false);
    expect(existsSync(`${at.file}.lock`)).toBe(false);
  });

  it('a torn journal: the note, and the torn bytes left where they are', async () => {
    const text = `${HEADER}\n${deleted('1')}\n{"id":2,"de`;
    writeFileSync(at.file, text, { mode: 0o600 });
    const plan = await readJournalForPlan(at.file, RUN);
    expect(plan.note).toMatch(/its end was torn \(11 bytes/);
    expect(plan.isDone('1')).toBe(true);
    expect(readFileSync(at.file, 'utf8')).toBe(text);
    expect(existsSync(`${at.file}.lock`)).toBe(false);
  });

  it('a journal in use by a running plantstore is still read', async () => {
    const running = await open();
    running.record('1', DONE);
    running.flush();
    const plan = await readJournalForPlan(at.file, RUN);
    expect(plan.isDone('1')).toBe(true);
    running.close();
  });
});

describe('the lock', () => {
  it('is held while the journal is open, and gone after close', async () => {
    const journal = await open();
    expect(existsSync(`${at.file}.lock`)).toBe(true);
    journal.close();
    expect(existsSync(`${at.file}.lock`)).toBe(false);
    journal.close();
  });
});
