// `--concurrency auto` through the throttle: the latency-based limit (latency-limit.ts, tested on
// its own in latency-limit.test.ts) is the throttle's one limit on requests in flight. Here: the
// throttle feeds it each processed answer's round trip, lets exactly its limit be in flight,
// and a 503 cuts that same limit. Fake clocks and scripted latencies throughout.
import { describe, expect, it } from 'vitest';
import { BASE_PROBE_LIMIT, MAX_AUTO_CONCURRENCY } from '../../../../src/batch/adaptive/latency-tuning.js';
import { CONCURRENCY_DECREASE } from '../../../../src/batch/throttle/concurrency-limit.js';
import type { ThrottleChange } from '../../../../src/batch/throttle/throttle.js';
import { type Feedback, feedbackFor, type Permit } from '../../../../src/http/gate.js';
import { manualThrottle } from './manual-throttle.js';
import { type BatchRun, queueingServer, sheddingServer, simulateBatch } from './virtual-batch.js';

const ok: Feedback = { kind: 'ok' };

/** A throttle with `--concurrency auto` on a clock the test moves by hand. */
function setup(ceiling: number | 'auto' = 'auto') {
  const manual = manualThrottle(ceiling);
  /** A round trip: as many as allowed start now, all answer `rttMs` later with `feedback` (no timer runs); how many went. */
  const round = async (rttMs: number, feedback: Feedback = ok): Promise<number> => {
    const permits = await manual.fill();
    manual.clock.now += rttMs;
    for (const permit of permits) permit.release(feedback);
    return permits.length;
  };
  return { ...manual, limitChanges: manual.limits, overdue: manual.advanceTo, round };
}

describe('--concurrency auto: the throttle feeds the latency limit and obeys it', () => {
  it('starts at BASE_PROBE_LIMIT in flight and, while answers take as long, doubles: exactly the limit goes each round', async () => {
    const { round, limitChanges, throttle } = setup();
    const sent: number[] = [];
    for (let i = 0; i < 12; i += 1) sent.push(await round(50));
    // Two rounds of 4 make the first round of 8 answers (the base latency); then each round of
    // the limit's own size, flat, doubles it, up to the ceiling.
    expect(sent).toEqual([4, 4, 8, 16, 32, 64, 128, 256, 256, 256, 256, 256]);
    expect(limitChanges().map(({ from, to, reason }) => `${from} → ${to}: ${reason}`)).toEqual([
      '4 → 8: latency flat',
      '8 → 16: latency flat',
      '16 → 32: latency flat',
      '32 → 64: latency flat',
      '64 → 128: latency flat',
      '128 → 256: latency flat',
    ]);
    expect(sent[0]).toBe(BASE_PROBE_LIMIT);
    expect(throttle.maxInFlight).toBe(MAX_AUTO_CONCURRENCY);
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: 256, settledConcurrency: 256, concurrencyCuts: 0, refusals: 0 });
  });

  it('backs off when answers take twice as long as the base latency (the server is queueing), and lets only the new limit go', async () => {
    const { round, limitChanges, throttle } = setup();
    for (let i = 0; i < 4; i += 1) await round(50);
    expect(throttle.stats().concurrencyLimit).toBe(32);
    // One slow round could be a pause of the client's own; the second in a row is a queue.
    expect(await round(100)).toBe(32);
    await round(100);
    const cut = limitChanges().at(-1);
    expect(cut).toMatchObject({ from: 32, reason: 'queueing', baseRttMs: 50 });
    const to = cut?.to as number;
    expect(to).toBeLessThan(32);
    expect(await round(50)).toBe(to);
  });

  it('holds, neither growing nor cutting, while answers take between 1.25× and 1.5× the base latency', async () => {
    const { round, limitChanges } = setup();
    for (let i = 0; i < 4; i += 1) await round(50);
    const before = limitChanges().length;
    for (let i = 0; i < 5; i += 1) expect(await round(70)).toBe(32);
    expect(limitChanges()).toHaveLength(before);
  });

  it('a 503 cuts the same limit, from the count in flight when the refused one was sent, once per round trip; no second limit', async () => {
    const { fill, clock, changes, limitChanges, throttle, round } = setup();
    for (let i = 0; i < 4; i += 1) await round(50);
    const permits = await fill();
    expect(permits).toHaveLength(32);
    clock.now += 50;
    // The last one started with 32 in flight; two refusals of the same load, then the rest answer.
    (permits[31] as Permit).release(feedbackFor(503));
    (permits[30] as Permit).release(feedbackFor(503));
    for (const permit of permits.slice(0, 30)) permit.release(ok);
    const expected = Math.floor(CONCURRENCY_DECREASE * 32);
    expect(limitChanges().at(-1)).toMatchObject({ from: 32, to: expected, reason: 'overloaded (503)' });
    expect(limitChanges().filter((c) => c.reason === 'overloaded (503)')).toHaveLength(1);
    // The fixed limit's report of a cut is not made: one limit, one line.
    expect(changes.some((c) => c.kind === 'concurrency')).toBe(false);
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: expected, settledConcurrency: expected, concurrencyCuts: 1, refusals: 2 });
    expect((await fill()).length).toBe(expected);
  });

  it('a few 503s at random, at a load the server has been taking, cut nothing: that id retries on its own', async () => {
    const { fill, clock, limitChanges, throttle, round } = setup();
    // Up to 32 in flight, each round answered in full: the server takes 32.
    for (let i = 0; i < 5; i += 1) await round(50);
    const cuts = () => limitChanges().filter((change) => change.reason === 'overloaded (503)').length;
    // Then rounds of 32 (flat latency keeps the limit) with one 503 each, from the middle of the load: 1 in 32, about 3%.
    for (let r = 0; r < 4; r += 1) {
      const permits = await fill();
      clock.now += 50;
      for (const [i, permit] of permits.entries()) permit.release(i === 10 ? feedbackFor(503) : ok);
    }
    expect(cuts()).toBe(0);
    expect(throttle.stats().refusals).toBe(4);
  });

  it('503s past a tenth of the recent answers cut, even at a load the server has been taking', async () => {
    const { fill, clock, limitChanges, round } = setup();
    for (let i = 0; i < 5; i += 1) await round(50);
    const permits = await fill();
    clock.now += 50;
    // 8 of 32 refused, from the middle of the load: a quarter.
    for (const [i, permit] of permits.entries()) permit.release(i >= 8 && i < 16 ? feedbackFor(503) : ok);
    expect(limitChanges().filter((change) => change.reason === 'overloaded (503)')).toHaveLength(1);
  });

  it('a 429 cuts the rate and leaves the auto limit where it was', async () => {
    const { fill, clock, changes, throttle, round } = setup();
    for (let i = 0; i < 3; i += 1) await round(50);
    const permits = await fill();
    expect(permits).toHaveLength(16);
    clock.now += 50;
    (permits[0] as Permit).release(feedbackFor(429));
    expect(changes.at(-1)).toMatchObject({ kind: 'slowed', status: 429 });
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: 16, concurrencyCuts: 0, rateCuts: 1 });
  });

  it('a fixed --concurrency is today\'s limit: the ceiling in flight from the start, no limit changes, nothing "settled"', async () => {
    const { round, limitChanges, throttle } = setup(12);
    for (let i = 0; i < 6; i += 1) expect(await round(i < 3 ? 50 : 200)).toBe(12);
    expect(limitChanges()).toEqual([]);
    expect(throttle.maxInFlight).toBe(12);
    expect(throttle.stats().settledConcurrency).toBeUndefined();
  });
});

