// Issue 41 item 5: the incremental reader behind `journal status --watch`. Each refresh reads only
// the bytes a journal gained (a line still being written is read whole, later), keeps the counts
// `journal status` gives (summed over shards, each id once, by the file that says the most of
// it), and keeps the trust a run has: a bad line with a good one after it, or a file made
// writable by others, is refused whenever it happens; a journal replaced under it is read anew.
import { appendFileSync, chmodSync, closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRefusedError } from '../../../../src/batch/journal/errors.js';
import { JobFollower } from '../../../../src/batch/journal/follow.js';
import { summarizeJournals } from '../../../../src/batch/journal/summary.js';
import { absent, deleted, HEADER, journalFolder, notSent, sent } from './fixtures.js';

const folder = journalFolder();

const refused = (id: string): string =>
  `{"id":${id},"state":"failed","status":400,"error":1,"message":"plant ${id} does not exist","exit":1}`;
const uncertain = (id: string): string => `{"id":${id},"state":"in-flight","status":null,"error":null,"message":"timed out","exit":8}`;
const start = (ids: number): string => `{"start":"2026-03-01T12:00:01.000Z","ids":${ids}}`;
const end = (ending: string, ids: number, notSentIds: number): string =>
  `{"end":"${ending}","ids":${ids},"notSent":${notSentIds},"unrecorded":${notSentIds},"readAll":true}`;

function journal(name: string, lines: readonly string[], header = HEADER): string {
  const file = path.join(folder.dir, name);
  writeFileSync(file, `${[header, ...lines].join('\n')}\n`, { mode: 0o600 });
  return file;
}
const append = (file: string, ...lines: string[]): void => appendFileSync(file, `${lines.join('\n')}\n`);
const shardHeader = (shard: string): string => HEADER.replace('"started"', `"shard":"${shard}","started"`);

async function follow(...files: string[]): Promise<JobFollower> {
  const follower = await JobFollower.open(files);
  return follower;
}

