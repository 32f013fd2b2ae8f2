// --rate: a hard, client-side pace: starts spaced evenly, one every period / n, as curl's
// --rate spaces its transfers, and never more than n in any window of the period.

export interface Rate {
  /** Starts allowed in any window of `periodMs`. */
  count: number;
  periodMs: number;
}

/** The largest count accepted: the limiter keeps one slot per allowed start. */
export const MAX_RATE_COUNT = 1_000_000;

const PERIODS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * curl's --rate syntax: `<n>/s`, `<n>/m`, `<n>/h`, `<n>/d`, with n a whole number from 1 to
 * MAX_RATE_COUNT. A bare `<n>` is per second, as plantstore 1.0 took it, where curl means per
 * hour: scripts written against 1.0 keep their pace (see the README's --rate row).
 * Returns undefined for anything else; the caller names the flag.
 */
export function parseRate(raw: string): Rate | undefined {
  const match = /^(\d+)(?:\/([smhd]))?$/.exec(raw);
  if (match === null) return undefined;
  const count = Number(match[1]);
  if (count < 1 || count > MAX_RATE_COUNT) return undefined;
  return { count, periodMs: PERIODS[match[2] ?? 's'] as number };
}

/** The rate as --rate would take it (`40/s`), for messages. */
export function describeRate(rate: Rate): string {
  const unit = Object.keys(PERIODS).find((key) => PERIODS[key] === rate.periodMs);
  return unit === undefined ? `${rate.count} per ${rate.periodMs} ms` : `${rate.count}/${unit}`;
}

/**
 * Starts spaced evenly, at least `periodMs / count` apart, as curl paces --rate (600/m is one
 * start every 100 ms, never 50 in the first second); and never more than `count` requests
 * in any window of `periodMs`, however the window is placed, as the server sees them arrive.
 *
 * The spacing alone keeps `count` starts to a window; the window is kept as well because a
 * request reaches the server somewhere between its start and its answer (a new connection can
 * delay the first ones by milliseconds), so starts evenly spaced can arrive bunched.
 * A start at time t is allowed when the count-th previous request is at or before t - periodMs.
 * Keeping exactly the last `count` times (a ring buffer) answers that without counting, and
 * unlike a fixed-window counter it cannot let through twice the rate across a window boundary.
 * A request is stamped when it starts and again when its answer arrives: only its answer's
 * time proves it is out of the window.
 */
export class SlidingWindowLimiter {
  readonly #periodMs: number;
  /** The least time between two starts: the period shared evenly. */
  readonly #spacingMs: number;
  #lastStart = Number.NEGATIVE_INFINITY;
  /** The last `count` start times; the oldest at `#next`. -Infinity for slots not used yet. */
  readonly #starts: Float64Array;
  #next = 0;
  /** Starts recorded so far; record() hands out the number of each. */
  #recorded = 0;

  constructor(rate: Rate) {
    if (!Number.isInteger(rate.count) || rate.count < 1 || rate.count > MAX_RATE_COUNT) {
      throw new RangeError(`rate count must be a whole number from 1 to ${MAX_RATE_COUNT}, got ${rate.count}`);
    }
    if (!(rate.periodMs > 0)) throw new RangeError(`rate period must be positive, got ${rate.periodMs}`);
    this.#periodMs = rate.periodMs;
    this.#spacingMs = rate.periodMs / rate.count;
    this.#starts = new Float64Array(rate.count).fill(Number.NEGATIVE_INFINITY);
  }

  /** The earliest time at or after `now` when a start is allowed. */
  nextAllowedAt(now: number): number {
    // The oldest of the last `count` starts frees its place one period after it happened.
    return Math.max(now, this.#lastStart + this.#spacingMs, (this.#starts[this.#next] as number) + this.#periodMs);
  }

  /**
   * Records a start at `now`; returns its number for finish(). Normally one that is allowed
   * (nextAllowedAt(now) === now); a start that happened outside our control (the HTTP layer
   * resending on its own) is recorded all the same, and pushes the next allowed start back.
   */
  record(now: number): number {
    this.#lastStart = now;
    this.#starts[this.#next] = now;
    this.#next = (this.#next + 1) % this.#starts.length;
    return this.#recorded++;
  }

  /** The answer to start number `start` arrived at `now`: the request stays in the window until a period after that. */
  finish(start: number, now: number): void {
    // A request still in flight a whole period after it started has had its place taken; nothing to move.
    if (start + this.#starts.length < this.#recorded) return;
    const slot = start % this.#starts.length;
    if (now > (this.#starts[slot] as number)) this.#starts[slot] = now;
  }
}

/**
 * How many events happened in about the last `windowMs`: counts in buckets of a tenth of the
 * window, so memory and time per event stay constant however fast events come.
 */
export class RecentCount {
  static readonly BUCKETS = 10;
  readonly #bucketMs: number;
  readonly #counts = new Uint32Array(RecentCount.BUCKETS);
  #current = 0;
  #currentStart = 0;

  constructor(readonly windowMs: number) {
    this.#bucketMs = windowMs / RecentCount.BUCKETS;
  }

  add(now: number): void {
    this.#advance(now);
    this.#counts[this.#current] = (this.#counts[this.#current] as number) + 1;
  }

  /** Events in the window ending at `now` (the oldest bucket may be partly outside it). */
  total(now: number): number {
    this.#advance(now);
    let sum = 0;
    for (const count of this.#counts) sum += count;
    return sum;
  }

  #advance(now: number): void {
    const steps = Math.floor((now - this.#currentStart) / this.#bucketMs);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, RecentCount.BUCKETS); i += 1) {
      this.#current = (this.#current + 1) % RecentCount.BUCKETS;
      this.#counts[this.#current] = 0;
    }
    this.#currentStart += steps * this.#bucketMs;
  }
}
