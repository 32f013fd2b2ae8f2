import { describe, expect, it } from 'vitest';
import {
  cubicGrowth,
  LATER_RATE_DECREASE,
  PROBE_DOUBLING_MS,
  PROBE_DOUBLINGS,
  RATE_DECREASE,
  RATE_RECOVERY_S,
} from '../../../../src/batch/throttle/adaptive-rate.js';
import { CONCURRENCY_DECREASE, CONCURRENCY_INCREASE_AFTER } from '../../../../src/batch/throttle/concurrency-limit.js';
import { DEFAULT_PAUSE_MS } from '../../../../src/batch/throttle/pause.js';
import { Throttle, type ThrottleChange, type ThrottleOptions } from '../../../../src/batch/throttle/throttle.js';
import { type Feedback, feedbackFor, type Permit } from '../../../../src/http/gate.js';
import { type Server, settle, sheddingServer, simulateBatch, tokenBucketServer, VirtualClock } from './virtual-batch.js';

function setup(options: Partial<ThrottleOptions> = {}) {
  const clock = new VirtualClock();
  const changes: ThrottleChange[] = [];
  const throttle = new Throttle({
    ceiling: 8,
    now: () => clock.now,
    setTimer: clock.setTimer,
    onChange: (change) => changes.push(change),
    ...options,
  });
  const signal = new AbortController().signal;
  /** A permit that the test expects at once: granted when asked for, before anything else can run. */
  const now = async (kind: 'first' | 'retry' = 'first'): Promise<Permit> => {
    let permit: Permit | undefined;
    void throttle.acquire(kind, signal).then((granted) => {
      permit = granted;
    });
    await Promise.resolve();
    if (permit === undefined) throw new Error('expected a permit at once');
    return permit;
  };
  /** Tracks an acquisition that has to wait. */
  const later = (kind: 'first' | 'retry' = 'first', on: AbortSignal = signal) => {
    const acquired = throttle.acquire(kind, on);
    const state: { permit: Permit | undefined; settled: boolean } = { permit: undefined, settled: false };
    acquired.then((permit) => {
      state.permit = permit;
      state.settled = true;
    });
    return state;
  };
  /** A permit, at once or once the virtual clock lets it go. */
  const next = async (kind: 'first' | 'retry' = 'first'): Promise<Permit> => {
    const acquired = throttle.acquire(kind, signal);
    let permit: Permit | undefined;
    let settled = false;
    acquired.then((p) => {
      permit = p;
      settled = true;
    });
    while (!settled) await clock.step();
    if (permit === undefined) throw new Error('expected a permit');
    return permit;
  };
  return { clock, changes, throttle, signal, now, later, next };
}

const ok: Feedback = { kind: 'ok' };
const neutral: Feedback = { kind: 'neutral' };
const refused = (status: 429 | 503, retryAfterMs?: number): Feedback => feedbackFor(status, retryAfterMs);

