// A token bucket the default run meets often (issue 41 item 2): 150/s, burst 10, 429 with
// Retry-After: 1, answers in 30 ms, with the throttle's timers as late as Node's setTimeout
// makes them (the delay rounded up to the millisecond, then a millisecond more). In virtual time.
// Before, each start was spaced from the last one's actual time, so every late timer was lost
// (a pace of 150/s sent less), and each cut after the first took 0.3 of the rate: 1,200 ids ran
// at 0.95×, 0.89× and 0.83× of the bucket's rate with timers 0.5, 1 and 2 ms late (now 0.99×,
// 1.00×, 0.96×).
import { describe, expect, it } from 'vitest';
import { simulateBatch, tokenBucketServer } from './virtual-batch.js';

describe('a token bucket of 150/s (burst 10, 30 ms answers), timers late as Node makes them', () => {
  it.each([0.5, 1, 2])('1,200 ids at the default keep to at least 0.9× its rate (timers %s ms late)', async (lateMs) => {
    const run = await simulateBatch({ ids: 1200, ceiling: { auto: 64 }, server: tokenBucketServer(150, 10, 30), timersLateMs: lateMs });
    expect(run.accepted).toBe(1200);
    expect(run.accepted / (run.endMs / 1000)).toBeGreaterThanOrEqual(0.9 * 150);
    expect(run.stats.pauses).toBe(0);
  });
});
