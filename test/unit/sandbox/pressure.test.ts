// The pieces of a sandbox under pressure (src/sandbox/pressure.ts), in process, with the clock
// passed in: which requests fail, how latencies spread, the rate's bucket, the capacity's queue.
import { describe, expect, it } from 'vitest';
import { FailPlan, latencyOf, NO_PRESSURE, RateGate, Slots, unitHash } from '../../../src/sandbox/pressure.js';

describe('unitHash', () => {
  it('is fixed by its inputs, in [0, 1), and another seed gives another sequence', () => {
    const draws = (seed: number) => Array.from({ length: 1000 }, (_, n) => unitHash(seed, '/plants/1', n));
    expect(draws(1)).toEqual(draws(1));
    expect(draws(1)).not.toEqual(draws(2));
    for (const value of draws(3)) expect(value >= 0 && value < 1).toBe(true);
    // Spread evenly enough that a share of 10% fails about 10%.
    const low = draws(4).filter((value) => value < 0.1).length;
    expect(low).toBeGreaterThan(60);
    expect(low).toBeLessThan(140);
  });
});

describe('latencyOf', () => {
  it('is the latency alone without jitter', () => {
    expect(latencyOf({ ...NO_PRESSURE, latencyMs: 50 }, 7)).toBe(50);
  });

  it('spreads latency ± jitter, the same for the same seed and request number, never below 0', () => {
    const pressure = { ...NO_PRESSURE, latencyMs: 50, jitterMs: 20, seed: 9 };
    const waits = Array.from({ length: 500 }, (_, n) => latencyOf(pressure, n));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(30);
    expect(Math.max(...waits)).toBeLessThanOrEqual(70);
    // Spread, not one value: both halves of the range are used.
    expect(waits.some((wait) => wait < 40)).toBe(true);
    expect(waits.some((wait) => wait > 60)).toBe(true);
    expect(waits).toEqual(Array.from({ length: 500 }, (_, n) => latencyOf(pressure, n)));
    const wide = { ...NO_PRESSURE, latencyMs: 5, jitterMs: 20 };
    expect(Math.min(...Array.from({ length: 200 }, (_, n) => latencyOf(wide, n)))).toBe(0);
  });
});

describe('FailPlan', () => {
  const paths = Array.from({ length: 5000 }, (_, n) => `/plants/${n}`);

  it('fails about the share asked, and the same attempts of the same paths in any order', () => {
    const forward = new FailPlan(0.1, 1);
    const failed = paths.filter((path) => forward.fails(path));
    expect(failed.length).toBeGreaterThan(400);
    expect(failed.length).toBeLessThan(600);
    const backward = new FailPlan(0.1, 1);
    expect([...paths].reverse().filter((path) => backward.fails(path))).toEqual([...failed].reverse());
    const otherSeed = new FailPlan(0.1, 2);
    expect(paths.filter((path) => otherSeed.fails(path))).not.toEqual(failed);
  });

  it('draws again for each attempt of a path: a failed id passes on a retry, as often as the share says', () => {
    const plan = new FailPlan(0.3, 5);
    let retriesNeeded = 0;
    for (const path of paths.slice(0, 1000)) {
      let attempts = 1;
      while (plan.fails(path)) attempts++;
      retriesNeeded += attempts - 1;
      expect(attempts).toBeLessThan(20);
    }
    // 0.3 / 0.7 retries per id on average: about 430 for 1000 ids.
    expect(retriesNeeded).toBeGreaterThan(330);
    expect(retriesNeeded).toBeLessThan(530);
  });

  it('never fails at 0, always at 1', () => {
    const never = new FailPlan(0, 1);
    const always = new FailPlan(1, 1);
    expect(paths.some((path) => never.fails(path))).toBe(false);
    expect(paths.every((path) => always.fails(path) && always.fails(path))).toBe(true);
  });
});

describe('RateGate', () => {
  it('lets a burst of n through, then one per period/n, and says when to come back', () => {
    const gate = new RateGate({ count: 5, periodMs: 1000 }, 0);
    expect(Array.from({ length: 5 }, () => gate.admit(0))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(gate.admit(0)).toBe(1);
    // One more every 200 ms.
    expect(gate.admit(199)).toBe(1);
    expect(gate.admit(200)).toBeUndefined();
    expect(gate.admit(200)).toBe(1);
    // A quiet second refills the burst, no more.
    const later = Array.from({ length: 6 }, () => gate.admit(10_000));
    expect(later.filter((answer) => answer === undefined)).toHaveLength(5);
  });

  it('asks for the whole seconds until a request would pass, for a slow rate', () => {
    const gate = new RateGate({ count: 2, periodMs: 60_000 }, 0);
    gate.admit(0);
    gate.admit(0);
    // One every 30 s.
    expect(gate.admit(0)).toBe(30);
    expect(gate.admit(10_500)).toBe(20);
  });
});

describe('Slots', () => {
  it('holds at most capacity, and hands each freed slot to the longest waiting, in order', async () => {
    const slots = new Slots(2);
    const order: number[] = [];
    const holders = await Promise.all([slots.acquire(), slots.acquire()]);
    const waiting = [3, 4, 5].map((n) =>
      slots.acquire().then((release) => {
        order.push(n);
        return release;
      }),
    );
    await Promise.resolve();
    expect([slots.busy, slots.queued, order]).toEqual([2, 3, []]);
    holders[0]?.();
    holders[0]?.(); // a second release of the same slot frees nothing more
    const third = await waiting[0];
    expect([slots.busy, slots.queued, order]).toEqual([2, 2, [3]]);
    holders[1]?.();
    third?.();
    const [fourth, fifth] = await Promise.all([waiting[1], waiting[2]]);
    expect([slots.busy, slots.queued, order]).toEqual([2, 0, [3, 4, 5]]);
    fourth?.();
    fifth?.();
    expect(slots.busy).toBe(0);
  });
});
