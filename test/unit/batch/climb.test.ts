// The climb of the latency-based limit (issue 28): in slow start a round is half the limit's
// answers, so each doubling takes about one round trip, not two. Virtual time (capacity-sim.ts).
import { describe, expect, it } from 'vitest';
import { LatencyLimit } from '../../../src/batch/adaptive/latency-limit.js';
import { MAX_AUTO_CONCURRENCY } from '../../../src/batch/adaptive/latency-tuning.js';
import { recorded, simulate } from '../../helpers/capacity-sim.js';

describe('slow start', () => {
  it.each([
    ['a server with room for all, 20 ms', 0],
    ["the same, with the client's own cost over TLS (0.06 ms per request in flight)", 0.06],
  ])('%s: from 16 in flight, each doubling within 1.5 round trips of the last, up to 256', (_name, clientMsPerInFlight) => {
    const latencyMs = 20;
    const { limiter, clock, changes } = recorded((options) => new LatencyLimit({ ...options, ceiling: MAX_AUTO_CONCURRENCY }));
    simulate(limiter, clock, changes, {
      server: { slots: 100_000, latencyMs, jitter: 0.1 },
      durationMs: 2000,
      seed: 5,
      clientMsPerInFlight,
    });
    const doublings = changes.filter((change) => change.reason === 'latency flat' && change.to === 2 * change.from);
    expect(doublings.map((change) => change.to)).toEqual([8, 16, 32, 64, 128, 256]);
    const from16 = doublings.slice(1);
    const gaps = from16.slice(1).map((change, i) => change.at - (from16[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(1.5 * latencyMs * (1 + 0.1) + 256 * clientMsPerInFlight);
    // And it stays there: no cut in the run.
    expect(changes.filter((change) => change.reason === 'queueing')).toEqual([]);
  });

  it('a server that serves 6 at once: the faster rounds still end slow start at the first queue (at most 16 in flight)', () => {
    const { limiter, clock, changes } = recorded((options) => new LatencyLimit(options));
    const result = simulate(limiter, clock, changes, { server: { slots: 6, latencyMs: 50, jitter: 0.1 }, durationMs: 5000, seed: 5 });
    expect(result.maxInFlight).toBeLessThanOrEqual(16);
  });
});
