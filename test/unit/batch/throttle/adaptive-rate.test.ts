import { describe, expect, it } from 'vitest';
import {
  AdaptiveRate,
  cubicGrowth,
  LATER_RATE_DECREASE,
  MIN_RATE,
  PROBE_DOUBLING_MS,
  PROBE_DOUBLINGS,
  RATE_DECREASE,
  RECOVERED_ABOVE,
} from '../../../../src/batch/throttle/adaptive-rate.js';

/** A rate that saw its first start at 0 and `oks` answers admitted evenly up to `until`. */
function admitted(oks: number, until: number): AdaptiveRate {
  const rate = new AdaptiveRate();
  rate.onStart(0);
  for (let i = 1; i <= oks; i += 1) rate.onAdmitted((until * i) / oks);
  return rate;
}

describe('AdaptiveRate', () => {
  it('is unpaced until the first cut, however many answers come', () => {
    const rate = admitted(500, 1000);
    expect(rate.perSecond).toBe(Number.POSITIVE_INFINITY);
    expect(rate.cuts).toBe(0);
    expect(rate.advance(1000)).toBe(false);
  });

  it('cuts to RATE_DECREASE times the rate admitted lately, never below MIN_RATE', () => {
    const rate = admitted(50, 500); // 100/s
    rate.cut(500);
    expect(rate.perSecond).toBeCloseTo(RATE_DECREASE * 100);
    expect(rate.cuts).toBe(1);
    const idle = new AdaptiveRate();
    idle.cut(0);
    expect(idle.perSecond).toBe(MIN_RATE);
  });

  it('after the first cut, doubles every PROBE_DOUBLING_MS, and after PROBE_DOUBLINGS is unpaced again', () => {
    const rate = admitted(50, 500);
    rate.cut(500);
    const from = rate.perSecond;
    expect(rate.advance(500 + 2 * PROBE_DOUBLING_MS)).toBe(false);
    expect(rate.perSecond).toBeCloseTo(4 * from);
    expect(rate.recovered).toBe(false);
    expect(rate.advance(500 + PROBE_DOUBLINGS * PROBE_DOUBLING_MS)).toBe(true);
    expect(rate.perSecond).toBe(Number.POSITIVE_INFINITY);
    expect(rate.recovered).toBe(true);
  });

  it('after a later cut, grows with the answers along the cubic, and is recovered at RECOVERED_ABOVE times the cut', () => {
    const rate = admitted(50, 500);
    rate.cut(500);
    rate.cut(501);
    // A later cut takes off less than the first (LATER_RATE_DECREASE), and the cubic climbs from there.
    const cutFrom = rate.perSecond / LATER_RATE_DECREASE;
    expect(rate.advance(5000)).toBe(false);
    // Time moves with the answers: each admitted one is 1 / rate seconds of good answers.
    let seconds = 0;
    let now = 501;
    while (!rate.recovered) {
      seconds += 1 / rate.perSecond;
      now += 1;
      rate.onAdmitted(now);
      expect(rate.perSecond).toBeCloseTo(Math.max(MIN_RATE, cutFrom * cubicGrowth(seconds, LATER_RATE_DECREASE)));
    }
    expect(rate.perSecond).toBeGreaterThanOrEqual(RECOVERED_ABOVE * cutFrom);
  });

  it('a deferred cut starts, once, from what was admitted while it waited', () => {
    const rate = admitted(3, 30);
    expect(rate.startDeferredCut(100)).toBe(false);
    rate.deferCut(1000);
    // Twenty answers in the second it waited: 20/s.
    for (let i = 1; i <= 20; i += 1) rate.onAdmitted(1000 + 50 * i);
    expect(rate.startDeferredCut(2000)).toBe(true);
    expect(rate.perSecond).toBeCloseTo(RATE_DECREASE * 20);
    expect(rate.cuts).toBe(1);
    expect(rate.startDeferredCut(2000)).toBe(false);
    // It is a slow start.
    rate.advance(2000 + PROBE_DOUBLING_MS);
    expect(rate.perSecond).toBeCloseTo(2 * RATE_DECREASE * 20);
  });

  it('a restart after an outage is a slow start from MIN_RATE, and no cut', () => {
    const rate = admitted(50, 500);
    rate.restart(600);
    expect(rate.perSecond).toBe(MIN_RATE);
    expect(rate.cuts).toBe(0);
    rate.advance(600 + PROBE_DOUBLING_MS);
    expect(rate.perSecond).toBeCloseTo(2 * MIN_RATE);
    expect(rate.advance(600 + PROBE_DOUBLINGS * PROBE_DOUBLING_MS)).toBe(true);
    expect(rate.cuts).toBe(0);
  });

  it('a restart makes a cut put off meanwhile, counted once: the cut is not made again after it', () => {
    const rate = admitted(50, 500);
    rate.deferCut(600);
    for (let i = 1; i <= 20; i += 1) rate.onAdmitted(600 + i);
    rate.restart(1000);
    expect(rate.cuts).toBe(1);
    expect(rate.perSecond).toBe(MIN_RATE);
    expect(rate.startDeferredCut(1100)).toBe(false);
    expect(rate.cuts).toBe(1);
  });

  it('is admitting while an answer was admitted in about the last second', () => {
    const rate = new AdaptiveRate();
    expect(rate.admitting(0)).toBe(false);
    rate.onAdmitted(5000);
    expect(rate.admitting(5000)).toBe(true);
    expect(rate.admitting(7000)).toBe(false);
  });
});
