import { describe, expect, it } from 'vitest';
import { LatencyLimit, type LimitChange } from '../../../src/batch/adaptive/latency-limit.js';
import {
  BASE_PROBE_LIMIT,
  MAX_AUTO_CONCURRENCY,
  QUEUE_PERSISTS_BASES,
  QUEUE_PERSISTS_MS,
  RISE_MIN_ANSWERS,
  ROUND_MIN_SAMPLES,
} from '../../../src/batch/adaptive/latency-tuning.js';
import { CONCURRENCY_DECREASE } from '../../../src/batch/throttle/concurrency-limit.js';
import { recorded, type ServerModel, SimClock, type SimResult, simulate } from '../../helpers/capacity-sim.js';

// The steady-state band this limiter promises against a server that serves K at once and queues
// the rest: once it has found the server, every limit it settles on (base latency measurements
// aside) is within [STEADY_LOW × K, STEADY_HIGH × K], rounded outward to whole requests. It holds between 1.25 K and 1.5 K; a cut
// for queueing lands near K, and a base latency measured low by jitter takes a cut below it
// (by one or two requests at K = 6).
const STEADY_LOW = 0.65;
const STEADY_HIGH = 1.65;

const MEASURING = new Set<LimitChange['reason']>(['measuring base latency', 'base latency measured']);

function run(server: ServerModel, durationMs: number, seed = 1): SimResult & { limiter: LatencyLimit } {
  const { limiter, clock, changes } = recorded((options) => new LatencyLimit(options));
  const result = simulate(limiter, clock, changes, { server, durationMs, seed, maxInFlightAfterMs: 1000 });
  expectOnePerChange(result.changes, limiter.limit);
  return { ...result, limiter };
}

/** Each event is a real change, and they chain: the next starts where the last ended. */
function expectOnePerChange(changes: LimitChange[], finalLimit: number): void {
  let limit = BASE_PROBE_LIMIT;
  for (const change of changes) {
    expect(change.from).toBe(limit);
    expect(change.to).not.toBe(change.from);
    limit = change.to;
  }
  expect(finalLimit).toBe(limit);
}

/** Limits settled on after `fromMs`, base latency measurements aside. */
function settledLimits(result: SimResult, fromMs: number): number[] {
  return result.changes.filter((change) => change.at >= fromMs && !MEASURING.has(change.reason)).map((change) => change.to);
}

function perSecondBetween(result: SimResult, fromS: number, toS: number): number {
  const seconds = result.perSecond.slice(fromS, toS);
  return seconds.reduce((sum, count) => sum + count, 0) / seconds.length;
}

/** A limiter past its first base latency measurement (`rttMs`), at `limit` by slow start. */
function scripted(rttMs: number, limit: number): { limiter: LatencyLimit; changes: LimitChange[]; at: { now: number } } {
  const changes: LimitChange[] = [];
  const at = { now: 0 };
  const limiter = new LatencyLimit({ now: () => at.now, onChange: (change) => changes.push(change) });
  while (limiter.limit < limit) feed(limiter, at, rttMs, limiter.limit);
  expect(limiter.limit).toBe(limit);
  return { limiter, changes, at };
}

/** One round of answers, all `rttMs` long, started after the last change. */
function feed(
  limiter: LatencyLimit,
  at: { now: number },
  rttMs: number,
  inFlight: number,
  count = Math.max(ROUND_MIN_SAMPLES, limiter.limit),
): void {
  at.now += rttMs;
  for (let i = 0; i < count; i += 1) limiter.onSample({ rttMs, inFlightAtStart: inFlight, now: at.now });
}

/** Rounds between flat and queueing (1.4x the base of 50 ms) for QUEUE_PERSISTS_MS: slow start is over, the limit held. */
function endSlowStart(limiter: LatencyLimit, at: { now: number }, inFlight: number): void {
  const limit = limiter.limit;
  for (let held = 0; held < QUEUE_PERSISTS_MS; held += 70) feed(limiter, at, 70, inFlight);
  expect(limiter.limit).toBe(limit);
}