describe('Throttle: gates', () => {
  it('hands out a permit at once, with no timer, while every gate is open', async () => {
    const { clock, now } = setup();
    clock.now = 42;
    const permit = await now();
    expect(permit.startedAt).toBe(42);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a resend by the HTTP layer counts against --rate: the next start waits its spacing', async () => {
    const { clock, throttle, now, next } = setup({ rate: { count: 10, periodMs: 1000 } });
    (await now()).release(ok); // at 0
    clock.now = 100;
    throttle.resent(); // undici sent a request again on its own, at 100
    const permit = await next();
    expect(permit.startedAt).toBe(200);
  });

  it('never has more than the ceiling in flight; a release lets the next one go', async () => {
    const { throttle, now, later } = setup({ ceiling: 3 });
    const permits = await Promise.all([now(), now(), now()]);
    const waiting = later();
    await settle();
    expect(waiting.settled).toBe(false);
    permits[0]?.release(neutral);
    await settle();
    expect(waiting.permit).toBeDefined();
    expect(throttle.stats().concurrencyLimit).toBe(3);
  });

  it('serves retries before first attempts, each kind in arrival order', async () => {
    const { now, later } = setup({ ceiling: 1 });
    const busy = await now();
    const order: string[] = [];
    const queued = { a: later('first'), b: later('first'), c: later('retry'), d: later('retry') };
    let current = busy;
    for (let i = 0; i < 4; i += 1) {
      current.release(ok);
      await settle();
      const [name, state] = Object.entries(queued).find(([n, s]) => s.permit !== undefined && !order.includes(n)) ?? [];
      order.push(name as string);
      current = state?.permit as Permit;
    }
    expect(order).toEqual(['c', 'd', 'a', 'b']);
  });

  it('gives undefined at once for an aborted signal, and to waiters when their signal aborts; the timer goes', async () => {
    const { clock, throttle, now, later } = setup({ ceiling: 1 });
    const aborted = new AbortController();
    aborted.abort();
    expect(await throttle.acquire('first', aborted.signal)).toBeUndefined();
    // A pause makes the waiter wait on a timer, not on a release.
    (await now()).release(refused(429, 5000));
    const interrupt = new AbortController();
    const waiting = later('retry', interrupt.signal);
    expect(clock.pendingTimers).toBe(1);
    interrupt.abort();
    await settle();
    expect(waiting).toEqual({ permit: undefined, settled: true });
    expect(clock.pendingTimers).toBe(0);
  });

  it('close() turns waiters away and clears the timer', async () => {
    const { clock, throttle, now, later, signal } = setup({ ceiling: 1 });
    (await now()).release(refused(429, 5000));
    const waiting = later();
    throttle.close();
    await settle();
    expect(waiting).toEqual({ permit: undefined, settled: true });
    expect(clock.pendingTimers).toBe(0);
    expect(await throttle.acquire('first', signal)).toBeUndefined();
    expect(throttle.gaveUp()).toBeUndefined();
  });

  it('a neutral answer changes nothing but the count in flight: no growth back, no end to a run of refusals', async () => {
    const { clock, throttle, changes, now } = setup({ ceiling: 4, stallMs: 10_000 });
    const [a, b] = await Promise.all([now(), now()]);
    b.release(refused(503, undefined));
    a.release(neutral);
    const after503 = throttle.stats();
    expect(after503.concurrencyLimit).toBe(1);
    for (let i = 0; i < 100; i += 1) (await now()).release(neutral);
    expect(throttle.stats()).toEqual(after503);
    expect(changes).toHaveLength(1);
    clock.now = 10_000;
    (await now()).release(refused(503, undefined));
    expect(throttle.gaveUp()).toBeDefined();
  });
});

describe('Throttle: admitting, which prices a refusal for http/client.ts', () => {
  it('is true only while the server has admitted a request of the run in about the last second', async () => {
    const { clock, throttle, now } = setup({ ceiling: 4 });
    expect(throttle.admitting()).toBe(false);
    (await now()).release(refused(429, 0));
    expect(throttle.admitting()).toBe(false);
    clock.now = 5000;
    (await now()).release(ok);
    expect(throttle.admitting()).toBe(true);
    clock.now = 5000 + 2000;
    expect(throttle.admitting()).toBe(false);
  });
});

