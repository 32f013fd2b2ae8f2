// Issue 41 item 5: what `journal status --watch` shows. The block at a terminal (each shard, the
// totals, the rate, the time left, the job), cut to the width; the line per change elsewhere;
// the --json object; a shard that stopped says when and why; the time left is "unknown" without
// a rate or a total; the rate is that of the last ~10 s.
import { beforeAll, describe, expect, it } from 'vitest';
import type { FollowedFile, FollowedJob } from '../../../../src/batch/journal/follow.js';
import { fileRun, jobState } from '../../../../src/batch/journal/job-state.js';
import { DELETE_JOURNAL_WORDS } from '../../../../src/commands/delete/operation.js';
import {
  blockLines,
  changeKey,
  changeLine,
  DecidedRate,
  fileLine,
  timeLeft,
  watchObject,
} from '../../../../src/commands/journal/watch-words.js';
import { registerJournalWords } from '../../../../src/engine/journal-words.js';

// As the CLI's delete command registers them: the journals here are delete's.
beforeAll(() => registerJournalWords('delete', DELETE_JOURNAL_WORDS));

const counts = (done: number, failed = 0, inFlight = 0) => ({ done, absent: 0, failed, inFlight, notSent: 0 });

const running = (shard: string, ids: number, deleted: number): FollowedFile => ({
  file: `dead-plants-${shard[0]}.journal`,
  shard,
  started: '2026-03-01T12:00:00.000Z',
  running: true,
  run: fileRun({ kind: 'no-end', start: { started: '2026-03-01T12:00:01.000Z', ids } }, true),
  counts: counts(deleted, 0, 2),
});

const stopped = (shard: string, ids: number, ending: string, notSent: number, deleted: number): FollowedFile => ({
  file: `dead-plants-${shard[0]}.journal`,
  shard,
  started: '2026-03-01T12:00:00.000Z',
  running: false,
  run: fileRun(
    {
      kind: 'ended',
      start: { started: '2026-03-01T12:00:01.000Z', ids },
      end: { ending, ids, notSent, unrecorded: notSent, readAll: true },
    },
    false,
  ),
  counts: counts(deleted),
});

function job(files: FollowedFile[], ids: number | undefined): FollowedJob {
  const total = files.reduce(
    (sum, file) => ({
      done: sum.done + file.counts.done,
      absent: 0,
      failed: sum.failed + file.counts.failed,
      inFlight: sum.inFlight + file.counts.inFlight,
      notSent: 0,
    }),
    counts(0),
  );
  return {
    files,
    operation: 'delete',
    counts: total,
    job: jobState(
      files.map((file) => ({ shard: file.shard, empty: false, run: file.run })),
      0,
    ),
    ids,
  };
}

const FOUR = job(
  [
    running('0/4', 2500, 1200),
    running('1/4', 2500, 1100),
    stopped('2/4', 2500, 'max-duration', 120, 2380),
    stopped('3/4', 2500, 'finished', 0, 2500),
  ],
  10_000,
);

