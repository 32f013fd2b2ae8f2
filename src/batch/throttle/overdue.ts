// Requests that have not answered long after they should have (`--concurrency auto`).
//
// The latency-based limit learns only from answers, so requests that hang (a server that never
// answers some ids, a connection that died without a reset) would hold their places in flight
// for a whole --timeout: if the first wave all hang, nothing else is sent at all. A request
// still unanswered after a multiple of the base latency is evidence instead (a timeout is a
// sample, as in Netflix's concurrency-limits): its age so far is a latency sample, and it stops
// holding a place under the limit. At most the limit's worth of them is excused at a time, so
// never more than twice the limit is in flight, and never more than the ceiling.

import type { Started } from './throttle-types.js';

/** An unanswered request is overdue after this many base latencies... */
export const OVERDUE_BASES = 4;
/**
 * ...but never sooner than this, in ms: the client's own pauses (its first half second of TLS
 * and compiling, a collection) measured 80-110 ms, and a loopback base latency is a fraction of one.
 */
export const OVERDUE_FLOOR_MS = 100;
/**
 * Before the base latency is known (no answer yet), after this long. Fixed 8 sent 333 plants a
 * second past a first wave of 4 that hung; this sends past them after half a second. A server
 * slower than this (a 2 s API) meets at most twice the starting limit meanwhile, 8, as before.
 */
export const OVERDUE_BEFORE_BASE_MS = 500;

/** How long a request may go unanswered before it is overdue, given the base latency (undefined: not yet measured). */
export function overdueAfterMs(baseRttMs: number | undefined): number {
  return baseRttMs === undefined ? OVERDUE_BEFORE_BASE_MS : Math.max(OVERDUE_FLOOR_MS, OVERDUE_BASES * baseRttMs);
}

export class OverdueWatch {
  /** Requests not yet answered nor overdue, in the order they started (answered ones are dropped lazily). */
  #pending: Started[] = [];
  #head = 0;
  readonly #answered = new Set<Started>();
  /** Overdue and not answered yet: whether each was taken as a sample. */
  readonly #overdue = new Map<Started, boolean>();

  /** Overdue requests still unanswered. */
  get overdue(): number {
    return this.#overdue.size;
  }

  started(start: Started): void {
    this.#pending.push(start);
  }

  /** `start` answered: whether it had been taken as a sample when it went overdue (then its answer is not one). */
  answered(start: Started): boolean {
    const overdue = this.#overdue.get(start);
    if (overdue !== undefined) {
      this.#overdue.delete(start);
      return overdue;
    }
    this.#answered.add(start);
    return false;
  }

  /** When the oldest pending request goes overdue; Infinity when none is pending. */
  nextAt(afterMs: number): number {
    const oldest = this.#oldest();
    return oldest === undefined ? Number.POSITIVE_INFINITY : oldest.startedAt + afterMs;
  }

  /** Marks each request pending for `afterMs` or longer as overdue, oldest first; `sample` says whether it was taken as one. */
  sweep(now: number, afterMs: number, sample: (start: Started) => boolean): void {
    for (let oldest = this.#oldest(); oldest !== undefined && now - oldest.startedAt >= afterMs; oldest = this.#oldest()) {
      this.#head += 1;
      this.#overdue.set(oldest, sample(oldest));
    }
    if (this.#head > 1024 && this.#head * 2 > this.#pending.length) {
      this.#pending = this.#pending.slice(this.#head);
      this.#head = 0;
    }
  }

  #oldest(): Started | undefined {
    for (;;) {
      const oldest = this.#pending[this.#head];
      if (oldest === undefined || !this.#answered.delete(oldest)) return oldest;
      this.#head += 1;
    }
  }
}