describe('Throttle: 429 cuts the rate', () => {
  /** 60 in flight from time 0; at 500 ms, 50 answer ok and the 51st is refused: 100/s admitted. */
  async function cutAtHalfSecond() {
    const t = setup({ ceiling: 64 });
    const permits = await Promise.all(Array.from({ length: 60 }, () => t.now()));
    // The server admits 100/s: fifty answers over the first half second, one every 10 ms.
    for (const [i, permit] of permits.slice(0, 50).entries()) {
      t.clock.now = 10 * (i + 1);
      permit.release(ok);
    }
    permits[50]?.release(refused(429, 1000));
    return { ...t, inFlight: permits.slice(51) };
  }

  it('to RATE_DECREASE times the admitted rate, and paces starts at that rate', async () => {
    const { clock, throttle, changes, now, later } = await cutAtHalfSecond();
    expect(throttle.stats().ratePerSecond).toBeCloseTo(RATE_DECREASE * 100);
    expect(changes).toEqual([{ kind: 'slowed', status: 429, ratePerSecond: throttle.stats().ratePerSecond }]);
    await now();
    const waiting = later();
    const spacing = 1000 / (RATE_DECREASE * 100);
    await clock.advance(spacing - 0.5);
    expect(waiting.settled).toBe(false);
    await clock.advance(1);
    expect(waiting.permit?.startedAt).toBeCloseTo(500 + spacing);
  });

  it('once per round trip: refusals of requests already in flight at the cut do not cut again', async () => {
    const { clock, throttle, inFlight, now } = await cutAtHalfSecond();
    const rate = throttle.stats().ratePerSecond;
    for (const permit of inFlight) permit.release(refused(429, 1000));
    expect(throttle.stats()).toMatchObject({ rateCuts: 1, refusals: 10, ratePerSecond: rate });
    // A request sent after the cut and refused is news: it cuts again, from the lower rate.
    const after = await now();
    clock.now += 10;
    after.release(refused(429, 1000));
    expect(throttle.stats().rateCuts).toBe(2);
    expect(throttle.stats().ratePerSecond).toBeCloseTo(LATER_RATE_DECREASE * (rate as number));
  });

  it('after the first cut, the rate doubles every PROBE_DOUBLING_MS of good answers until the server pushes back (slow start)', async () => {
    const { clock, throttle, inFlight, next } = await cutAtHalfSecond();
    for (const permit of inFlight) permit.release(ok);
    const from = throttle.stats().ratePerSecond as number;
    while (clock.now < 500 + 2 * PROBE_DOUBLING_MS) (await next()).release(ok);
    expect(throttle.stats().ratePerSecond).toBeGreaterThanOrEqual(4 * from);
    expect(throttle.stats().ratePerSecond).toBeLessThan(5 * from);
    // Pushed back again: a cut from what the server admitted, and no more doubling.
    (await next()).release(refused(429, 1000));
    const cut = throttle.stats().ratePerSecond as number;
    expect(cut).toBeLessThan(4 * from);
    await clock.advance(4 * PROBE_DOUBLING_MS);
    expect(throttle.stats().ratePerSecond).toBe(cut);
  });

  it('a slow start that doubles PROBE_DOUBLINGS times without a refusal ends: the first refusal was a fluke', async () => {
    const { clock, throttle, changes, inFlight, next } = await cutAtHalfSecond();
    for (const permit of inFlight) permit.release(ok);
    const cutAt = clock.now;
    while (clock.now < cutAt + PROBE_DOUBLINGS * PROBE_DOUBLING_MS) (await next()).release(ok);
    (await next()).release(ok);
    expect(throttle.stats().ratePerSecond).toBeUndefined();
    expect(changes.at(-1)).toEqual({ kind: 'recovered' });
  });

  it('after a later cut, good answers bring the rate back to where the server pushed back, then past it, and recovery is reported', async () => {
    const { clock, throttle, changes, inFlight, next } = await cutAtHalfSecond();
    for (const permit of inFlight) permit.release(ok);
    // A refusal to a request sent after the first cut ends the slow start.
    (await next()).release(refused(429, 1000));
    const cutFrom = (throttle.stats().ratePerSecond as number) / LATER_RATE_DECREASE;
    const rates: number[] = [];
    // Answers as fast as the pacing lets requests go, for RATE_RECOVERY_S + 3 seconds.
    const until = clock.now + (RATE_RECOVERY_S + 3) * 1000;
    while (clock.now < until) {
      (await next()).release(ok);
      rates.push(throttle.stats().ratePerSecond as number);
    }
    // Never down, back to the rate at the cut within about RATE_RECOVERY_S, then past it.
    expect(rates.every((rate, i) => i === 0 || rate >= (rates[i - 1] as number))).toBe(true);
    const backAt = rates.findIndex((rate) => rate >= cutFrom - 0.1);
    expect(backAt).toBeGreaterThan(0);
    expect(rates.slice(0, backAt).reduce((seconds, rate) => seconds + 1 / rate, 0)).toBeCloseTo(RATE_RECOVERY_S, 0);
    expect(changes.at(-1)).toEqual({ kind: 'recovered' });
    expect(rates.at(-1)).toBeGreaterThanOrEqual(2 * cutFrom);
  });

  it('follows a cubic: RATE_DECREASE at the cut, level at 1 after RATE_RECOVERY_S, symmetric around it', () => {
    expect(cubicGrowth(0)).toBeCloseTo(RATE_DECREASE);
    expect(cubicGrowth(RATE_RECOVERY_S)).toBe(1);
    for (const x of [0.5, 1, 1.5, 3]) expect(cubicGrowth(RATE_RECOVERY_S + x) - 1).toBeCloseTo(1 - cubicGrowth(RATE_RECOVERY_S - x));
  });
});

