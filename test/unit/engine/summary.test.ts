import { describe, expect, it } from 'vitest';
import { DELETE_RESULTS } from '../../../src/commands/delete/operation.js';
import { describeChange, summaryLine } from '../../../src/engine/summary.js';
import { Tally } from '../../../src/engine/tally.js';
import { CALM } from './calm-stats.js';

const calm = CALM;

describe('an outage, in words', () => {
  it('--verbose says when the service went down and when it answered again, once each', () => {
    expect(describeChange({ kind: 'paused', forMs: 1000, reason: 'failing' })).toBe(
      'throttled: the service is failing for request after request (502/503/504, failed connections or answers not from the API); one probe every 1.0s until it answers',
    );
    expect(describeChange({ kind: 'service-back', afterMs: 5200 })).toBe(
      'the service answers again after 5.2s of failing; sending slowly, then faster',
    );
  });

  it('the summary names an outage the run waited out, and not a failure or two', () => {
    const tally = Object.assign(new Tally(DELETE_RESULTS), { done: 100 });
    expect(summaryLine(tally, 1000, { ...calm, failures: 2 })).not.toMatch(/throttled/);
    expect(summaryLine(tally, 7000, { ...calm, failures: 40, outages: 1, pauses: 5, pausedMs: 5000 })).toMatch(
      /; throttled: the service was down once \(502\/503\/504, failed connections or answers not from the API, for request after request\), paused 5 times, 5\.0s in all$/,
    );
  });
});
