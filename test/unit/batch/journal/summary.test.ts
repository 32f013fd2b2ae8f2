// Issue 35 item 5: reading a journal. Each id counts once, by its last line (a failure then a
// success is a success); a failure recorded uncertain, or a sent line with no result, counts in
// flight, not failed; failures are broken down by exit and API error code; the shards of one job
// are summed with an id in two files counted once; a file that is not a journal is refused.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRefusedError } from '../../../../src/batch/journal/errors.js';
import { lockJournal } from '../../../../src/batch/journal/journal-lock.js';
import { summarizeJournals } from '../../../../src/batch/journal/summary.js';
import {
  absent as absentV3,
  deleted as deletedV3,
  failed as failedV3,
  HEADER_V2,
  HEADER as HEADER_V3,
  journalFolder,
  sent,
  V2,
} from './fixtures.js';

// Most cases here are of journals of format 2 (delete's --json lines), which must read as they
// always have; those of format 3 (records.ts) say so.
const HEADER = HEADER_V2;
const { deleted, absent, failed, notSent } = V2;

const folder = journalFolder();

/** A failure the API decided: 400 with its Error code, exit 1 (or `exit`). */
const refusedLine = (id: string, error = 1, exit = 1): string =>
  `{"id":${id},"deleted":false,"status":400,"error":${error},"message":"plant ${id} does not exist","exit":${exit}}`;
/** A failure with no decided answer, as 2.1 writes it. */
const uncertainLine = (id: string): string =>
  `{"id":${id},"deleted":false,"status":null,"error":null,"message":"timed out","exit":8,"uncertain":true}`;

function journal(name: string, lines: readonly string[], header = HEADER): string {
  const file = path.join(folder.dir, name);
  writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
  return file;
}

const countsOf = async (...files: string[]) => (await summarizeJournals(files)).counts;

