// Issue 41 item 3: a slow run says why. The throttle says what cut the pace as data
// (Throttle.pace()); the progress line and the --progress line word it after the count. Driven
// here through a real throttle on a virtual clock, then worded; and the words for each cause.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Throttle } from '../../../src/batch/throttle/throttle.js';
import { type Feedback, feedbackFor, type Permit } from '../../../src/http/gate.js';
import { createIO } from '../../../src/ui/io.js';
import { type SlowPace, whySlow } from '../../../src/ui/pace-words.js';
import { type ProgressState, startProgress, statusLine } from '../../../src/ui/progress.js';
import { queueingServer, simulateBatch, VirtualClock } from '../batch/throttle/virtual-batch.js';

const ok: Feedback = { kind: 'ok' };

/** A throttle of a fixed `ceiling` that has granted `ceiling` permits at once, on a virtual clock. */
async function granted(ceiling: number) {
  const clock = new VirtualClock();
  const throttle = new Throttle({ ceiling, now: clock.read, setTimer: clock.setTimer });
  const signal = new AbortController().signal;
  const permits: Permit[] = [];
  for (let i = 0; i < ceiling; i++) permits.push((await throttle.acquire('first', signal)) as Permit);
  return { clock, throttle, permits };
}

/** A calm pace: nothing cut, nothing refused. */
const CALM: SlowPace = {
  cut: false,
  answers: 100,
  overloaded: 0,
  overloadedStatus: undefined,
  rateLimited: 0,
  rateLimitedStatus: undefined,
  failing: 0,
  retryAfterMs: undefined,
  latencyCuts: 0,
  pause: undefined,
  downForMs: undefined,
};

describe('the throttle says why the pace is cut, and the words name it', () => {
  it('30% of answers 503 with Retry-After: 1: "503 on 30% of requests (Retry-After 1s)"', async () => {
    const { clock, throttle, permits } = await granted(10);
    // Answered over a second: 7 admitted, 3 refused for load, as `plantstore sandbox --fail 30%` does.
    permits.forEach((permit, i) => {
      clock.now = 100 * i;
      permit.release(i % 3 === 1 ? feedbackFor(503, 1000) : ok);
    });
    const pace = throttle.pace();
    expect(pace).toMatchObject({ cut: true, answers: 10, overloaded: 3, overloadedStatus: 503, retryAfterMs: 1000 });
    expect(whySlow(pace)).toBe('503 on 30% of requests (Retry-After 1s)');
    expect(statusLine(100, { done: 10, sent: 10, failed: 0, pace }, 1000, 10)).toBe(
      '10/100 (10%), 503 on 30% of requests (Retry-After 1s), 10/s, 0:01 elapsed, 0:09 left, 0 failed',
    );
  });

  it('a rate-limited server (429): its share, and the pace is cut', async () => {
    const { clock, throttle, permits } = await granted(5);
    permits.forEach((permit, i) => {
      clock.now = 10 * i;
      permit.release(i === 4 ? feedbackFor(429, undefined) : ok);
    });
    expect(whySlow(throttle.pace())).toBe('429 on 20% of requests');
  });

  it('--concurrency auto against a server of 4 slots (50 ms each): the limit is cut for a queue, "latency rising"', async () => {
    const run = await simulateBatch({ ids: 500, ceiling: 'auto', server: queueingServer(4, 50) });
    expect(run.changes.some((change) => change.kind === 'limit' && change.reason === 'queueing')).toBe(true);
    expect(run.throttle.pace()).toMatchObject({ cut: true, overloaded: 0, rateLimited: 0 });
    expect(whySlow(run.throttle.pace())).toBe('latency rising');
  });

  it('a pace that is not cut says nothing, and a cause older than the window is not named', async () => {
    const { throttle, permits } = await granted(4);
    for (const permit of permits) permit.release(ok);
    expect(throttle.pace().cut).toBe(false);
    expect(whySlow(throttle.pace())).toBeUndefined();

    const refused = await granted(4);
    refused.permits.forEach((permit, i) => {
      permit.release(i === 0 ? feedbackFor(503, 1000) : ok);
    });
    expect(whySlow(refused.throttle.pace())).toBe('503 on 25% of requests (Retry-After 1s)');
    refused.clock.now = 60_000;
    expect(whySlow(refused.throttle.pace())).toBeUndefined();
  });
});

