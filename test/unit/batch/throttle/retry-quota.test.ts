// Issue 40, items 6 to 8, on the throttle's side: the run's retry budget (retry-quota.ts), paid
// only while the service serves the run and is not down; the throttle stopped by the run (its
// --max-duration) or by giving up, which ends every wait at once; and how long the service has
// been down, for the progress line. On a virtual clock.
import { describe, expect, it } from 'vitest';
import { OUTAGE_AFTER_ANSWERS, PROBE_EVERY_MS } from '../../../../src/batch/throttle/outage.js';
import { RETRIES_PER_GOOD, RETRY_QUOTA, RetryQuota } from '../../../../src/batch/throttle/retry-quota.js';
import { Throttle, type ThrottleChange } from '../../../../src/batch/throttle/throttle.js';
import type { Feedback, Permit } from '../../../../src/http/gate.js';
import { settle, VirtualClock } from './virtual-batch.js';

const ok: Feedback = { kind: 'ok' };
const badGateway: Feedback = { kind: 'failing', status: 502 };

describe('RetryQuota', () => {
  it('pays RETRY_QUOTA retries, then none until good answers put RETRIES_PER_GOOD each back, up to RETRY_QUOTA', () => {
    const quota = new RetryQuota();
    for (let i = 0; i < RETRY_QUOTA; i++) expect(quota.take()).toBe(true);
    expect(quota.take()).toBe(false);
    quota.onGood();
    for (let i = 0; i < RETRIES_PER_GOOD; i++) expect(quota.take()).toBe(true);
    expect(quota.take()).toBe(false);
    for (let i = 0; i < 10 * RETRY_QUOTA; i++) quota.onGood();
    expect(quota.tokens).toBe(RETRY_QUOTA);
  });

  it('a steady half of answers failing never empties it; three in four do', () => {
    for (const [failing, dry] of [
      [1, false],
      [3, true],
    ] as const) {
      const quota = new RetryQuota();
      let ranDry = false;
      // Each good answer comes with `failing` failed ones, each retried.
      for (let round = 0; round < 10 * RETRY_QUOTA; round++) {
        quota.onGood();
        for (let i = 0; i < failing; i++) if (!quota.take()) ranDry = true;
      }
      expect(ranDry).toBe(dry);
    }
  });
});

function setup() {
  const clock = new VirtualClock();
  const changes: ThrottleChange[] = [];
  const throttle = new Throttle({
    ceiling: 64,
    now: clock.read,
    setTimer: clock.setTimer,
    onChange: (change) => changes.push(change),
    stallMs: 10_000,
  });
  const signal = new AbortController().signal;
  const acquire = (kind: 'first' | 'retry' = 'first') => {
    const state: { permit: Permit | undefined; settled: boolean } = { permit: undefined, settled: false };
    void throttle.acquire(kind, signal).then((permit) => {
      state.permit = permit;
      state.settled = true;
    });
    return state;
  };
  /** `count` first attempts at once, each answered with `feedback`. */
  const answered = async (count: number, feedback: Feedback) => {
    const wave = Array.from({ length: count }, () => acquire());
    await settle();
    for (const request of wave) (request.permit as Permit).release(feedback);
  };
  return { clock, changes, throttle, acquire, answered };
}

describe('Throttle.spareRetry', () => {
  it('pays only while the service serves the run: never before a good answer, nor once it is down', async () => {
    const { throttle, answered } = setup();
    expect(throttle.spareRetry()).toBe(false);
    await answered(1, ok);
    expect(throttle.spareRetry()).toBe(true);
    await answered(OUTAGE_AFTER_ANSWERS, badGateway);
    expect(throttle.outage()).toBe(true);
    expect(throttle.spareRetry()).toBe(false);
  });
});

describe('Throttle.stop and a give-up end every wait', () => {
  it('stop(reason): waiting acquisitions get nothing, `stopped` aborts, gaveUp() says the reason, and no give-up is reported', async () => {
    const { throttle, changes, acquire, answered, clock } = setup();
    await answered(OUTAGE_AFTER_ANSWERS, badGateway);
    const waiting = acquire('retry');
    await clock.advance(PROBE_EVERY_MS / 2);
    expect(waiting.settled).toBe(false);
    expect(throttle.stopped.aborted).toBe(false);
    throttle.stop('--max-duration 3s reached');
    await settle();
    expect(waiting).toEqual({ permit: undefined, settled: true });
    expect(throttle.stopped.aborted).toBe(true);
    expect(throttle.gaveUp()).toBe('--max-duration 3s reached');
    expect(changes.filter((change) => change.kind === 'gave-up')).toEqual([]);
    expect(await throttle.acquire('first', new AbortController().signal)).toBeUndefined();
  });

  it('giving up aborts `stopped` too: a retry waiting out its backoff need not wait on', async () => {
    const { throttle, clock, acquire } = setup();
    await clock.advance(1);
    await (async () => {
      const wave = Array.from({ length: 2 }, () => acquire());
      await settle();
      for (const request of wave)
        (request.permit as Permit).release({ kind: 'refused', load: 'rate-limited', status: 429, retryAfterMs: undefined });
    })();
    await clock.advance(10_000);
    const last = acquire('retry');
    await clock.advance(10_000);
    (last.permit as Permit | undefined)?.release({ kind: 'refused', load: 'rate-limited', status: 429, retryAfterMs: undefined });
    expect(throttle.gaveUp()).toMatch(/^the server refused all 3 requests it answered over \d+ s \(429\)$/);
    expect(throttle.stopped.aborted).toBe(true);
  });
});

describe('Throttle.downFor', () => {
  it('while the service is down, for how long so far; nothing before, after it is back, or once stopped', async () => {
    const { throttle, clock, acquire, answered } = setup();
    expect(throttle.downFor()).toBeUndefined();
    await clock.advance(5000);
    await answered(OUTAGE_AFTER_ANSWERS, badGateway);
    expect(throttle.downFor()).toBe(0);
    await clock.advance(12_000);
    expect(throttle.downFor()).toBe(12_000);
    const probe = acquire('retry');
    await clock.advance(PROBE_EVERY_MS);
    (probe.permit as Permit).release(ok);
    expect(throttle.outage()).toBe(false);
    expect(throttle.downFor()).toBeUndefined();

    const stopped = setup();
    await stopped.answered(OUTAGE_AFTER_ANSWERS, badGateway);
    expect(stopped.throttle.downFor()).toBe(0);
    stopped.throttle.stop('--max-duration 1m reached');
    expect(stopped.throttle.downFor()).toBeUndefined();
  });
});