describe('Throttle: a 429 with nothing admitted lately', () => {
  it('pauses for its Retry-After instead of cutting from nothing, then starts slowly from what was admitted by then', async () => {
    const { clock, throttle, changes, next } = setup({ ceiling: 64 });
    const permits = await Promise.all(Array.from({ length: 21 }, () => next()));
    clock.now += 5;
    permits[20]?.release(refused(429, 1000));
    expect(changes).toEqual([{ kind: 'paused', forMs: 1000, reason: 'retry-after' }]);
    // The other twenty were admitted after all, and answered during the pause.
    clock.now += 15;
    for (const permit of permits.slice(0, 20)) permit.release(ok);
    const after = await next();
    expect(after.startedAt).toBe(1005);
    expect(changes.at(-1)).toMatchObject({ kind: 'slowed', status: 429 });
    // Twenty admitted in the second it waited: the slow start begins from 0.7 × 20/s.
    expect(throttle.stats().ratePerSecond).toBeCloseTo(RATE_DECREASE * 20);
  });
});

describe('Throttle: 503 cuts the requests in flight', () => {
  it('to CONCURRENCY_DECREASE times the count in flight when the refused one was sent, once per round trip', async () => {
    const { throttle, changes, now, later } = setup({ ceiling: 10 });
    const permits = await Promise.all(Array.from({ length: 10 }, () => now()));
    // The server took five; the sixth was one too many.
    permits[5]?.release(refused(503, 1000));
    const limit = Math.floor(CONCURRENCY_DECREASE * 6);
    expect(changes).toEqual([{ kind: 'concurrency', status: 503, limit }]);
    for (const permit of permits.slice(6)) permit.release(refused(503, 1000));
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: limit, concurrencyCuts: 1, rateCuts: 0, ratePerSecond: undefined });
    // Five still in flight: nothing more starts until fewer than the limit are.
    const waiting = later();
    permits[0]?.release(ok);
    await settle();
    expect(waiting.settled).toBe(false);
    permits[1]?.release(ok);
    await settle();
    expect(waiting.permit).toBeDefined();
  });

  it('grows back by one after CONCURRENCY_INCREASE_AFTER × the limit good answers in a row, up to the ceiling', async () => {
    const { throttle, now } = setup({ ceiling: 4 });
    const first = await Promise.all([now(), now(), now(), now()]);
    first[1]?.release(refused(503, undefined));
    for (const permit of [first[0], first[2], first[3]]) permit?.release(ok);
    expect(throttle.stats().concurrencyLimit).toBe(1);
    const limits: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      (await now()).release(ok);
      limits.push(throttle.stats().concurrencyLimit);
    }
    // 10 answers at 1 (three went before), 20 at 2, 30 at 3, then the ceiling.
    const counted = 3;
    expect(limits.indexOf(2)).toBe(CONCURRENCY_INCREASE_AFTER * 1 - counted - 1);
    expect(limits.indexOf(3)).toBe(CONCURRENCY_INCREASE_AFTER * 3 - counted - 1);
    expect(limits.indexOf(4)).toBe(CONCURRENCY_INCREASE_AFTER * 6 - counted - 1);
    expect(Math.max(...limits)).toBe(4);
  });

  it('a refusal restarts the count of good answers, even one that does not cut', async () => {
    const { throttle, now } = setup({ ceiling: 4 });
    const [a, b, c, d] = await Promise.all([now(), now(), now(), now()]);
    c.release(refused(503, undefined));
    const limit = Math.floor(CONCURRENCY_DECREASE * 3);
    a.release(ok);
    b.release(ok);
    // Sent before the cut: no second cut, but the streak of good answers is broken.
    d.release(refused(503, undefined));
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: limit, concurrencyCuts: 1 });
    for (let i = 0; i < CONCURRENCY_INCREASE_AFTER * limit - 1; i += 1) (await now()).release(ok);
    expect(throttle.stats().concurrencyLimit).toBe(limit);
    (await now()).release(ok);
    expect(throttle.stats().concurrencyLimit).toBe(limit + 1);
  });

  it('at a limit of one, a 503 cuts the rate too', async () => {
    const { throttle, now } = setup({ ceiling: 1 });
    (await now()).release(ok);
    (await now()).release(refused(503, undefined));
    expect(throttle.stats()).toMatchObject({ concurrencyLimit: 1, concurrencyCuts: 0, rateCuts: 1 });
    expect(throttle.stats().ratePerSecond).toBeDefined();
  });
});

