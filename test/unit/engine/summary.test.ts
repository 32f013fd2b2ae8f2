import { describe, expect, it } from 'vitest';
import { DELETE_RESULTS } from '../../../src/commands/delete/operation.js';
import { describeChange, summaryLine } from '../../../src/engine/summary.js';
import { Tally } from '../../../src/engine/tally.js';
import { type Server, simulateBatch } from '../batch/throttle/virtual-batch.js';
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

describe('the words about the pace are true at the end of the run (issue 41 item 3)', () => {
  const tally = Object.assign(new Tally(DELETE_RESULTS), { done: 100 });
  const refused = { ...calm, refusals: 50, rateCuts: 2 };

  it('"sending at full speed again" only for a run that came back to it', () => {
    expect(summaryLine(tally, 9000, { ...refused, recovered: true })).toMatch(/, sending at full speed again$/);
    expect(summaryLine(tally, 9000, { ...refused, recovered: false })).not.toMatch(/full speed/);
    // After `sandbox --fail 100%`: the cap ran out while the service stayed down.
    const down = summaryLine(tally, 9000, { ...refused, outages: 1, downAtEnd: true, recovered: false });
    expect(down).not.toMatch(/full speed/);
    expect(down).toMatch(/, still down at the end/);
  });

  it('the rate is the one the server took, measured, not the throttle cap grown back past it', () => {
    const line = summaryLine(tally, 9000, { ...refused, ratePerSecond: 243.2, servedPerSecond: 198.4 });
    expect(line).toMatch(/, the server took ~198\/s after its first refusal$/);
    expect(line).not.toMatch(/243/);
  });

  it('a server that refuses everything (503, Retry-After: 1) until the run gives up: never "full speed", nor --verbose\'s "no longer throttled"', async () => {
    const refuseAll: Server = async (clock) => {
      await clock.sleep(10);
      return { status: 503, retryAfterMs: 1000 };
    };
    const run = await simulateBatch({ ids: 1000, ceiling: 'auto', stallMs: 20_000, server: refuseAll });
    expect(run.gaveUp).toBeDefined();
    // The slow start after the cut ran out during the outage: the cap is gone, but nothing was admitted.
    expect(run.stats).toMatchObject({ rateCuts: 3, ratePerSecond: undefined, outages: 1, recovered: false, downAtEnd: true });
    expect(run.changes.map((change) => change.kind)).not.toContain('recovered');
    const line = summaryLine(tally, run.endMs, run.stats);
    expect(line).not.toMatch(/full speed/);
    expect(line).toMatch(/, the service was down once \(.*\), still down at the end, /);
  });

  it('against a token bucket of 200/s (429, Retry-After: 1), the rate said is at most what the bucket lets through', async () => {
    const run = await simulateBatch({ ids: 1200, ceiling: 'auto', server: tokenBucket(200, 10, 30) });
    expect(run.stats.servedPerSecond).toBeGreaterThan(100);
    expect(run.stats.servedPerSecond).toBeLessThanOrEqual(201);
    const said = Number(/took ~(\d+)\/s/.exec(summaryLine(tally, run.endMs, run.stats))?.[1]);
    expect(said).toBeLessThanOrEqual(201);
  });
});

/** `perSecond` requests a second after a burst of `burst`, each served in `latencyMs`; the rest 429 with Retry-After: 1 at once. */
function tokenBucket(perSecond: number, burst: number, latencyMs: number): Server {
  let tokens = burst;
  let at = 0;
  return async (clock) => {
    tokens = Math.min(burst, tokens + ((clock.now - at) * perSecond) / 1000);
    at = clock.now;
    if (tokens < 1) return { status: 429, retryAfterMs: 1000 };
    tokens -= 1;
    await clock.sleep(latencyMs);
    return { status: 204 };
  };
}
