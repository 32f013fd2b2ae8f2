// The default (auto up to 64) against small servers, beside the old default of a fixed 8, in
// virtual time: it must load them no more than 8 did, and carry about as much.
import { describe, expect, it } from 'vitest';
import { startingLimit } from '../../../../src/batch/adaptive/latency-tuning.js';
import { queueingServer, type Server, simulateBatch } from './virtual-batch.js';

const DEFAULT: { auto: number } = { auto: 64 };
const OLD_DEFAULT = 8;

describe('a server that serves K at once and queues the rest (50 ms)', () => {
  it.each([2, 4])('K = %i: queues no longer than fixed 8 did, and carries at least 0.9× as much', async (slots) => {
    const measure = async (ceiling: typeof DEFAULT | number) => {
      const queueing: number[] = [];
      const run = await simulateBatch({ ids: 1000, ceiling, server: queueingServer(slots, 50, { queueing }) });
      expect(run.accepted).toBe(1000);
      return { perSecond: run.accepted / run.endMs, queueing: queueing.reduce((a, b) => a + b, 0) / queueing.length };
    };
    const auto = await measure(DEFAULT);
    const fixed = await measure(OLD_DEFAULT);
    expect(auto.queueing).toBeLessThanOrEqual(fixed.queueing);
    expect(auto.perSecond).toBeGreaterThanOrEqual(0.9 * fixed.perSecond);
  });
});

/**
 * Latency = base + k × (requests it holds, this one included), for every request: a server that
 * suffers from each one. Records, for each request, how many it held and the latency it gave.
 */
function slowsWithLoad(baseMs: number, k: number) {
  const held: Array<{ inFlight: number; latencyMs: number }> = [];
  let inFlight = 0;
  const server: Server = async (clock) => {
    inFlight += 1;
    const latencyMs = baseMs + k * inFlight;
    held.push({ inFlight, latencyMs });
    await clock.sleep(latencyMs);
    inFlight -= 1;
    return { status: 204 };
  };
  return { server, held };
}

describe('a server whose latency rises with every request it holds (base 50 ms + k per request)', () => {
  // The default never more than fixed 8; `auto:256`, whose user said the server takes far more,
  // never more than its first doubling: it starts at 256 / 16 (startingLimit).
  const bounds: Array<[typeof DEFAULT, number]> = [
    [DEFAULT, OLD_DEFAULT],
    [{ auto: 256 }, 2 * startingLimit(256)],
  ];
  it.each([0.25, 0.5, 1, 1.5, 2, 3, 3.5, 4, 6, 10])(
    'k = %s ms: once latency is over twice the base, never more in flight than fixed 8 (the default), than 32 (auto:256)',
    async (k) => {
      for (const [ceiling, most] of bounds) {
        const { server, held } = slowsWithLoad(50, k);
        const run = await simulateBatch({ ids: 2000, ceiling, server });
        expect(run.accepted).toBe(2000);
        // Its own base: one request alone.
        const twiceBase = 2 * (50 + k);
        const over = held.filter((request) => request.latencyMs > twiceBase);
        expect(Math.max(0, ...over.map((request) => request.inFlight)), JSON.stringify(ceiling)).toBeLessThanOrEqual(most);
      }
    },
  );
});