describe('Throttle: pauses of the whole run', () => {
  it.each([
    ['first', 429],
    ['retry', 503],
  ] as const)('a Retry-After over LONG_RETRY_AFTER_MS holds back every %s attempt (%i)', async (kind, status) => {
    const { clock, throttle, changes, now, later } = setup();
    (await now()).release(ok);
    (await now()).release(refused(status, 5000));
    expect(changes.at(-1)).toEqual({ kind: 'paused', forMs: 5000, reason: 'retry-after' });
    const waiting = later(kind);
    expect(throttle.hold(() => {})).toBe(true);
    await clock.advance(4999);
    expect(waiting.settled).toBe(false);
    await clock.advance(1);
    expect(waiting.permit?.startedAt).toBe(5000);
    expect(throttle.stats()).toMatchObject({ pauses: 1, pausedMs: 5000 });
  });

  it('never longer than maxPauseMs', async () => {
    const { clock, now, later } = setup({ maxPauseMs: 3000 });
    (await now()).release(refused(429, 3_600_000));
    const waiting = later();
    await clock.advance(3000);
    expect(waiting.permit?.startedAt).toBe(3000);
  });

  it.each([
    [undefined, DEFAULT_PAUSE_MS],
    [1500, 1500],
  ])('refusals go on after two cuts with no good answer between: pause (Retry-After %s)', async (retryAfterMs, pauseMs) => {
    const { clock, throttle, changes, next } = setup({ ceiling: 4 });
    // One admitted answer: the server's rate is known. Then each request is sent after the previous cut, and refused.
    const first = await next();
    clock.now += 5;
    first.release(ok);
    for (let i = 0; i < 3; i += 1) {
      const permit = await next();
      clock.now += 5;
      permit.release(refused(429, retryAfterMs));
    }
    // The paced starts fall between milliseconds (pacing.ts): the pause is its length to within a float's rounding.
    expect(changes.at(-1)).toMatchObject({ kind: 'paused', reason: 'refusing' });
    expect((changes.at(-1) as { forMs: number }).forMs).toBeCloseTo(pauseMs, 6);
    const pausedAt = clock.now;
    expect((await next('retry')).startedAt).toBeCloseTo(pausedAt + pauseMs, 6);
    // Counted once the retry had waited for it.
    expect(throttle.stats()).toMatchObject({ rateCuts: 2, pauses: 1 });
    expect(throttle.stats().pausedMs).toBeCloseTo(pauseMs, 6);
  });

  it('a pause nothing waited for is not reported: the run stopped at once', async () => {
    const { clock, throttle, changes, now } = setup({ ceiling: 4, maxPauseMs: 3000 });
    // Retry-After far past --max-retry-wait: the client fails these ids at once; no other id waits.
    for (const permit of await Promise.all([now(), now()])) permit.release(refused(429, 1e23));
    expect(changes).toContainEqual({ kind: 'paused', forMs: 3000, reason: 'retry-after' });
    clock.now += 2;
    throttle.close();
    expect(throttle.stats()).toMatchObject({ refusals: 2, pauses: 0, pausedMs: 0 });
  });

  it('a pause cut short by the end of the run is reported for as long as it lasted', async () => {
    const { clock, throttle, now, later } = setup({ ceiling: 4, maxPauseMs: 3000 });
    (await now()).release(refused(429, 60_000));
    later();
    await clock.advance(1200);
    throttle.close();
    await clock.advance(5000);
    expect(throttle.stats()).toMatchObject({ pauses: 1, pausedMs: 1200 });
  });

  it('a good answer between the cuts means no pause', async () => {
    const { clock, throttle, next } = setup({ ceiling: 4 });
    for (const feedback of [ok, refused(429, 1000), ok, refused(429, 1000), refused(429, 1000)]) {
      const permit = await next();
      clock.now += 5;
      permit.release(feedback);
    }
    expect(throttle.stats()).toMatchObject({ rateCuts: 3, pauses: 0 });
  });
});

