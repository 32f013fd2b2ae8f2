// No stall: with `--concurrency auto`, a request unanswered long after it should have answered
// is evidence (overdue.ts): its age is a latency sample, and it stops holding a place under the
// limit, at most the limit's worth at a time. Virtual time throughout: nothing here sleeps.
import { describe, expect, it } from 'vitest';
import type { Started } from '../../../../src/batch/throttle/controller.js';
import {
  OVERDUE_BASES,
  OVERDUE_BEFORE_BASE_MS,
  OVERDUE_FLOOR_MS,
  OverdueWatch,
  overdueAfterMs,
} from '../../../../src/batch/throttle/overdue.js';
import { Throttle } from '../../../../src/batch/throttle/throttle.js';
import type { Feedback } from '../../../../src/http/gate.js';
import { manualThrottle } from './manual-throttle.js';
import { type Server, simulateBatch } from './virtual-batch.js';

const ok: Feedback = { kind: 'ok' };
/** The default --timeout: how long a request that hangs holds its place without this rule. */
const TIMEOUT_MS = 30_000;

/** A server whose first `hanging` requests answer only after TIMEOUT_MS, the rest after `latencyMs`; when each request arrived and was answered. */
function firstWaveHangs(hanging: number, latencyMs: number) {
  const arrivals: number[] = [];
  const answers: number[] = [];
  const server: Server = async (clock) => {
    const index = arrivals.push(clock.now) - 1;
    await clock.sleep(index < hanging ? TIMEOUT_MS : latencyMs);
    if (index >= hanging) answers.push(clock.now);
    return { status: 204 };
  };
  return { server, arrivals, answers };
}

describe('a first wave that hangs', () => {
  it.each<[string, 'auto' | { auto: number } | number]>([
    ['the default (auto up to 64)', { auto: 64 }],
    ['auto:256', 'auto'],
    ['fixed 8 (the control: the old default went on past them)', 8],
  ])('%s: the others are sent and answered while the first 4 still hang', async (_name, ceiling) => {
    const { server, arrivals, answers } = firstWaveHangs(4, 10);
    const run = await simulateBatch({ ids: 2000, ceiling, server });
    expect(run.accepted).toBe(2000);
    // The fifth request went out long before the first four could answer, and every other id was
    // answered before them too.
    expect(arrivals[4]).toBeLessThanOrEqual(OVERDUE_BEFORE_BASE_MS);
    expect(answers).toHaveLength(1996);
    expect(Math.max(...answers)).toBeLessThan(TIMEOUT_MS);
  });

  it('auto: sends past them once they are overdue, not before, and never more than twice its limit in flight', async () => {
    const { server, arrivals } = firstWaveHangs(4, 10);
    const run = await simulateBatch({ ids: 200, ceiling: { auto: 64 }, server });
    expect(arrivals.slice(0, 5)).toEqual([0, 0, 0, 0, OVERDUE_BEFORE_BASE_MS]);
    expect(run.maxInFlight).toBeLessThanOrEqual(64 + 4);
  });
});

/** A throttle with auto (the default's ceiling: it starts at 4) on a clock the test moves by hand, its timers run by `advanceTo`. */
function manual(ceiling: { auto: number } = { auto: 64 }) {
  const manual = manualThrottle(ceiling);
  /** A round trip: as many as allowed start now, the clock (and its timers) moves `rttMs`, all answer. */
  const round = async (rttMs: number): Promise<number> => {
    const permits = await manual.fill();
    manual.advanceTo(manual.clock.now + rttMs);
    for (const permit of permits) permit.release(ok);
    return permits.length;
  };
  return { ...manual, round };
}

