// A server with a capacity, in virtual time, for the concurrency limiter's tests: it serves at
// most `slots` requests at once, each for its latency, and queues the rest in arrival order, so
// an answer's latency is the base latency plus the time it waited. Optionally it answers 503 at
// once past a queue length. The client keeps as many requests in flight as the limiter allows.

import type { LatencyLimit, LimitChange } from '../../src/batch/adaptive/latency-limit.js';
import { seeded } from './seeded.js';

export interface ServerModel {
  slots: number;
  /** The time a request takes once served, in ms, by the time it arrives. */
  latencyMs: number | ((at: number) => number);
  /** ± this share of the latency, drawn from a seeded generator. */
  jitter?: number;
  /** Answer 503 (after 1 ms) when this many already wait. */
  shedPastQueue?: number;
  /** Another client: at `at`, it sends `requests` that each take `holdMs` once served, through the same queue. */
  otherClient?: { at: number; requests: number; holdMs: number };
}

export interface SimResult {
  changes: Array<LimitChange & { at: number }>;
  /** Answers the server processed, per second of virtual time (index = second). */
  perSecond: number[];
  refused: number;
  served: number;
  /** Most requests in flight from the client, after `maxInFlightAfterMs`. */
  maxInFlight: number;
  /** Mean time served requests waited in the server's queue. */
  meanQueueingMs: number;
  /** The limit at each virtual second (index = second). */
  limitAt: number[];
}

export interface SimOptions {
  server: ServerModel;
  durationMs: number;
  seed?: number;
  maxInFlightAfterMs?: number;
  /** Fixed instead of the limiter's, for comparison. */
  fixed?: number;
  /**
   * The client's own cost: each answer waits this many ms per request that was in flight when it
   * was sent before the client reads it (TLS and HTTP/2 work on a busy machine), so latency
   * rises with the load while the server queues nothing.
   */
  clientMsPerInFlight?: number;
  /**
   * Spells when the client is busy with other work (its first half second of TLS and compiling,
   * a collection): an answer that arrives within one is read `extraMs` late, whatever the load.
   */
  clientSlowSpells?: ReadonlyArray<{ fromMs: number; toMs: number; extraMs: number }>;
}

/** The clock the limiter must be built with, so its time is the simulation's. */
export class SimClock {
  now = 0;
  readonly read = (): number => this.now;
}

export function simulate(
  limiter: LatencyLimit | undefined,
  clock: SimClock,
  changes: SimResult['changes'],
  options: SimOptions,
): SimResult {
  const { server, durationMs } = options;
  const random = seeded(options.seed ?? 1);
  const slotFree = new MinHeap<number>((a, b) => a - b);
  for (let i = 0; i < server.slots; i += 1) slotFree.push(0);
  let otherPending = server.otherClient;
  const serviceStarts: number[] = [];
  const answers = new MinHeap<Answer>((a, b) => a.at - b.at || a.order - b.order);
  const result: SimResult = { changes, perSecond: [], refused: 0, served: 0, maxInFlight: 0, meanQueueingMs: 0, limitAt: [] };
  let inFlight = 0;
  let order = 0;
  let queueingSum = 0;
  const limitNow = (): number => options.fixed ?? (limiter as LatencyLimit).limit;

  const queue = (t: number, serviceMs: number): number => {
    const start = Math.max(t, slotFree.pop() as number);
    if (start > t) serviceStarts.push(start);
    slotFree.push(start + serviceMs);
    return start;
  };

  const send = (t: number): void => {
    inFlight += 1;
    if (t >= (options.maxInFlightAfterMs ?? 0)) result.maxInFlight = Math.max(result.maxInFlight, inFlight);
    while (serviceStarts.length > 0 && (serviceStarts[0] as number) <= t) serviceStarts.shift();
    if (otherPending !== undefined && t >= otherPending.at) {
      for (let i = 0; i < otherPending.requests; i += 1) queue(t, otherPending.holdMs);
      otherPending = undefined;
    }
    if (server.shedPastQueue !== undefined && serviceStarts.length >= server.shedPastQueue && (slotFree.peek() as number) > t) {
      answers.push({ at: t + 1, startedAt: t, inFlightAtStart: inFlight, refused: true, order: order++, queuedMs: 0 });
      return;
    }
    // The latency is drawn by the time of arrival: close enough for a latency that changes once.
    const base = typeof server.latencyMs === 'number' ? server.latencyMs : server.latencyMs(t);
    const latency = base * (1 + (server.jitter ?? 0) * (2 * random() - 1));
    const start = queue(t, latency);
    const arrives = start + latency + (options.clientMsPerInFlight ?? 0) * inFlight;
    const spell = options.clientSlowSpells?.find(({ fromMs, toMs }) => arrives >= fromMs && arrives < toMs);
    answers.push({
      at: arrives + (spell?.extraMs ?? 0),
      startedAt: t,
      inFlightAtStart: inFlight,
      refused: false,
      order: order++,
      queuedMs: start - t,
    });
  };

  while (inFlight < limitNow()) send(0);
  for (;;) {
    const answer = answers.pop();
    if (answer === undefined || answer.at >= durationMs) break;
    clock.now = answer.at;
    while (result.limitAt.length <= Math.floor(answer.at / 1000)) result.limitAt.push(limitNow());
    inFlight -= 1;
    if (answer.refused) {
      result.refused += 1;
      limiter?.onOverloaded(answer.inFlightAtStart);
    } else {
      result.served += 1;
      queueingSum += answer.queuedMs;
      const second = Math.floor(answer.at / 1000);
      while (result.perSecond.length <= second) result.perSecond.push(0);
      result.perSecond[second] = (result.perSecond[second] as number) + 1;
      limiter?.onAdmitted(answer.at - answer.startedAt, answer.inFlightAtStart);
    }
    // Serial like the real pool: each start sees the count the last one left.
    while (inFlight < limitNow()) send(answer.at);
  }
  result.meanQueueingMs = result.served === 0 ? 0 : queueingSum / result.served;
  return result;
}

/** A limiter wired to a simulation clock, its changes recorded with their virtual time. */
export function recorded(make: (options: { now: () => number; onChange: (change: LimitChange) => void }) => LatencyLimit): {
  limiter: LatencyLimit;
  clock: SimClock;
  changes: SimResult['changes'];
} {
  const clock = new SimClock();
  const changes: SimResult['changes'] = [];
  const limiter = make({ now: clock.read, onChange: (change) => changes.push({ ...change, at: clock.now }) });
  return { limiter, clock, changes };
}

interface Answer {
  at: number;
  startedAt: number;
  inFlightAtStart: number;
  refused: boolean;
  order: number;
  queuedMs: number;
}

class MinHeap<T> {
  readonly #items: T[] = [];
  constructor(readonly compare: (a: T, b: T) => number) {}

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i] as T, items[parent] as T) >= 0) break;
      [items[i], items[parent]] = [items[parent] as T, items[i] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && this.compare(items[left] as T, items[least] as T) < 0) least = left;
        if (right < items.length && this.compare(items[right] as T, items[least] as T) < 0) least = right;
        if (least === i) break;
        [items[i], items[least]] = [items[least] as T, items[i] as T];
        i = least;
      }
    }
    return top;
  }
}
