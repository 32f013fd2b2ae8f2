// What makes the sandbox behave like a busy service, so that what the README teaches about
// retries, throttling, progress and interrupts can be rehearsed on it: a latency with some
// spread, a share of requests failed with 503 and Retry-After, 429 past a rate, and only K
// requests served at once with the rest queued. Every choice that looks random is a hash of
// the seed and a counter, so one seed gives one run, whatever order the requests arrive in.

/** How the sandbox answers under pressure; all off by default (NO_PRESSURE). */
export interface Pressure {
  /** Milliseconds each answer waits, before any queueing. */
  latencyMs: number;
  /** Each answer waits latencyMs ± up to this, spread evenly (never below 0). */
  jitterMs: number;
  /** Share of requests (0 to 1) answered 503 with Retry-After. */
  failShare: number;
  /** The Retry-After of those 503s, in seconds. */
  retryAfterSeconds: number;
  /** At most `count` requests in any `periodMs`; those past it are answered 429 at once. */
  rate?: { count: number; periodMs: number };
  /** Requests served at once; the rest wait their turn in arrival order. */
  capacity?: number;
  seed: number;
}

export const NO_PRESSURE: Pressure = { latencyMs: 0, jitterMs: 0, failShare: 0, retryAfterSeconds: 1, seed: 0 };

/** A number in [0, 1) fixed by the seed, a key and a counter (FNV-1a, then a murmur3 finaliser to spread it). */
export function unitHash(seed: number, key: string, n: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (const char of `${key}#${n}`) h = Math.imul(h ^ char.charCodeAt(0), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** The wait of the n-th request: latency ± jitter, spread evenly, fixed by the seed. */
export function latencyOf(pressure: Pressure, n: number): number {
  if (pressure.jitterMs === 0) return pressure.latencyMs;
  const spread = (2 * unitHash(pressure.seed, 'latency', n) - 1) * pressure.jitterMs;
  return Math.max(0, pressure.latencyMs + spread);
}

/**
 * Which requests fail with 503. The n-th request for a path fails when the hash of (seed, path, n)
 * falls under the share: the same seed fails the same attempts of the same ids, however the
 * client orders or spreads them, so a test can count on an id not failing every retry.
 * Only paths whose last request failed are remembered: memory stays that of the failures in play.
 */
export class FailPlan {
  readonly #failing = new Map<string, number>();

  constructor(
    private readonly share: number,
    private readonly seed: number,
  ) {}

  fails(path: string): boolean {
    if (this.share <= 0) return false;
    const attempt = (this.#failing.get(path) ?? 0) + 1;
    if (this.share < 1 && unitHash(this.seed, path, attempt) >= this.share) {
      this.#failing.delete(path);
      return false;
    }
    this.#failing.set(path, attempt);
    return true;
  }
}

/**
 * A token bucket: `count` requests at once after a quiet `periodMs`, then one per periodMs/count.
 * admit() answers undefined for a request let in, or the whole seconds (at least 1) until one
 * would be, for the 429's Retry-After. The clock is passed in, so a test can drive it.
 */
export class RateGate {
  #tokens: number;
  #at: number;
  readonly #perMs: number;

  constructor(
    private readonly rate: { count: number; periodMs: number },
    now: number,
  ) {
    this.#tokens = rate.count;
    this.#at = now;
    this.#perMs = rate.count / rate.periodMs;
  }

  admit(now: number): number | undefined {
    this.#tokens = Math.min(this.rate.count, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.#perMs / 1000));
  }
}

/** At most `capacity` holders at once; the others wait in arrival order. */
export class Slots {
  #busy = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly capacity: number) {}

  get busy(): number {
    return this.#busy;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Resolves with the function that frees the slot, once there is one. */
  async acquire(): Promise<() => void> {
    if (this.#busy < this.capacity) this.#busy++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      // The slot goes straight to the next in line, so a newcomer cannot take it first.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#busy--;
    };
  }
}