describe('a timeout is a sample', () => {
  it('requests that all hang past OVERDUE_BASES base latencies cut the limit as a queue does, with no answer at all', async () => {
    const { clock, fill, advanceTo, round, limits, throttle } = manual();
    for (let i = 0; i < 4; i += 1) await round(50);
    expect(throttle.stats().concurrencyLimit).toBe(32);
    const before = limits().length;
    // Everything in flight hangs: overdue, each is a sample of its age (4× the base), a queue
    // that has lasted since they were sent, and the limit is cut.
    const first = await fill();
    expect(first).toHaveLength(32);
    advanceTo(clock.now + OVERDUE_BASES * 50);
    const cut = limits()
      .slice(before)
      .find((change) => change.reason === 'queueing');
    expect(cut).toMatchObject({ from: 32, baseRttMs: 50 });
    const to = cut?.to as number;
    expect(to).toBeLessThan(32);
    // Only the new limit's worth of the hung ones is excused: never more than twice it in flight.
    const second = await fill();
    expect(first.length + second.length).toBeLessThanOrEqual(2 * to);
    advanceTo(clock.now + OVERDUE_BASES * 50);
    const third = await fill();
    expect(first.length + second.length + third.length).toBeLessThanOrEqual(2 * throttle.stats().concurrencyLimit);
    for (const permit of [...first, ...second, ...third]) permit.release(ok);
    expect((await fill()).length).toBe(throttle.stats().concurrencyLimit);
  });

  it('a request answered before it is overdue is no sample of overdue (the timer it armed does nothing)', async () => {
    const { clock, fill, advanceTo, round, limits } = manual();
    for (let i = 0; i < 4; i += 1) await round(50);
    const before = limits().length;
    const permits = await fill();
    advanceTo(clock.now + 50);
    for (const permit of permits) permit.release(ok);
    advanceTo(clock.now + 10 * OVERDUE_BASES * 50);
    expect(
      limits()
        .slice(before)
        .map((c) => c.reason),
    ).toEqual(['latency flat']);
  });

  it('a fixed --concurrency keeps its meaning: requests that hang hold their places', async () => {
    const clock = { now: 0 };
    const throttle = new Throttle({ ceiling: 8, now: () => clock.now, setTimer: () => () => {} });
    const signal = new AbortController().signal;
    for (let i = 0; i < 8; i += 1) await throttle.acquire('first', signal);
    clock.now = TIMEOUT_MS - 1;
    expect(throttle.hold(() => {})).toBe(true);
  });
});

describe('overdueAfterMs', () => {
  it.each<[number | undefined, number]>([
    [undefined, OVERDUE_BEFORE_BASE_MS],
    [0.3, OVERDUE_FLOOR_MS],
    [20, OVERDUE_FLOOR_MS],
    [50, OVERDUE_BASES * 50],
    [2000, OVERDUE_BASES * 2000],
  ])('base %s ms: %s ms', (base, expected) => {
    expect(overdueAfterMs(base)).toBe(expected);
  });
});

describe('OverdueWatch', () => {
  const start = (startedAt: number, sequence: number): Started => ({ startedAt, sequence, inFlightAtStart: 1, retry: false });

  it('marks the pending ones past the age, oldest first, skipping those answered; an answer says whether it was sampled', () => {
    const watch = new OverdueWatch();
    const [a, b, c, d] = [start(0, 1), start(10, 2), start(20, 3), start(30, 4)];
    for (const s of [a, b, c, d]) watch.started(s);
    expect(watch.nextAt(100)).toBe(100);
    expect(watch.answered(a)).toBe(false);
    expect(watch.nextAt(100)).toBe(110);
    const seen: Started[] = [];
    watch.sweep(125, 100, (s) => {
      seen.push(s);
      return s === b;
    });
    expect(seen).toEqual([b, c]);
    expect(watch.overdue).toBe(2);
    expect(watch.nextAt(100)).toBe(130);
    expect(watch.answered(b)).toBe(true);
    expect(watch.answered(c)).toBe(false);
    expect(watch.overdue).toBe(0);
    watch.answered(d);
    expect(watch.nextAt(100)).toBe(Number.POSITIVE_INFINITY);
  });
});