describe('Throttle: gives up on a server that refuses everything', () => {
  it('after stallMs of refusals with no good answer; waiters, the pool and later calls get nothing', async () => {
    const { clock, throttle, changes, now, later } = setup({ ceiling: 3, stallMs: 10_000 });
    const [a, b, c] = await Promise.all([now(), now(), now()]);
    a.release(refused(429, 1000));
    clock.now = 9999;
    // The count runs from the first refusal; this one also pauses the run, so a retry waits.
    b.release(refused(429, 5000));
    expect(throttle.gaveUp()).toBeUndefined();
    const waiting = later('retry');
    let resumed = 0;
    expect(throttle.hold(() => resumed++)).toBe(true);
    clock.now = 10_000;
    c.release(refused(429, 1000));
    await settle();
    expect(throttle.gaveUp()).toBe('the server refused all 3 requests it answered over 10 s (429)');
    expect(changes.at(-1)).toEqual({ kind: 'gave-up', reason: 'the server refused all 3 requests it answered over 10 s (429)' });
    expect(waiting).toEqual({ permit: undefined, settled: true });
    expect(resumed).toBe(1);
    expect(throttle.hold(() => resumed++)).toBe(false);
    expect(await throttle.acquire('first', new AbortController().signal)).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a good answer starts the count again', async () => {
    const { clock, throttle, now } = setup({ stallMs: 10_000 });
    const [a, b, c, d] = await Promise.all([now(), now(), now(), now()]);
    a.release(refused(429, 1000));
    clock.now = 5000;
    b.release(ok);
    clock.now = 14_000;
    c.release(refused(429, 1000));
    expect(throttle.gaveUp()).toBeUndefined();
    clock.now = 24_000;
    d.release(refused(429, 1000));
    expect(throttle.gaveUp()).toBeDefined();
  });
});

describe('Throttle: hold, for the ordered pool', () => {
  it('is false while a first attempt would go at once; true when full, and resumes once a permit frees', async () => {
    const { throttle, now } = setup({ ceiling: 2 });
    let resumed = 0;
    expect(throttle.hold(() => resumed++)).toBe(false);
    const permit = await now();
    await now();
    expect(throttle.hold(() => resumed++)).toBe(true);
    // Never from inside hold() itself.
    expect(resumed).toBe(0);
    permit.release(ok);
    expect(resumed).toBe(1);
  });

  it('holds new items while retries wait, and resumes after they are served', async () => {
    const { throttle, now, later } = setup({ ceiling: 1 });
    const busy = await now();
    const retry = later('retry');
    let resumed = 0;
    expect(throttle.hold(() => resumed++)).toBe(true);
    busy.release(ok);
    await settle();
    expect(retry.permit).toBeDefined();
    expect(resumed).toBe(0);
    retry.permit?.release(ok);
    expect(resumed).toBe(1);
  });
});