describe('journal status: counting', () => {
  it('counts each id by its last line: a failure then a success is a success, and an absent after a failure is absent', async () => {
    const file = journal('a.journal', [
      sent('1'),
      refusedLine('1', 7, 5),
      sent('1'),
      deleted('1'),
      sent('2'),
      refusedLine('2'),
      sent('2'),
      absent('2'),
      sent('3'),
      deleted('3'),
      sent('4'),
      refusedLine('4'),
    ]);
    const summary = await summarizeJournals([file]);
    expect(summary.counts).toEqual({ done: 2, absent: 1, failed: 1, inFlight: 0, notSent: 0 });
    // Only the last failure of an id that ended failed counts: id 1's error 7 is gone.
    expect(summary.failedByExit).toEqual({ 1: 1 });
    expect(summary.failedByError).toEqual({ 1: 1 });
  });

  it('counts an uncertain failure, a sent line with no result and a 2.0 unanswered failure in flight, never failed', async () => {
    const file = journal('a.journal', [
      sent('1'),
      uncertainLine('1'),
      sent('2'),
      sent('3'),
      // 2.0 wrote no "uncertain": a failure with no status and a timeout's exit is one.
      '{"id":3,"deleted":false,"status":null,"error":null,"message":"timed out","exit":8}',
      sent('4'),
      refusedLine('4'),
    ]);
    const summary = await summarizeJournals([file]);
    expect(summary.counts).toEqual({ done: 0, absent: 0, failed: 1, inFlight: 3, notSent: 0 });
    expect(summary.failedByExit).toEqual({ 1: 1 });
  });

  it('keeps an id in flight through a later certain failure (its earlier request may have deleted it), until a result settles it', async () => {
    const file = journal('a.journal', [sent('1'), uncertainLine('1'), sent('1'), refusedLine('1', 9, 4), sent('2'), uncertainLine('2')]);
    expect(await countsOf(file)).toEqual({ done: 0, absent: 0, failed: 0, inFlight: 2, notSent: 0 });
    const settled = journal('b.journal', [sent('1'), uncertainLine('1'), sent('1'), absent('1')]);
    expect(await countsOf(settled)).toEqual({ done: 0, absent: 1, failed: 0, inFlight: 0, notSent: 0 });
  });

  it('breaks failures down by exit code and by API error code (a failure without an Error object has no API code)', async () => {
    const file = journal('a.journal', [refusedLine('1', 1, 1), refusedLine('2', 1, 1), refusedLine('3', 12, 1), failed('4'), notSent('5')]);
    const summary = await summarizeJournals([file]);
    expect(summary.counts).toEqual({ done: 0, absent: 0, failed: 4, inFlight: 0, notSent: 1 });
    expect(summary.failedByExit).toEqual({ 1: 3, 6: 1 });
    expect(summary.failedByError).toEqual({ 1: 2, 12: 1 });
  });

  it('sums the shards of one job, and counts an id found in two files once, by the file that says the most of it', async () => {
    const shard0 = journal('0.journal', [sent('1'), deleted('1'), sent('2'), refusedLine('2'), sent('5'), refusedLine('5'), notSent('7')]);
    const shard1 = journal('1.journal', [
      sent('3'),
      deleted('3'),
      sent('2'),
      deleted('2'),
      sent('5'),
      sent('6'),
      refusedLine('6'),
      notSent('6'),
    ]);
    const expected = { done: 3, absent: 0, failed: 0, inFlight: 1, notSent: 2 };
    // Either order: deleted beats failed (2), in flight beats failed (5).
    expect(await countsOf(shard0, shard1)).toEqual(expected);
    expect(await countsOf(shard1, shard0)).toEqual(expected);
    // The same file twice counts its ids once.
    expect(await countsOf(shard0, shard0)).toEqual({ done: 1, absent: 0, failed: 2, inFlight: 0, notSent: 1 });
  });

  it('lists the ids still to do in numeric order with their exact int64 digits', async () => {
    const ids = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '12', '3'];
    const file = journal('a.journal', [...ids.map((id) => refusedLine(id)), sent('20'), notSent('30'), deleted('40'), absent('50')]);
    const summary = await summarizeJournals([file]);
    const todo = summary.idsIn(['failed', 'inFlight', 'notSent']);
    expect(Array.from(todo, String)).toEqual(['-9223372036854775808', '3', '12', '20', '30', '9007199254740993', '9223372036854775807']);
    expect(summary.describe(20n)).toEqual({ state: 'inFlight', failure: undefined });
    expect(summary.describe(12n)).toEqual({ state: 'failed', failure: { exit: 1, error: 1 } });
  });

  it('reads the run from the header, and a shard when the header has one', async () => {
    const header = HEADER.replace('}', ',"shard":"1/4"}');
    const summary = await summarizeJournals([journal('a.journal', [deleted('1')], header)]);
    expect(summary.baseUrl).toBe('https://plants.example.com');
    expect(summary.profile).toBe('default');
    expect(summary.files[0]).toMatchObject({ started: '2026-03-01T12:00:00.000Z', shard: '1/4', running: false, tornBytes: 0 });
  });

  it('reads a journal a run holds (no lock taken), saying so, and leaves out the line being written', async () => {
    const file = journal('a.journal', [sent('1'), deleted('1')]);
    writeFileSync(file, `${HEADER}\n${sent('1')}\n${deleted('1')}\n{"id":2,"se`);
    const lock = lockJournal(file);
    try {
      const summary = await summarizeJournals([file]);
      expect(summary.counts.done).toBe(1);
      expect(summary.files[0]).toMatchObject({ running: true, tornBytes: 11 });
    } finally {
      lock.release();
    }
    expect((await summarizeJournals([file])).files[0]?.running).toBe(false);
  });

  it('counts an empty journal (a run stopped before its header) as recording nothing', async () => {
    const file = path.join(folder.dir, 'empty.journal');
    writeFileSync(file, '');
    const summary = await summarizeJournals([file, journal('a.journal', [deleted('1')])]);
    expect(summary.counts.done).toBe(1);
    expect(summary.files[0]?.started).toBeUndefined();
  });
});

describe('journal status: format 3 (records.ts)', () => {
  it('counts each state as format 2 does, and names the operation its header gives', async () => {
    const inFlight = (id: string) => `{"id":${id},"state":"in-flight","status":null,"error":null,"message":"timed out","exit":8}`;
    const notSentV3 = (id: string) => `{"id":${id},"state":"not-sent","status":null,"error":null,"message":"not sent","exit":130}`;
    const lines = [
      sent('1'),
      deletedV3('1'),
      sent('2'),
      absentV3('2'),
      sent('3'),
      failedV3('3'),
      sent('4'),
      inFlight('4'),
      notSentV3('5'),
      sent('6'),
    ];
    const summary = await summarizeJournals([journal('a.journal', lines, HEADER_V3.replace('"operation":"delete"', '"operation":"get"'))]);
    expect(summary.counts).toEqual({ done: 1, absent: 1, failed: 1, inFlight: 2, notSent: 1 });
    expect(summary.failedByExit).toEqual({ 6: 1 });
    expect(summary.describe(4n)).toEqual({ state: 'inFlight', failure: { exit: 8, error: undefined } });
    expect(summary.operation).toBe('get');
  });

  it("a journal of format 2 is delete's: its header names no operation", async () => {
    expect((await summarizeJournals([journal('a.journal', [deleted('1')])])).operation).toBe('delete');
  });
});