describe('journal status --watch: the block', () => {
  it('names each shard and what it is doing, then the totals, the rate, the time left and the job', () => {
    expect(blockLines({ state: FOUR, rate: 85 }, undefined)).toEqual([
      'shard 0/4  running, 1200 of 2500 decided',
      'shard 1/4  running, 1100 of 2500 decided',
      'shard 2/4  stopped: max-duration, 120 not sent',
      'shard 3/4  finished: its 2500 ids, each decided',
      'decided    7180 of 10000 (71%)',
      '           7180 deleted, 0 absent, 0 failed, 4 in flight, not sent unknown',
      'rate       85/s over the last 10 s',
      'left       0:33 (2820 ids to decide)',
      'job        unfinished: 2 of 4 journals being written',
    ]);
  });

  it('cuts every line to the terminal, one column spare, and says it is cut', () => {
    const lines = blockLines({ state: FOUR, rate: 85 }, 30);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(29);
    expect(lines[2]).toBe('shard 2/4  stopped: max-dura…');
  });

  it('says "unknown" for the time left without a rate, and without a total (a journal with no start line)', () => {
    expect(blockLines({ state: FOUR, rate: undefined }, undefined).slice(6, 8)).toEqual([
      'rate       unknown (measured from the second reading)',
      'left       unknown (2820 ids to decide; no rate yet)',
    ]);
    const noTotal = { ...FOUR, ids: undefined };
    expect(timeLeft({ state: noTotal, rate: 85 })).toEqual({ ids: undefined, seconds: undefined });
    expect(blockLines({ state: noTotal, rate: 85 }, undefined)).toContain("left       unknown (the job's total is not known)");
    // A rate of 0 (nothing decided for 10 s): no time can be given.
    expect(timeLeft({ state: FOUR, rate: 0 })).toEqual({ ids: 2820, seconds: undefined });
  });

  it('says the job is finished when every shard went through every id', () => {
    const done = job([stopped('0/2', 10, 'finished', 0, 10), stopped('1/2', 12, 'finished', 0, 12)], 22);
    expect(done.job.finished).toBe(true);
    expect(blockLines({ state: done, rate: undefined }, undefined).at(-1)).toBe('job        finished: every shard went through every id');
  });
});

describe('journal status --watch: outside a terminal', () => {
  it('a shard that stopped is one line: when it stopped and why', () => {
    expect(fileLine(FOUR.files[2] as FollowedFile)).toBe('shard 2/4 stopped: max-duration, 120 not sent');
  });

  it('the totals are one line, with the rate and the time left', () => {
    expect(changeLine({ state: FOUR, rate: 85 })).toBe(
      'decided 7180 of 10000 (71%): 7180 deleted, 0 absent, 0 failed, 4 in flight, not sent unknown; 85/s, 0:33 left',
    );
    expect(changeLine({ state: FOUR, rate: undefined })).toMatch(/; rate unknown, time left unknown$/);
  });

  it('a change is in the counts or in what a shard is doing, never in the rate alone', () => {
    const again = job(FOUR.files, 10_000);
    expect(changeKey(again)).toBe(changeKey(FOUR));
    const more = job([running('0/4', 2500, 1201), ...FOUR.files.slice(1)], 10_000);
    expect(changeKey(more)).not.toBe(changeKey(FOUR));
  });

  it('--json: one object, null for what is not known', () => {
    expect(watchObject({ state: FOUR, rate: 85.04 })).toEqual({
      files: [
        { path: 'dead-plants-0.journal', shard: '0/4', state: 'running', ended: null, ids: 2500, decided: 1200, notSent: null },
        { path: 'dead-plants-1.journal', shard: '1/4', state: 'running', ended: null, ids: 2500, decided: 1100, notSent: null },
        { path: 'dead-plants-2.journal', shard: '2/4', state: 'stopped', ended: 'max-duration', ids: 2500, decided: 2380, notSent: 120 },
        { path: 'dead-plants-3.journal', shard: '3/4', state: 'finished', ended: 'finished', ids: 2500, decided: 2500, notSent: 0 },
      ],
      missingShards: [],
      finished: false,
      ids: 10_000,
      decided: 7180,
      deleted: 7180,
      absent: 0,
      failed: 0,
      inFlight: 4,
      notSent: null,
      rate: 85,
      left: 2820,
      secondsLeft: 33,
    });
  });
});

describe('journal status --watch: the rate', () => {
  it('is that of the last 10 s, and unknown before two readings', () => {
    const rate = new DecidedRate();
    rate.add(0, 0);
    expect(rate.perSecond()).toBeUndefined();
    for (let second = 1; second <= 20; second++) rate.add(second * 1000, second <= 10 ? second * 100 : 1000 + (second - 10) * 10);
    // Over seconds 10-20 only: 10 a second, not the 50 of the whole.
    expect(rate.perSecond()).toBeCloseTo(10, 5);
  });
});