/** The limits the run settled on once it found the server (from its first cut for queueing), base latency measurements aside. */
function limitsAfterGrowth(run: BatchRun): number[] {
  const changes = run.changes.filter((c): c is Extract<ThrottleChange, { kind: 'limit' }> => c.kind === 'limit');
  const firstCut = changes.findIndex((c) => c.reason === 'queueing');
  expect(firstCut).toBeGreaterThan(-1);
  return changes
    .slice(firstCut)
    .filter((c) => c.reason !== 'measuring base latency')
    .map((c) => c.to);
}

describe('--concurrency auto: batches against servers with a capacity (virtual time)', () => {
  it('K = 48, 50 ms: finds the capacity, gets ≥ 0.85 of the server, little queueing, settles within the band', async () => {
    const queueing: number[] = [];
    const run = await simulateBatch({ ids: 4000, ceiling: 'auto', server: queueingServer(48, 50, { queueing }) });
    expect(run.accepted).toBe(4000);
    const perSecond = run.accepted / (run.endMs / 1000);
    expect(perSecond).toBeGreaterThanOrEqual(0.85 * (48 / 0.05));
    const meanQueueing = queueing.reduce((a, b) => a + b, 0) / queueing.length;
    expect(meanQueueing).toBeLessThanOrEqual(50);
    // The steady-state band latency-limit.test.ts states: [0.65 K, 1.65 K] once the server is found.
    for (const limit of limitsAfterGrowth(run)) {
      expect(limit).toBeGreaterThanOrEqual(Math.floor(0.65 * 48));
      expect(limit).toBeLessThanOrEqual(Math.ceil(1.65 * 48));
    }
    const settled = run.throttle.stats().settledConcurrency as number;
    expect(settled).toBeGreaterThanOrEqual(Math.floor(0.65 * 48));
    expect(settled).toBeLessThanOrEqual(Math.ceil(1.65 * 48));
  });

  it('K = 6, 50 ms: never more than 2 K in flight after the first second, and ≥ 0.85 of the server', async () => {
    const run = await simulateBatch({ ids: 1000, ceiling: 'auto', server: queueingServer(6, 50) });
    expect(run.accepted).toBe(1000);
    expect(run.maxInFlightAfterFirstSecond).toBeLessThanOrEqual(12);
    expect(run.accepted / (run.endMs / 1000)).toBeGreaterThanOrEqual(0.85 * (6 / 0.05));
    expect(run.changes.some((c) => c.kind === 'limit' && c.reason === 'queueing')).toBe(true);
  });

  it('a server that sheds past 4 in flight (503 + Retry-After 1 s): the one limit is cut by the 503s, all deleted, few refusals', async () => {
    const run = await simulateBatch({ ids: 1000, ceiling: 'auto', server: sheddingServer(4, 20) });
    expect(run.accepted).toBe(1000);
    expect(run.refused / run.requests).toBeLessThanOrEqual(0.1);
    expect(run.endMs).toBeLessThanOrEqual(1.25 * ((1000 * 20) / 4));
    expect(run.changes.some((c) => c.kind === 'limit' && c.reason === 'overloaded (503)')).toBe(true);
    expect(run.changes.some((c) => c.kind === 'concurrency')).toBe(false);
    expect(run.throttle.stats().concurrencyCuts).toBeGreaterThan(0);
  });
});
