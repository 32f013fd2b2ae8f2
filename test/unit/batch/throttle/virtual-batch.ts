// Virtual time for the throttle's tests, and a batch run through it: the throttle drives the
// ordered pool, as a batch run does, against a server model, in a fraction of a second.
import { expect } from 'vitest';
import { runOrdered } from '../../../../src/batch/ordered-pool.js';
import { Throttle, type ThrottleChange, type ThrottleOptions, type ThrottleStats } from '../../../../src/batch/throttle/throttle.js';
import { feedbackFor } from '../../../../src/http/gate.js';
import { REFUSALS_PER_RETRY } from '../../../../src/http/retry.js';
import { seeded } from '../../../helpers/seeded.js';

interface TimerEvent {
  at: number;
  order: number;
  run: () => void;
  cancelled: boolean;
}

/** Virtual time: timers run in order of due time (then of creation), and promises settle between them. */
export class VirtualClock {
  now = 0;
  #created = 0;
  readonly #heap: TimerEvent[] = [];

  readonly read = (): number => this.now;

  readonly setTimer = (run: () => void, delayMs: number): (() => void) => {
    const event = { at: this.now + delayMs, order: this.#created++, run, cancelled: false };
    this.#push(event);
    return () => {
      event.cancelled = true;
    };
  };

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  get pendingTimers(): number {
    return this.#heap.filter((event) => !event.cancelled).length;
  }

  /** Runs the next timer; false when none is left. */
  async step(): Promise<boolean> {
    await settle();
    const event = this.#pop();
    if (event === undefined) return false;
    if (!event.cancelled) {
      this.now = event.at;
      event.run();
    }
    await settle();
    return true;
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    await settle();
    while ((this.#heap[0]?.at ?? Number.POSITIVE_INFINITY) <= end) await this.step();
    this.now = end;
  }

  #push(event: TimerEvent): void {
    const heap = this.#heap;
    heap.push(event);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): TimerEvent | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let least = i;
        if (l < heap.length && before(heap[l]!, heap[least]!)) least = l;
        if (r < heap.length && before(heap[r]!, heap[least]!)) least = r;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }
}

function before(a: TimerEvent, b: TimerEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}

/** Lets every pending promise continuation run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface Answer {
  status: number;
  retryAfterMs?: number;
}
export type Server = (clock: VirtualClock) => Promise<Answer>;

/** How http/client.ts lets one id be refused with the default --retries 2. */
const MAX_REFUSALS_PER_ID = 2 * REFUSALS_PER_RETRY;

export interface BatchRun {
  requests: number;
  /** When each request started, on the virtual clock. */
  startedAt: number[];
  refused: number;
  accepted: number;
  failed: number;
  notSent: number;
  endMs: number;
  /** Most requests in flight from the client, over the run and after its first second. */
  maxInFlight: number;
  maxInFlightAfterFirstSecond: number;
  changes: ThrottleChange[];
  throttle: Throttle;
  /** The throttle's account of the run, read as it ended. */
  stats: ThrottleStats;
  gaveUp: string | undefined;
}

/**
 * Deletes `ids` ids through runOrdered with the throttle's hold, as the CLI does: each id sends
 * its first attempt, and after a refusal waits out the Retry-After and tries again as a retry,
 * until accepted, refused MAX_REFUSALS_PER_ID times, or the throttle gives up.
 */
export async function simulateBatch(options: {
  ids: number;
  ceiling: ThrottleOptions['ceiling'];
  server: Server;
  stallMs?: number;
  /**
   * The throttle's timers as Node's setTimeout runs them, this late: the delay rounded up to a
   * whole millisecond, and then this many ms more. Undefined: on time to the fraction.
   */
  timersLateMs?: number;
}): Promise<BatchRun> {
  const clock = new VirtualClock();
  const changes: ThrottleChange[] = [];
  const throttle = new Throttle({
    ceiling: options.ceiling,
    now: clock.read,
    setTimer:
      options.timersLateMs === undefined
        ? clock.setTimer
        : (run, delayMs) => clock.setTimer(run, Math.ceil(delayMs) + (options.timersLateMs as number)),
    onChange: (change) => changes.push(change),
    ...(options.stallMs === undefined ? {} : { stallMs: options.stallMs }),
  });
  const signal = new AbortController().signal;
  const tally = {
    requests: 0,
    refused: 0,
    accepted: 0,
    failed: 0,
    notSent: 0,
    endMs: 0,
    maxInFlight: 0,
    maxInFlightAfterFirstSecond: 0,
    startedAt: [] as number[],
  };
  let inFlight = 0;
  async function deleteOne(): Promise<string> {
    for (let kind: 'first' | 'retry' = 'first', refusals = 0; ; kind = 'retry') {
      const permit = await throttle.acquire(kind, signal);
      if (permit === undefined) {
        if (kind === 'retry') tally.failed += 1;
        else tally.notSent += 1;
        return 'not sent';
      }
      tally.requests += 1;
      tally.startedAt.push(clock.now);
      inFlight += 1;
      tally.maxInFlight = Math.max(tally.maxInFlight, inFlight);
      if (clock.now >= 1000) tally.maxInFlightAfterFirstSecond = Math.max(tally.maxInFlightAfterFirstSecond, inFlight);
      const answer = await options.server(clock);
      inFlight -= 1;
      permit.release(feedbackFor(answer.status, answer.retryAfterMs));
      tally.endMs = clock.now;
      if (answer.status < 300) {
        tally.accepted += 1;
        return 'deleted';
      }
      tally.refused += 1;
      refusals += 1;
      if (throttle.gaveUp() !== undefined || refusals >= MAX_REFUSALS_PER_ID) {
        tally.failed += 1;
        return 'failed';
      }
      await clock.sleep(answer.retryAfterMs ?? 250);
    }
  }
  let done = false;
  const run = runOrdered({
    items: Array.from({ length: options.ids }, (_, i) => i),
    hold: (resume) => throttle.hold(resume),
    run: deleteOne,
    emit() {},
    notStarted: () => 'not started',
  }).then(() => {
    done = true;
  });
  while (!done) {
    if (!(await clock.step())) break;
  }
  await run;
  const stats = throttle.stats();
  const gaveUp = throttle.gaveUp();
  throttle.close();
  expect(done).toBe(true);
  expect(clock.pendingTimers).toBe(0);
  return { ...tally, changes, throttle, stats, gaveUp };
}

/**
 * Serves `slots` requests at once, each taking `latencyMs` ± `jitter` of it (seeded), and queues
 * the rest in arrival order: past `slots` in flight, latency grows by the time spent waiting.
 * `queueing` collects each request's wait, for the mean. Without jitter the answers come in
 * lockstep waves, which no real server keeps.
 */
export function queueingServer(slots: number, latencyMs: number, options: { jitter?: number; queueing?: number[] } = {}): Server {
  const { jitter = 0.1, queueing = [] } = options;
  const random = seeded(1);
  const freeAt: number[] = Array.from({ length: slots }, () => 0);
  return async (clock) => {
    const serviceMs = latencyMs * (1 + jitter * (2 * random() - 1));
    let earliest = 0;
    for (let i = 1; i < freeAt.length; i += 1) if ((freeAt[i] as number) < (freeAt[earliest] as number)) earliest = i;
    const start = Math.max(clock.now, freeAt[earliest] as number);
    freeAt[earliest] = start + serviceMs;
    queueing.push(start - clock.now);
    await clock.sleep(start + serviceMs - clock.now);
    return { status: 204 };
  };
}

/** Serves `slots` at a time, each taking `serviceMs`; sheds the rest at once with 503 + Retry-After 1 s. */
export function sheddingServer(slots: number, serviceMs: number): Server {
  let busy = 0;
  return async (clock) => {
    if (busy >= slots) return { status: 503, retryAfterMs: 1000 };
    busy += 1;
    await clock.sleep(serviceMs);
    busy -= 1;
    return { status: 204 };
  };
}

/** A token bucket: `perSecond` refill, `capacity` burst; 429 + Retry-After 1 s when empty. */
export function tokenBucketServer(perSecond: number, capacity: number, latencyMs: number): Server {
  let tokens = capacity;
  let refilledAt = 0;
  return async (clock) => {
    tokens = Math.min(capacity, tokens + ((clock.now - refilledAt) * perSecond) / 1000);
    refilledAt = clock.now;
    const admitted = tokens >= 1;
    if (admitted) tokens -= 1;
    await clock.sleep(latencyMs);
    return admitted ? { status: 204 } : { status: 429, retryAfterMs: 1000 };
  };
}