describe('LatencyLimit, scripted answers', () => {
  it('measures the base latency at the start, then doubles while latency is flat', () => {
    const { limiter, changes } = scripted(50, 32);
    expect(limiter.baseRttMs).toBe(50);
    expect(changes.map(({ from, to, reason }) => `${from} → ${to}: ${reason}`)).toEqual([
      '4 → 8: latency flat',
      '8 → 16: latency flat',
      '16 → 32: latency flat',
    ]);
  });

  it('cuts to what the server gets through without a queue when latency doubles', () => {
    const { limiter, changes, at } = scripted(50, 32);
    // 32 in flight, each answer twice the base: the server serves 16 at once (Little's law).
    // One such round could be a pause of the client's own; a cut waits for the second in a row.
    feed(limiter, at, 100, 32);
    expect(limiter.limit).toBe(32);
    feed(limiter, at, 100, 32);
    expect(changes.at(-1)).toEqual({ from: 32, to: 16, reason: 'queueing', baseRttMs: 50 });
  });

  it('never cuts below half the limit in one round, however slow the round', () => {
    const { limiter, changes, at } = scripted(50, 32);
    feed(limiter, at, 1000, 32);
    feed(limiter, at, 1000, 32);
    expect(changes.at(-1)).toMatchObject({ from: 32, to: 16, reason: 'queueing' });
  });

  it('one round at 1.6x the base does not cut (a pause of our own); a second in a row does', () => {
    const { limiter, changes, at } = scripted(50, 32);
    feed(limiter, at, 80, 32);
    expect(limiter.limit).toBe(32);
    // A flat round between: the slow one is forgotten (and slow start goes on).
    feed(limiter, at, 50, 32);
    feed(limiter, at, 80, 64);
    expect(changes.filter((change) => change.reason === 'queueing')).toEqual([]);
    feed(limiter, at, 80, 64);
    expect(changes.at(-1)).toMatchObject({ from: 64, reason: 'queueing' });
  });

  it('latency at 1.6x the base does not cut while twice the load carries 1.5x as much; the same latency carrying no more does', () => {
    const { limiter, changes, at } = scripted(20, 128);
    feed(limiter, at, 24, 128);
    expect(limiter.limit).toBe(MAX_AUTO_CONCURRENCY);
    // 128 in flight at 24 ms: 5.3 answers a ms; 256 at 32 ms: 8, where a queue would carry 5.3.
    for (let round = 0; round < 3; round += 1) feed(limiter, at, 32, 256);
    expect(changes.filter((change) => change.reason === 'queueing')).toEqual([]);
    expect(limiter.limit).toBe(MAX_AUTO_CONCURRENCY);
    // Rounds of 48 ms: a cut once they have lasted QUEUE_PERSISTS_MS, at the fourth.
    for (let round = 0; round < 3; round += 1) feed(limiter, at, 48, 256);
    expect(limiter.limit).toBe(MAX_AUTO_CONCURRENCY);
    feed(limiter, at, 48, 256);
    expect(changes.at(-1)).toMatchObject({ from: 256, reason: 'queueing' });
  });

  it('a round that kept the same limit fuller than the last does not read as a rise: the queue is cut', () => {
    const { limiter, changes, at } = scripted(50, 64);
    endSlowStart(limiter, at, 64);
    // 86 ms answers with 48, then 58.4, of the 64 in flight. By Little's law the second carried
    // 22% more, but only because it filled the same limit better.
    feed(limiter, at, 86, 48);
    feed(limiter, at, 86, 58.4);
    const cut = changes.at(-1);
    expect(cut).toMatchObject({ from: 64, reason: 'queueing' });
    // Little's law on the fuller round: 58.4 × 50 / 86 = 33 in flight, no queue (or the deepest cut, half).
    expect(cut?.to).toBeLessThanOrEqual(33);
    expect(cut?.to).toBeGreaterThanOrEqual(32);
  });

  it.each([
    { from: 8, poor: 6.5, grows: false },
    { from: 32, poor: 26, grows: true },
  ])('a rise read from a round of 2 × $from answers counts: $grows (RISE_MIN_ANSWERS)', ({ from, poor, grows }) => {
    expect(2 * from >= RISE_MIN_ANSWERS).toBe(grows);
    const { limiter, at } = scripted(50, from);
    // A poor round (a draining queue, not all out yet), then a flat one doubles...
    feed(limiter, at, 70, poor);
    feed(limiter, at, 50, from);
    expect(limiter.limit).toBe(2 * from);
    // ...and 1.6x the base at twice the load reads as twice what the poor round carried: it grows
    // (by a step: a doubling, were latency to go on rising so, would land past 2x the base).
    feed(limiter, at, 80, 2 * from);
    if (grows) expect(limiter.limit).toBeGreaterThan(2 * from);
    else expect(limiter.limit).toBe(2 * from);
  });

  it('latency less than 2 ms above a sub-millisecond base is flat whatever the ratio (loopback): it grows, never cut', () => {
    // 0.3 ms at 4 in flight, then rounds 5x as slow: a turn of the client's own event loop, not a queue.
    const { limiter, changes, at } = scripted(0.3, 16);
    for (let round = 0; round < 6; round += 1) feed(limiter, at, 2.1, limiter.limit);
    expect(changes.filter((change) => change.reason === 'queueing')).toEqual([]);
    expect(limiter.limit).toBeGreaterThan(16);
  });

  it('a queue of 2 ms or more over a sub-millisecond base is still one: cut once it has lasted QUEUE_PERSISTS_BASES base latencies (4 ms), not 150 ms', () => {
    const { limiter, changes, at } = scripted(0.5, 32);
    expect(QUEUE_PERSISTS_BASES * 0.5).toBeLessThan(QUEUE_PERSISTS_MS);
    feed(limiter, at, 2.5, 32);
    expect(limiter.limit).toBe(32);
    feed(limiter, at, 2.5, 32);
    expect(changes.at(-1)).toMatchObject({ from: 32, to: 16, reason: 'queueing' });
  });

  it('grows by longer steps while each step carries more (up to a fifth of the limit), by the square root once one carries no more', () => {
    const { limiter, changes, at } = scripted(50, 64);
    endSlowStart(limiter, at, 64);
    // Then room for all: each round at the limit carries more.
    for (let round = 0; round < 5; round += 1) feed(limiter, at, 50, limiter.limit);
    expect(changes.slice(-5).map((change) => change.to)).toEqual([72, 86, 103, 123, 147]);
    // A server with 147 slots: past them latency grows with the load, and throughput does not.
    // 147 still carried more than 123 (a step of a fifth), 176 carries no more (the square root),
    // and at 189 latency is out of the flat band: it holds.
    for (let round = 0; round < 4; round += 1) {
      const load = limiter.limit;
      feed(limiter, at, (50 * Math.max(load, 147)) / 147, load);
    }
    expect(changes.slice(-2).map((change) => change.to)).toEqual([176, 189]);
    expect(limiter.limit).toBe(189);
  });

  it('holds between flat and queueing', () => {
    const { limiter, changes, at } = scripted(50, 32);
    const before = changes.length;
    for (let round = 0; round < 10; round += 1) feed(limiter, at, 70, 32);
    expect(changes.length).toBe(before);
    expect(limiter.limit).toBe(32);
  });

  it('does not grow while the requests in flight stay well under the limit', () => {
    const { limiter, at } = scripted(50, 16);
    for (let round = 0; round < 10; round += 1) feed(limiter, at, 50, 5, 16);
    expect(limiter.limit).toBe(16);
  });

  it.each([
    { rounds: 1, inFlight: 32, to: 64, why: 'one slow round is not enough' },
    { rounds: 3, inFlight: 32, to: 37, why: 'three, 210 ms in all, end slow start: a step' },
    { rounds: 3, inFlight: 20, to: 64, why: 'rounds that never filled the limit say nothing of it' },
  ])(
    'latency 1.4x the base for $rounds round(s) of 70 ms with $inFlight of 32 in flight, then a flat round: to $to ($why)',
    ({ rounds, inFlight, to }) => {
      const { limiter, changes, at } = scripted(50, 32);
      for (let round = 0; round < rounds; round += 1) feed(limiter, at, 70, inFlight);
      expect(limiter.limit).toBe(32);
      feed(limiter, at, 50, 32);
      expect(changes.at(-1)).toMatchObject({ from: 32, to, reason: 'latency flat' });
    },
  );

  it('ignores answers to requests sent before the last change', () => {
    const { limiter, at } = scripted(50, 16);
    // Sent 60 ms ago, before the limit became 16 (50 ms ago): they saw the old limit.
    at.now += 10;
    for (let i = 0; i < 16; i += 1) limiter.onSample({ rttMs: 60, inFlightAtStart: 16, now: at.now });
    expect(limiter.limit).toBe(16);
    feed(limiter, at, 50, 16);
    expect(limiter.limit).toBe(32);
  });

  it('a 503 cuts the one limit from the count in flight, and the refusals of the same load do not cut again', () => {
    const { limiter, changes } = scripted(50, 64);
    limiter.onOverloaded(40);
    expect(limiter.limit).toBe(Math.floor(CONCURRENCY_DECREASE * 40));
    expect(changes.at(-1)).toMatchObject({ from: 64, to: 32, reason: 'overloaded (503)' });
    // Sent with 38 in flight, before the cut to 32: the cut answered it already.
    limiter.onOverloaded(38);
    expect(limiter.limit).toBe(32);
    limiter.onOverloaded(30);
    expect(limiter.limit).toBe(24);
  });

  it('after a 503, grows by steps (no more doubling) back to just below where the server refused, one at a time to it, and on once it took that', () => {
    const { limiter, changes, at } = scripted(50, 64);
    limiter.onOverloaded(40);
    for (let round = 0; round < 6; round += 1) feed(limiter, at, 50, limiter.limit);
    // Once the server took 40: small steps again, longer while each carries more.
    expect(changes.slice(-6).map((change) => change.to)).toEqual([37, 39, 40, 46, 55, 65]);
  });

  it('measures the base latency again every 30 s, at low concurrency, and goes back to its limit', () => {
    const { limiter, changes, at } = scripted(50, 32);
    // Measured by the first round, whose answers arrived at 50 ms. The server got slower since,
    // within the hold band: nothing to cut, but the base is old news 30 s after it was measured.
    at.now = 29_000;
    feed(limiter, at, 70, 32);
    expect(limiter.limit).toBe(32);
    at.now = 30_050 - 70;
    feed(limiter, at, 70, 32);
    expect(changes.at(-1)).toMatchObject({ from: 32, to: BASE_PROBE_LIMIT, reason: 'measuring base latency' });
    // Answers to requests sent with more in flight do not measure the base.
    feed(limiter, at, 70, 32, 32);
    expect(limiter.limit).toBe(BASE_PROBE_LIMIT);
    feed(limiter, at, 70, BASE_PROBE_LIMIT, ROUND_MIN_SAMPLES);
    expect(limiter.baseRttMs).toBe(70);
    expect(changes.at(-1)).toMatchObject({ from: BASE_PROBE_LIMIT, to: 32, reason: 'base latency measured', baseRttMs: 70 });
  });

  it('takes a ceiling below 256', () => {
    const changes: LimitChange[] = [];
    const at = { now: 0 };
    const limiter = new LatencyLimit({ now: () => at.now, onChange: (change) => changes.push(change), ceiling: 20 });
    for (let round = 0; round < 10; round += 1) feed(limiter, at, 50, limiter.limit);
    expect(limiter.limit).toBe(20);
    expect(() => new LatencyLimit({ ceiling: 0 })).toThrow(RangeError);
  });
});