describe('Throttle: --rate is a hard cap', () => {
  it('never more than count starts in any window, retries included', async () => {
    const rate = { count: 5, periodMs: 1000 };
    const { clock, throttle } = setup({ ceiling: 8, rate });
    const signal = new AbortController().signal;
    const starts: number[] = [];
    const kinds: string[] = [];
    // Eight workers; every third answer is a 502, retried after 300 ms.
    let answered = 0;
    const worker = async (): Promise<void> => {
      for (let kind: 'first' | 'retry' = 'first'; starts.length < 60; ) {
        const permit = await throttle.acquire(kind, signal);
        if (permit === undefined) return;
        starts.push(permit.startedAt);
        kinds.push(kind);
        await clock.sleep(7);
        answered += 1;
        const failed = answered % 3 === 0;
        permit.release(feedbackFor(failed ? 502 : 204));
        if (failed) await clock.sleep(300);
        kind = failed ? 'retry' : 'first';
      }
    };
    let finished = false;
    Promise.all(Array.from({ length: 8 }, worker)).then(() => {
      finished = true;
    });
    while (!finished && (await clock.step())) if (starts.length >= 60) throttle.close();
    expect(finished).toBe(true);
    const inWindowEndingAt = (t: number): number => starts.filter((s) => s > t - rate.periodMs && s <= t).length;
    for (const t of starts) expect(inWindowEndingAt(t)).toBeLessThanOrEqual(rate.count);
    // The cap was what held them back: full windows, retries among the starts.
    expect(starts.filter((t) => inWindowEndingAt(t) === rate.count).length).toBeGreaterThan(5);
    expect(kinds).toContain('retry');
  });
});

// Discrete-event simulations: the throttle drives the ordered pool, as a batch run does, against
// servers that behave like real ones. Virtual time, so each runs in a fraction of a second.

function refusingServer(latencyMs: number): Server {
  return async (clock) => {
    await clock.sleep(latencyMs);
    return { status: 429, retryAfterMs: 1000 };
  };
}

describe('Throttle: simulated servers', () => {
  it('a token bucket (100/s, burst 20, 429 + Retry-After 1 s) is used at nearly its rate, with few refusals and no pause', async () => {
    const result = await simulateBatch({ ids: 1500, ceiling: 64, server: tokenBucketServer(100, 20, 5) });
    expect(result.accepted).toBe(1500);
    const achievedPerSecond = result.accepted / (result.endMs / 1000);
    expect(achievedPerSecond).toBeGreaterThanOrEqual(0.85 * 100);
    expect(result.refused / result.requests).toBeLessThanOrEqual(0.1);
    expect(result.stats.pauses).toBe(0);
    expect(result.maxInFlight).toBeLessThanOrEqual(64);
  });

  it('a server that sheds load beyond 4 in flight (503 + Retry-After 1 s) is kept near 4 in flight', async () => {
    const result = await simulateBatch({ ids: 1000, ceiling: 32, server: sheddingServer(4, 20) });
    expect(result.accepted).toBe(1000);
    const idealMs = (1000 * 20) / 4;
    expect(result.endMs).toBeLessThanOrEqual(1.25 * idealMs);
    expect(result.refused / result.requests).toBeLessThanOrEqual(0.1);
  });

  it('a server that refuses everything: the throttle gives up after stallMs, in bounded time', async () => {
    const stallMs = 60_000;
    const result = await simulateBatch({ ids: 1000, ceiling: 64, server: refusingServer(5), stallMs });
    expect(result.gaveUp).toMatch(/^the server refused all \d+ requests it answered over 60 s \(429\)$/);
    expect(result.accepted).toBe(0);
    expect(result.failed + result.notSent).toBe(1000);
    expect(result.endMs).toBeGreaterThanOrEqual(stallMs);
    expect(result.endMs).toBeLessThanOrEqual(stallMs + 2 * DEFAULT_PAUSE_MS);
    // Pauses and the slowest rate keep the refused attempts few.
    expect(result.requests).toBeLessThan(200);
  });
});