describe('journal status: refusals (exit 2, one line)', () => {
  const refusal = async (files: string[]): Promise<JournalRefusedError> => {
    const error = await summarizeJournals(files).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalRefusedError);
    expect((error as JournalRefusedError).exit).toBe(2);
    expect((error as Error).message).not.toContain('\n');
    return error as JournalRefusedError;
  };

  it('refuses a file that is not a journal, with advice for reading one (not for --journal)', async () => {
    const file = path.join(folder.dir, 'ids.txt');
    writeFileSync(file, '1\n2\n');
    const error = await refusal([journal('a.journal', [deleted('1')]), file]);
    expect(error.message).toMatch(/ids\.txt is not a plantstore journal \(.*\): give the path of a --journal file$/);
  });

  it('refuses a missing file, a symbolic link and a FIFO (without blocking on it)', async () => {
    expect((await refusal([path.join(folder.dir, 'nope')])).message).toContain('there is no such file');
    const target = journal('a.journal', [deleted('1')]);
    const link = path.join(folder.dir, 'link');
    symlinkSync(target, link);
    expect((await refusal([link])).message).toContain('symbolic link');
    const fifo = path.join(folder.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await refusal([fifo])).message).toContain('not a regular file');
  });

  it("says for each what stands at the path and what to give instead, in a reader's words (not a run's)", async () => {
    const said = async (file: string): Promise<string> => {
      const error = await refusal([file]);
      expect(error.reason).toBe('unopenable');
      return error.message;
    };
    const missing = path.join(folder.dir, 'nope');
    expect(await said(missing)).toBe(`cannot read journal ${missing}: there is no such file; check the path`);
    const link = path.join(folder.dir, 'link');
    symlinkSync(journal('a.journal', [deleted('1')]), link);
    expect(await said(link)).toBe(
      `cannot read journal ${link}: it is a symbolic link, which plantstore never follows there; give the path it points to`,
    );
    const dir = path.join(folder.dir, 'dir');
    mkdirSync(dir);
    expect(await said(dir)).toBe(`cannot read journal ${dir}: it is not a regular file (a directory); give the path of a --journal file`);
    const fifo = path.join(folder.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await said(fifo)).toBe(`cannot read journal ${fifo}: it is not a regular file (a FIFO); give the path of a --journal file`);
  });

  // Issue 40 item 10: a reader trusts a journal only as a run does, and refuses in the run's words.
  it('refuses a journal others may write, or (as root) one another user owns, as a run does', async () => {
    const file = journal('a.journal', [deleted('1')]);
    chmodSync(file, 0o666);
    expect((await refusal([file])).message).toBe(
      `cannot use ${file} as a journal: it is writable by others (mode 666), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${file}`,
    );
    chmodSync(file, 0o600);
    expect((await countsOf(file)).done).toBe(1);
    if (process.getuid?.() !== 0) return;
    chownSync(file, 65534, 65534);
    expect((await refusal([file])).message).toBe(
      `cannot use ${file} as a journal: it belongs to another user (uid 65534, you are 0), who may have planted it; give --journal another path`,
    );
  });

  it('refuses the journals of two operations rather than summing them, naming each', async () => {
    const a = journal('a.journal', [deleted('1')]);
    const b = journal(
      'b.journal',
      ['{"id":2,"state":"done","status":200}'],
      HEADER_V3.replace('"operation":"delete"', '"operation":"get"'),
    );
    const error = await refusal([a, b]);
    expect(error.message).toContain('are journals of different runs');
    expect(error.message).toMatch(/written by plantstore delete\).*written by plantstore get\)/);
  });

  it('reads the shards of one job written in two formats (a job begun before format 3) as one', async () => {
    const a = journal('a.journal', [sent('1'), deleted('1')]);
    const b = journal('b.journal', [sent('2'), deletedV3('2'), sent('3')], HEADER_V3);
    expect(await countsOf(a, b)).toEqual({ done: 2, absent: 0, failed: 0, inFlight: 1, notSent: 0 });
    expect((await summarizeJournals([a, b])).operation).toBe('delete');
  });

  it('refuses journals of different runs rather than summing them', async () => {
    const a = journal('a.journal', [deleted('1')]);
    const b = journal('b.journal', [deleted('2')], HEADER.replace('plants.example.com', 'staging.example.com'));
    const error = await refusal([a, b]);
    expect(error.message).toContain('are journals of different runs');
    expect(error.message).toContain('https://staging.example.com');
    const c = journal('c.journal', [deleted('3')], HEADER.replace('"profile":"default"', '"profile":"prod"'));
    expect((await refusal([a, c])).message).toContain('profile prod');
  });
});