// A hang guard, not a speed limit: each case simulates tens of thousands of requests, all CPU,
// and took over 5 s on a 2-core machine shared with other test runs.
describe('LatencyLimit against a server with K slots and a FIFO queue (virtual time)', { timeout: 60_000 }, () => {
  it('grows from 4 to the server capacity within a second (K = 48, 50 ms)', () => {
    const result = run({ slots: 48, latencyMs: 50, jitter: 0.1 }, 10_000);
    expect(result.limitAt[1]).toBeGreaterThanOrEqual(48);
    // The server's whole capacity is 960 answers a second.
    expect(perSecondBetween(result, 1, 10)).toBeGreaterThanOrEqual(0.95 * 960);
  });

  it('backs off when another client takes most of the server, and regrows once it leaves', () => {
    // From 10 s to 25 s, another client holds 36 of the 48 slots: 12 are left for us.
    const result = run({ slots: 48, latencyMs: 50, jitter: 0.1, otherClient: { at: 10_000, requests: 36, holdMs: 15_000 } }, 30_000);
    const during = result.limitAt.slice(12, 25);
    expect(result.changes.some((change) => change.reason === 'queueing' && change.at >= 10_000)).toBe(true);
    expect(Math.max(...during)).toBeLessThanOrEqual(STEADY_HIGH * 12);
    expect(Math.min(...during)).toBeGreaterThanOrEqual(STEADY_LOW * 12);
    expect(result.limitAt[29]).toBeGreaterThanOrEqual(48);
  });

  it.each([
    { slots: 48, latencyMs: 50, seed: 1, seconds: 120 },
    { slots: 48, latencyMs: 50, seed: 2, seconds: 120 },
    { slots: 6, latencyMs: 50, seed: 3, seconds: 120 },
    { slots: 200, latencyMs: 20, seed: 4, seconds: 40, ceiling: true },
  ])(
    'stays within [$slots × 0.65, $slots × 1.65] at steady state, for $seconds s (K = $slots, $latencyMs ms)',
    ({ slots, latencyMs, seed, seconds, ceiling }) => {
      const result = run({ slots, latencyMs, jitter: 0.1 }, seconds * 1000, seed);
      const settled = settledLimits(result, 2000);
      const high = ceiling === true ? MAX_AUTO_CONCURRENCY : Math.ceil(STEADY_HIGH * slots);
      expect(Math.min(...settled, result.limiter.limit)).toBeGreaterThanOrEqual(Math.floor(STEADY_LOW * slots));
      expect(Math.max(...settled, result.limiter.limit)).toBeLessThanOrEqual(high);
      // The queue this leaves on the server: at most half the base latency, on average.
      expect(result.meanQueueingMs).toBeLessThanOrEqual(0.5 * latencyMs);
      if (slots === 6) expect(result.maxInFlight).toBeLessThanOrEqual(2 * slots);
    },
  );

  it("a server half a millisecond away (K = 8): grows past K, and leaves a queue of at most 3 ms (2 ms is too short to tell from the client's own delays)", () => {
    const result = run({ slots: 8, latencyMs: 0.5, jitter: 0.1 }, 5_000);
    expect(Math.min(...settledLimits(result, 1000), result.limiter.limit)).toBeGreaterThanOrEqual(8);
    expect(result.meanQueueingMs).toBeLessThanOrEqual(3);
    // The server's whole capacity is 16,000 answers a second.
    expect(perSecondBetween(result, 1, 5)).toBeGreaterThanOrEqual(0.95 * 16_000);
  });

  it('a server that sheds with 503 instead of queueing: one limit, cut then regrown, few refusals', () => {
    // 40 slots and no queue: latency is flat at any load, so only the 503s hold the limit down.
    const result = run({ slots: 40, latencyMs: 50, jitter: 0.1, shedPastQueue: 0 }, 20_000);
    const reasons = result.changes.map((change) => change.reason);
    const firstCut = reasons.indexOf('overloaded (503)');
    expect(firstCut).toBeGreaterThan(-1);
    expect(reasons.slice(firstCut)).toContain('latency flat');
    expect(result.maxInFlight).toBeLessThanOrEqual(41);
    expect(result.refused).toBeLessThanOrEqual(0.01 * result.served);
    expect(perSecondBetween(result, 1, 20)).toBeGreaterThanOrEqual(0.85 * 800);
  });

  it('a server that answers as fast at any load: grows to the ceiling, 256, and stays there', () => {
    const result = run({ slots: 100_000, latencyMs: 20, jitter: 0.1 }, 40_000);
    expect(settledLimits(result, 0)).toEqual([8, 16, 32, 64, 128, 256]);
    expect(result.limiter.limit).toBe(MAX_AUTO_CONCURRENCY);
  });

  it("latency that rises with the client's own cost while throughput keeps rising: no cut below where throughput peaks (256)", () => {
    // 20 ms at the server with room for all, plus 0.06 ms of the client's work per request in
    // flight: 20 ms at 4, 35 ms at 256, as measured over TLS on two cores. Latency alone reads
    // 1.5x the base (a queue) from 167 in flight, yet 256 carries 1.6x what 128 does.
    const server = { slots: 100_000, latencyMs: 20, jitter: 0.1 };
    const clientMsPerInFlight = 0.06;
    const { limiter, clock, changes } = recorded((options) => new LatencyLimit(options));
    const result = simulate(limiter, clock, changes, { server, durationMs: 20_000, seed: 5, clientMsPerInFlight });
    const fixed = simulate(undefined, new SimClock(), [], { server, durationMs: 20_000, seed: 5, clientMsPerInFlight, fixed: 256 });
    expect(result.changes.filter((change) => change.reason === 'queueing')).toEqual([]);
    expect(Math.min(...settledLimits(result, 1000), limiter.limit)).toBe(MAX_AUTO_CONCURRENCY);
    expect(perSecondBetween(result, 1, 20)).toBeGreaterThanOrEqual(0.97 * perSecondBetween(fixed, 1, 20));
  });

  it("a slow spell of the client's own (answers read 20 ms late for 100 ms) is not cut for, twice over; one of 400 ms is", () => {
    // A server with room for all, 20 ms away: 40 ms answers for 100 ms are two to three rounds
    // at 1.5x the base and more, as measured over TLS on two cores (QUEUE_PERSISTS_MS).
    const server = { slots: 100_000, latencyMs: 20, jitter: 0.1 };
    const spells = (...fromMs: number[]) => fromMs.map((from) => ({ fromMs: from, toMs: from + 100, extraMs: 20 }));
    const short = recorded((options) => new LatencyLimit(options));
    simulate(short.limiter, short.clock, short.changes, { server, durationMs: 3000, seed: 6, clientSlowSpells: spells(400, 1300) });
    expect(short.changes.filter((change) => change.reason === 'queueing')).toEqual([]);
    expect(short.limiter.limit).toBe(MAX_AUTO_CONCURRENCY);

    const long = recorded((options) => new LatencyLimit(options));
    const clientSlowSpells = [{ fromMs: 1300, toMs: 1700, extraMs: 20 }];
    simulate(long.limiter, long.clock, long.changes, { server, durationMs: 3000, seed: 6, clientSlowSpells });
    const cut = long.changes.find((change) => change.reason === 'queueing');
    expect(cut?.at).toBeGreaterThanOrEqual(1300 + QUEUE_PERSISTS_MS);
    expect(cut?.at).toBeLessThan(1700);
  });

  it('a server that gets slower for good (50 → 150 ms): the base latency is learned again within seconds, not cut to the floor', () => {
    const result = run({ slots: 48, latencyMs: (at) => (at < 20_000 ? 50 : 150), jitter: 0.1 }, 60_000);
    expect(result.changes.some((change) => change.reason === 'base latency measured' && change.at < 22_500)).toBe(true);
    // Two cuts (the latency looks like our queue at first), then it is measured again.
    expect(Math.min(...settledLimits(result, 20_000))).toBeGreaterThanOrEqual(48 / 4);
    expect(Math.min(...settledLimits(result, 25_000), result.limiter.limit)).toBeGreaterThanOrEqual(Math.floor(STEADY_LOW * 48));
    // 48 slots at 150 ms: 320 answers a second.
    expect(perSecondBetween(result, 25, 60)).toBeGreaterThanOrEqual(0.95 * 320);
    expect(result.limiter.baseRttMs).toBeGreaterThan(135);
  });
});
