// The engine says what an operation declares (issue 42 item 1): its states, and its word for each,
// in the summary line, the JSON summary, the stop lines and the folded not-sent lines; no other.
import { describe, expect, it } from 'vitest';
import { closeRun, type RunClosing, summaryObject } from '../../../src/engine/closing.js';
import { createReporter } from '../../../src/engine/report.js';
import { RunStop } from '../../../src/engine/run-end.js';
import { summaryLine } from '../../../src/engine/summary.js';
import { Tally } from '../../../src/engine/tally.js';
import { Exit } from '../../../src/errors.js';
import { createTestIO } from '../../../src/ui/io.js';
import { READ_RESULTS, type ReadResult } from '../../helpers/read-operation.js';
import { CALM } from './calm-stats.js';

// The read of the test suite (helpers/read-operation.ts): the same operation read-batch.test.ts runs through the engine.
type Read = ReadResult;
const notSent = (id: string): Read => READ_RESULTS.notSent(id, 'not asked: stopped', Exit.server);

function tallyOf(results: Read[]): Tally<Read> {
  const tally = new Tally(READ_RESULTS);
  for (const result of results) tally.add(result);
  return tally;
}

const RUN: Read[] = [
  { id: '1', kind: 'read', status: 200 },
  { id: '2', kind: 'not-found', status: 404 },
  { id: '3', kind: 'failed', status: 500, message: 'the server failed', exit: Exit.server },
  notSent('4'),
];

function closing(tally: Tally<Read>, over: Partial<RunClosing<Read>> = {}): RunClosing<Read> {
  return {
    tally,
    size: 4,
    elapsedMs: 400,
    stats: CALM,
    ceiling: 64,
    words: { verb: 'read', command: 'get', doing: 'reading', finishWithoutJournal: () => 'run it again' },
    journal: false,
    profile: 'default',
    shard: undefined,
    maxDuration: undefined,
    stop: new RunStop(),
    signal: new AbortController().signal,
    quiet: false,
    afterSummary: undefined,
    json: true,
    ...over,
  };
}

describe("a read's summary in its own words", () => {
  it('the summary line: its words for each state, no "deleted", no "already absent", no "in flight"', () => {
    const line = summaryLine(tallyOf(RUN), 400, CALM, true);
    expect(line).toBe('1 read, 0 read before (journal), 1 not found, 1 failed, 1 not asked in 0.4s');
    expect(line).not.toMatch(/deleted|absent|in flight/);
  });

  it('the JSON summary: its keys, and none it does not declare', () => {
    const { summary } = summaryObject(closing(tallyOf(RUN)));
    expect(Object.keys(summary)).toEqual([
      'read',
      'notFound',
      'failed',
      'notAsked',
      'readBefore',
      'otherShards',
      'shard',
      'ended',
      'seconds',
    ]);
    expect(summary).toMatchObject({ read: 1, notFound: 1, failed: 1, notAsked: 1, readBefore: 0 });
  });

  it('an operation that declares no "absent" has none in its line or its JSON', () => {
    const { absent: _, ...states } = READ_RESULTS.states;
    const tally = new Tally({ ...READ_RESULTS, states });
    tally.add({ id: '1', kind: 'read', status: 200 });
    expect(summaryLine(tally, 400, CALM)).toBe('1 read, 0 failed, 0 not asked in 0.4s');
    expect(Object.keys(summaryObject(closing(tally)).summary)).not.toContain('notFound');
  });

  it('the interrupt and --max-duration lines, and the folded not-sent ids, say its words', () => {
    const io = createTestIO();
    closeRun(closing(tallyOf(RUN), { signal: AbortSignal.abort('SIGINT'), json: false }), io);
    const atTime = new RunStop();
    atTime.set({ message: 'stopped at --max-duration 1s', exit: Exit.stoppedAtTime }, 'max-duration');
    closeRun(closing(tallyOf(RUN), { stop: atTime, maxDuration: '1s', json: false }), io);
    expect(io.stderr()).toContain('interrupted: 1 of 4 read before the interrupt');
    expect(io.stderr()).toContain('stopped at --max-duration 1s: 1 of 4 read, 1 failed, 1 not asked: run it again');
    const reporter = createReporter(io, { json: false, quiet: false }, READ_RESULTS);
    for (let id = 0; id < 12; id++) reporter.result(notSent(String(id)));
    reporter.finish();
    expect(io.stderr()).toContain('… and 2 more plants not asked');
    expect(io.stderr()).not.toMatch(/deleted|absent/);
  });
});
