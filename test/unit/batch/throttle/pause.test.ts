import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PAUSE_MS, DEFAULT_STALL_MS, PauseRule } from '../../../../src/batch/throttle/pause.js';

describe('PauseRule: pauses', () => {
  it('begins a pause, makes it longer, and ignores one that would end sooner', () => {
    const rule = new PauseRule();
    expect(rule.until).toBe(Number.NEGATIVE_INFINITY);
    expect(rule.pause(5000, 0)).toEqual({ began: true, forMs: 5000 });
    expect(rule.pause(3000, 1000)).toBeUndefined();
    expect(rule.pause(6000, 1000)).toEqual({ began: false, forMs: 6000 });
    expect(rule.until).toBe(7000);
    // One that ended just now is over: the next begins anew.
    expect(rule.pause(500, 7000)).toEqual({ began: true, forMs: 500 });
  });

  it('is never longer than maxPauseMs (DEFAULT_MAX_PAUSE_MS by default)', () => {
    expect(new PauseRule({ maxPauseMs: 3000 }).pause(3_600_000, 10)).toEqual({ began: true, forMs: 3000 });
    expect(new PauseRule().pause(3_600_000, 0)?.forMs).toBe(DEFAULT_MAX_PAUSE_MS);
  });

  it('counts only the pauses something was held back by, whole once over, up to the end while under way', () => {
    const rule = new PauseRule();
    rule.pause(1000, 0);
    expect(rule.totals(5000)).toEqual({ pauses: 0, pausedMs: 0 });
    rule.noteHeldBack(1000); // at its end: not held back by it
    expect(rule.totals(5000)).toEqual({ pauses: 0, pausedMs: 0 });
    rule.pause(2000, 5000);
    rule.noteHeldBack(5500);
    expect(rule.totals(6000)).toEqual({ pauses: 1, pausedMs: 1000 });
    rule.pause(4000, 8000);
    rule.noteHeldBack(8000);
    expect(rule.totals(9000)).toEqual({ pauses: 2, pausedMs: 2000 + 1000 });
  });
});

describe('PauseRule: refusals', () => {
  it('gives up once every answer for stallMs was a refusal; an admitted one starts the count again', () => {
    const rule = new PauseRule({ stallMs: 10_000 });
    expect(rule.onRefused(0)).toBeUndefined();
    expect(rule.onRefused(9999)).toBeUndefined();
    rule.onAdmitted();
    expect(rule.onRefused(10_000, 503)).toBeUndefined();
    expect(rule.onRefused(15_000)).toBeUndefined();
    expect(rule.onRefused(15_000, 502)).toBeUndefined();
    // What it saw since the last good answer: every refusal counted, each kind named once.
    expect(rule.onRefused(20_000, 503)).toBe('the server refused all 4 requests it answered over 10 s (502, 503, failed connections)');
    expect(new PauseRule().onRefused(0)).toBeUndefined();
    // Retries refused over and over do not start it, and one id's refusals alone never end it:
    // it takes a first attempt refused to start, and another id's to give up.
    const fewIds = new PauseRule({ stallMs: 10_000 });
    for (let at = 0; at <= 30_000; at += 1000) expect(fewIds.onRefused(at, 503, false)).toBeUndefined();
    expect(fewIds.onRefused(31_000, 503, true)).toBeUndefined();
    expect(fewIds.onRefused(45_000, 503, false)).toBeUndefined();
    expect(fewIds.onRefused(46_000, 429, true)).toBe('the server refused all 3 requests it answered over 15 s (429, 503)');
    const lastId = new PauseRule({ stallMs: 1000 });
    expect(lastId.onRefused(0, 503, true)).toBeUndefined();
    for (let at = 100; at <= 60_000; at += 100) expect(lastId.onRefused(at, 503, false)).toBeUndefined();
    const stalled = new PauseRule();
    stalled.onRefused(0);
    expect(stalled.onRefused(DEFAULT_STALL_MS)).toBeDefined();
  });

  it('says two cuts with no admitted answer between did not help', () => {
    const rule = new PauseRule();
    rule.onCut();
    expect(rule.cutsNotHelping).toBe(false);
    rule.onCut();
    expect(rule.cutsNotHelping).toBe(true);
    rule.onAdmitted();
    expect(rule.cutsNotHelping).toBe(false);
  });
});