describe('journal status --watch: reading on as a journal grows', () => {
  it('counts what was appended since the last refresh, and only that: bytes already read are not read again', async () => {
    const file = journal('a.journal', [start(4), sent('1'), deleted('1'), sent('2')]);
    const follower = await follow(file);
    expect((await follower.refresh()).counts).toEqual({ done: 1, absent: 0, failed: 0, inFlight: 1, notSent: 0 });

    // The first id line rewritten in place, same length (a test's trick, never a run's): a
    // follower that read the whole file again would count id 7 deleted and id 1 in flight.
    const fd = openSync(file, 'r+');
    const at = HEADER.length + 1 + start(4).length + 1 + sent('1').length + 1;
    writeSync(fd, deleted('7'), at);
    closeSync(fd);
    append(file, refused('2'), sent('3'), absent('3'));
    const state = await follower.refresh();
    expect(state.counts).toEqual({ done: 1, absent: 1, failed: 1, inFlight: 0, notSent: 0 });
    expect(state.ids).toBe(4);
    follower.close();
  });

  it('leaves out a line still being written, and counts it once its newline is there', async () => {
    const file = journal('a.journal', [start(2), sent('1')]);
    const follower = await follow(file);
    appendFileSync(file, '{"id":1,"state":"do');
    const partial = await follower.refresh();
    expect(partial.counts).toEqual({ done: 0, absent: 0, failed: 0, inFlight: 1, notSent: 0 });
    appendFileSync(file, `ne","status":204}\n${sent('2')}\n`);
    expect((await follower.refresh()).counts).toEqual({ done: 1, absent: 0, failed: 0, inFlight: 1, notSent: 0 });
    follower.close();
  });

  it('waits for the header of a journal a run has just created (empty, or its first line half written)', async () => {
    const file = path.join(folder.dir, 'new.journal');
    writeFileSync(file, '', { mode: 0o600 });
    const follower = await follow(file);
    expect((await follower.refresh()).files[0]?.started).toBeUndefined();
    appendFileSync(file, HEADER.slice(0, 30));
    expect((await follower.refresh()).files[0]?.started).toBeUndefined();
    appendFileSync(file, `${HEADER.slice(30)}\n${start(1)}\n${sent('5')}\n${deleted('5')}\n`);
    const state = await follower.refresh();
    expect(state.files[0]?.started).toBe('2026-03-01T12:00:00.000Z');
    expect(state.counts.done).toBe(1);
    follower.close();
  });

  it('sums shards as journal status does, each id once by the file that says the most of it, refresh after refresh', async () => {
    const a = journal('0.journal', [start(3), sent('1'), refused('1'), sent('2')], shardHeader('0/2'));
    const b = journal('1.journal', [start(3), sent('3'), uncertain('3')], shardHeader('1/2'));
    const follower = await follow(a, b);
    const steps: Array<[string, string[]]> = [
      [b, [sent('1'), deleted('1')]], // id 1 in both: deleted wins over failed
      [a, [sent('1'), uncertain('1')]], // still deleted in b
      [b, [sent('2'), notSent('2')]], // a says in flight: wins over not sent
      [a, [refused('2'), sent('4'), absent('4')]],
      [b, [sent('3'), absent('3'), end('finished', 3, 0)]],
      [a, [end('max-duration', 3, 0)]],
    ];
    for (const [file, lines] of steps) {
      append(file, ...lines);
      const state = await follower.refresh();
      const whole = await summarizeJournals([a, b]);
      expect(state.counts).toEqual(whole.counts);
      expect(state.job).toEqual(whole.job);
    }
    const last = await follower.refresh();
    expect(last.ids).toBe(6);
    expect(last.files.map((file) => [file.shard, file.run.ended])).toEqual([
      ['0/2', 'max-duration'],
      ['1/2', 'finished'],
    ]);
    follower.close();
  });

  it('refuses, as a run would, a bad line once a good line follows it, whenever that line comes', async () => {
    const file = journal('a.journal', [start(2), sent('1')]);
    const follower = await follow(file);
    appendFileSync(file, 'not a journal line\n');
    // Alone at the end, it may be a torn tail: left out, not refused.
    expect((await follower.refresh()).counts.inFlight).toBe(1);
    append(file, deleted('1'));
    const error = await follower.refresh().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(JournalRefusedError);
    expect((error as JournalRefusedError).message).toMatch(/is damaged: line 4 is not a journal line, and good lines follow it/);
    follower.close();
  });

  it('refuses a journal made writable by others while it is watched', async () => {
    const file = journal('a.journal', [start(1), sent('1')]);
    const follower = await follow(file);
    chmodSync(file, 0o666);
    await expect(follower.refresh()).rejects.toThrow(/writable by others \(mode 666\)/);
    follower.close();
  });

  it('refuses a journal in a folder others can write, in the words journal status uses', async () => {
    const file = journal('a.journal', [start(1), sent('1')]);
    chmodSync(folder.dir, 0o777);
    const watched = await JobFollower.open([file]).catch((thrown: unknown) => thrown);
    const read = await summarizeJournals([file]).catch((thrown: unknown) => thrown);
    chmodSync(folder.dir, 0o700);
    expect(watched).toBeInstanceOf(JournalRefusedError);
    expect((watched as Error).message).toBe((read as Error).message);
    expect((watched as Error).message).toMatch(/writable by others/);
  });

  it('reads a journal replaced at its path (a new job started there) from its start', async () => {
    const file = journal('a.journal', [start(3), sent('1'), deleted('1'), sent('2'), deleted('2')]);
    const follower = await follow(file);
    expect((await follower.refresh()).counts.done).toBe(2);
    const next = journal('b.journal', [start(1), sent('9'), absent('9')]);
    renameSync(next, file);
    const state = await follower.refresh();
    expect(state.counts).toEqual({ done: 0, absent: 1, failed: 0, inFlight: 0, notSent: 0 });
    expect(state.ids).toBe(1);
    follower.close();
  });
});
