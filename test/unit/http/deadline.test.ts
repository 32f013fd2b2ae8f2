import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { attemptDeadline, type Cutoff, LATE_MS, TIMED_OUT } from '../../../src/http/deadline.js';
import { deadlineTimer } from '../../../src/platform/deadline-timer.js';

// Fake timers stand in for the clock: nothing waits.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A deadline whose cuts are recorded, with the reason each came with. */
function watched(timeoutMs: number, interrupt: AbortSignal): { cuts: Cutoff[]; reasons: unknown[]; end(): void } {
  const cuts: Cutoff[] = [];
  const reasons: unknown[] = [];
  const deadline = attemptDeadline(timeoutMs, interrupt, {
    cut: (why, reason) => {
      cuts.push(why);
      reasons.push(reason);
    },
  });
  return { cuts, reasons, end: () => deadline.end() };
}

it('cuts an attempt when it has run exactly the timeout, not a moment before', () => {
  const deadline = watched(1000, new AbortController().signal);
  vi.advanceTimersByTime(999);
  expect(deadline.cuts).toEqual([]);
  vi.advanceTimersByTime(1);
  expect([deadline.cuts, deadline.reasons]).toEqual([['timeout'], [TIMED_OUT]]);
  deadline.end();
});

it('gives each attempt its full time, whenever it starts', () => {
  const first = watched(1000, new AbortController().signal);
  vi.advanceTimersByTime(400);
  const second = watched(1000, new AbortController().signal);
  vi.advanceTimersByTime(600);
  expect([first.cuts, second.cuts]).toEqual([['timeout'], []]);
  vi.advanceTimersByTime(400);
  expect(second.cuts).toEqual(['timeout']);
});

it('cuts at once on interrupt, every attempt watching it, each once; and at birth after one', () => {
  const interrupt = new AbortController();
  const attempts = [watched(30_000, interrupt.signal), watched(30_000, interrupt.signal), watched(30_000, interrupt.signal)];
  interrupt.abort('SIGINT');
  expect(attempts.map((attempt) => attempt.cuts)).toEqual([['interrupted'], ['interrupted'], ['interrupted']]);
  expect(attempts.map((attempt) => attempt.reasons)).toEqual([['SIGINT'], ['SIGINT'], ['SIGINT']]);
  vi.advanceTimersByTime(60_000);
  expect(attempts.map((attempt) => attempt.cuts)).toEqual([['interrupted'], ['interrupted'], ['interrupted']]);
  expect(watched(30_000, interrupt.signal).cuts).toEqual(['interrupted']);
  expect(vi.getTimerCount()).toBe(0);
});

it('once the attempt ends, neither its timer nor an interrupt reaches it; the others still are', () => {
  const interrupt = new AbortController();
  const ended = watched(1000, interrupt.signal);
  const running = watched(30_000, interrupt.signal);
  ended.end();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(10_000);
  interrupt.abort('SIGINT');
  expect([ended.cuts, running.cuts]).toEqual([[], ['interrupted']]);
});

describe('a deadline whose timer fires late (the process was stopped, the machine slept)', () => {
  // The clock is a number the test moves; timers and immediates are fake: the test says when each runs.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
  });

  function lateWatched(timeoutMs: number, interrupt: AbortSignal) {
    const clock = { now: 50_000 };
    const cuts: Cutoff[] = [];
    const deadline = attemptDeadline(timeoutMs, interrupt, { cut: (why) => cuts.push(why) }, () => clock.now);
    return { clock, cuts, deadline };
  }

  it('on time, or late by no more than LATE_MS, it cuts at once', () => {
    for (const lateBy of [0, LATE_MS]) {
      const { clock, cuts } = lateWatched(2000, new AbortController().signal);
      clock.now += 2000 + lateBy;
      vi.advanceTimersByTime(2000);
      expect(cuts).toEqual(['timeout']);
    }
  });

  it('late by more, it waits one turn of the event loop: an answer read in that turn ends the attempt, uncut', () => {
    const { clock, cuts, deadline } = lateWatched(2000, new AbortController().signal);
    // Stopped for 3 s: the timer runs 1 s after its time, before the sockets are read.
    clock.now += 3000;
    vi.advanceTimersByTime(2000);
    expect(cuts).toEqual([]);
    // The answer that came while it was stopped is read, and the attempt ends.
    deadline.end();
    vi.runAllTimers();
    expect(cuts).toEqual([]);
  });

  it('late by more, with no answer in that turn, it cuts then', () => {
    const { clock, cuts } = lateWatched(2000, new AbortController().signal);
    clock.now += 3000;
    vi.advanceTimersByTime(2000);
    expect(cuts).toEqual([]);
    vi.runAllTimers();
    expect(cuts).toEqual(['timeout']);
  });

  it('Ctrl-C in that turn cuts it as interrupted, once', () => {
    const interrupt = new AbortController();
    const { clock, cuts } = lateWatched(2000, interrupt.signal);
    clock.now += 3000;
    vi.advanceTimersByTime(2000);
    interrupt.abort('SIGINT');
    vi.runAllTimers();
    expect(cuts).toEqual(['interrupted']);
  });
});

describe('deadlineTimer, the deadline of a token command: the same rule', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
  });

  it('on time, it is due at once; late by more than LATE_MS, one turn later, unless cleared in that turn', () => {
    const clock = { now: 50_000 };
    let due = 0;
    deadlineTimer(
      2000,
      () => due++,
      () => clock.now,
    );
    clock.now += 2000 + LATE_MS;
    vi.advanceTimersByTime(2000);
    expect(due).toBe(1);

    const late = deadlineTimer(
      2000,
      () => due++,
      () => clock.now,
    );
    clock.now += 3000;
    vi.advanceTimersByTime(2000);
    expect(due).toBe(1);
    // The command's exit, read in that turn, ends the wait.
    late.clear();
    vi.runAllTimers();
    expect(due).toBe(1);

    deadlineTimer(
      2000,
      () => due++,
      () => clock.now,
    );
    clock.now += 3000;
    vi.advanceTimersByTime(2000);
    vi.runAllTimers();
    expect(due).toBe(2);
  });
});