describe('the words for each cause', () => {
  it.each<[string, Partial<SlowPace>, string | undefined]>([
    ['nothing cut', { overloaded: 30 }, undefined],
    ['503s', { cut: true, overloaded: 30, overloadedStatus: 503 }, '503 on 30% of requests'],
    ['a share under 1%', { cut: true, answers: 1000, rateLimited: 2, rateLimitedStatus: 429 }, '429 on <1% of requests'],
    [
      '503s and 429s, with the Retry-After they asked',
      { cut: true, overloaded: 10, overloadedStatus: 503, rateLimited: 5, rateLimitedStatus: 429, retryAfterMs: 2000 },
      '503 on 10% and 429 on 5% of requests (Retry-After 2s)',
    ],
    ['failures', { cut: true, failing: 20 }, '502/504 or no connection on 20% of requests'],
    ['a long Retry-After', { cut: true, pause: { leftMs: 24_300, reason: 'retry-after' } }, 'paused for Retry-After, 25s left'],
    ['latency rising', { cut: true, latencyCuts: 2 }, 'latency rising'],
    ['a second-long pause as refusals go on: the refusals say it', { cut: true, pause: { leftMs: 800, reason: 'refusing' } }, undefined],
    ['an outage has its own words (service down for 0:45)', { cut: true, overloaded: 100, downForMs: 45_000 }, undefined],
  ])('%s', (_name, state, words) => {
    expect(whySlow({ ...CALM, ...state })).toBe(words);
  });
});

describe('at a terminal, 80 columns', () => {
  it('the cause stays when the line is narrowed: the time so far, the limit, the rate and the time left go first', () => {
    const pace: SlowPace = { ...CALM, cut: true, overloaded: 30, overloadedStatus: 503, retryAfterMs: 1000 };
    vi.useFakeTimers({ now: 0 });
    let written = '';
    const stderr = { write: (text: string) => (written += text), isTTY: true, columns: 80 };
    const io = createIO({ write: () => true }, stderr, false, { NO_COLOR: '1' });
    const progress = startProgress(io, 400, () => ({ done: 12, sent: 12, failed: 0, limit: 1, ceiling: 64, pace }));
    vi.advanceTimersByTime(2000);
    progress.stop();
    vi.useRealTimers();
    expect(written).toContain('\r\x1b[Kdeleting… 12/400 (3%), 503 on 30% of requests (Retry-After 1s)');
    for (const drawn of written.split('\r\x1b[K')) expect(drawn.length).toBeLessThan(80);
  });
});

describe('outside a terminal (--progress)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a new cause gets a line at once, not 30 s later; at most one such line between two regular ones', () => {
    let written = '';
    const stderr = { write: (text: string) => (written += text), isTTY: false, columns: undefined };
    const io = createIO({ write: () => true }, stderr, false, { NO_COLOR: '1' });
    const state: ProgressState = { done: 0, sent: 0, failed: 0 };
    const progress = startProgress(io, 100, () => state, { plain: true });
    vi.advanceTimersByTime(5000);
    expect(written).toBe('');
    state.done = 10;
    state.sent = 10;
    state.pace = { ...CALM, cut: true, overloaded: 30, overloadedStatus: 503, retryAfterMs: 1000 };
    vi.advanceTimersByTime(1000);
    expect(written).toBe('progress: 10/100 (10%), 503 on 30% of requests (Retry-After 1s), 1.7/s, 0:06 elapsed, 0:54 left, 0 failed\n');
    // Another cause before the next regular line: it waits for that line.
    state.pace = { ...state.pace, latencyCuts: 1 };
    vi.advanceTimersByTime(5000);
    expect(written.split('\n').filter(Boolean)).toHaveLength(1);
    vi.advanceTimersByTime(30_000);
    expect(written.split('\n').filter(Boolean)).toHaveLength(2);
    progress.stop();
  });
});
