import { describe, expect, it } from 'vitest';
import { CONCURRENCY_DECREASE, CONCURRENCY_INCREASE_AFTER, ConcurrencyLimit } from '../../../../src/batch/throttle/concurrency-limit.js';

const SAMPLE = { rttMs: 20, inFlightAtStart: 1 };

/** Admitted answers until the limit grows (or `max` of them); how many it took. */
function answersToGrow(limit: ConcurrencyLimit, max = 1000): number {
  const from = limit.limit;
  for (let answers = 1; answers <= max; answers += 1) {
    limit.onAdmitted(SAMPLE);
    if (limit.limit !== from) return answers;
  }
  return Number.POSITIVE_INFINITY;
}

describe('ConcurrencyLimit', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses a ceiling of %d', (ceiling) => {
    expect(() => new ConcurrencyLimit(ceiling)).toThrow(RangeError);
  });

  it('starts at the ceiling and never grows past it', () => {
    const limit = new ConcurrencyLimit(3);
    expect(limit).toMatchObject({ limit: 3, atCeiling: true, cuts: 0 });
    expect(answersToGrow(limit)).toBe(Number.POSITIVE_INFINITY);
  });

  it('an overload cuts to CONCURRENCY_DECREASE times what was in flight at the start (at most the limit), never below 1', () => {
    const limit = new ConcurrencyLimit(10);
    limit.onOverloaded(6);
    expect(limit.limit).toBe(Math.floor(CONCURRENCY_DECREASE * 6));
    limit.onOverloaded(50);
    expect(limit.limit).toBe(Math.floor(CONCURRENCY_DECREASE * Math.floor(CONCURRENCY_DECREASE * 6)));
    limit.onOverloaded(1);
    expect(limit).toMatchObject({ limit: 1, atCeiling: false, cuts: 3 });
  });

  it('grows by one after CONCURRENCY_INCREASE_AFTER × the limit answers in a row; a refusal starts the count again', () => {
    const limit = new ConcurrencyLimit(8);
    limit.onOverloaded(3); // 2
    expect(answersToGrow(limit)).toBe(CONCURRENCY_INCREASE_AFTER * 2);
    for (let i = 0; i < CONCURRENCY_INCREASE_AFTER * 3 - 1; i += 1) limit.onAdmitted(SAMPLE);
    limit.onRefused();
    expect(limit.limit).toBe(3);
    expect(answersToGrow(limit)).toBe(CONCURRENCY_INCREASE_AFTER * 3);
  });

  it('a probe refused at the limit it grew to waits twice as long the next time', () => {
    const limit = new ConcurrencyLimit(8);
    limit.onOverloaded(1); // 1
    expect(answersToGrow(limit)).toBe(CONCURRENCY_INCREASE_AFTER);
    limit.onOverloaded(2); // the probe to 2 refused: back to 1
    expect(limit.limit).toBe(1);
    expect(answersToGrow(limit)).toBe(2 * CONCURRENCY_INCREASE_AFTER);
    limit.onOverloaded(2); // refused again at 2
    expect(answersToGrow(limit)).toBe(4 * CONCURRENCY_INCREASE_AFTER);
  });
});
