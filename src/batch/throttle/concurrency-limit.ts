// How many requests may be in flight, for a server that says "too much at once" (overloaded):
// at most the ceiling (--concurrency), cut multiplicatively from the count in flight when a
// refused request was sent, and grown back one at a time after runs of good answers.
//
// The one limit on requests in flight: a later policy that reads latency (a Vegas- or
// Gradient-like limiter) is to feed the same limit through onAdmitted's sample, not keep a
// second one that fights this.

/**
 * An overload multiplies the requests in flight by this. Milder than for the rate because the
 * cut starts from a measurement, the count in flight when the refused request was sent, rather
 * than from the limit, so it leaves out the overshoot already.
 */
export const CONCURRENCY_DECREASE = 0.8;
/**
 * One more request in flight after this many times the limit in consecutive good answers.
 * Each time such a probe is refused at the same limit, the next waits twice as long: a server
 * with a hard limit is asked again and again otherwise, and each refused id waits its Retry-After.
 */
export const CONCURRENCY_INCREASE_AFTER = 10;

/** What one admitted request measured. Growth by count reads neither; a latency-based policy would. */
export interface Sample {
  /** From its start to its answer. */
  rttMs: number;
  /** Requests in flight when it started, itself included. */
  inFlightAtStart: number;
}

/**
 * What the controller asks of the limit on requests in flight: this file's fixed-ceiling one,
 * or with `--concurrency auto` the latency-based one (auto-concurrency.ts).
 */
export interface InFlightLimit {
  /** Requests allowed in flight now. */
  readonly limit: number;
  /** The most it ever allows: what the connection pool must hold. */
  readonly ceiling: number;
  /** 503 cuts so far. */
  readonly cuts: number;
  /** Whether recovery from a 503 cut may be reported: the limit is back where it started. */
  readonly atCeiling: boolean;
  onAdmitted(sample: Sample): void;
  onRefused(): void;
  onOverloaded(inFlightAtStart: number): void;
}

export class ConcurrencyLimit implements InFlightLimit {
  #limit: number;
  #goodStreak = 0;
  /** How many times the current limit's probe (limit + 1) was refused: see CONCURRENCY_INCREASE_AFTER. */
  #refusedProbes = 0;
  /** The limit the last probe started from. */
  #probedFrom = 0;
  #cuts = 0;

  constructor(readonly ceiling: number) {
    if (!Number.isInteger(ceiling) || ceiling < 1) {
      throw new RangeError(`ceiling must be a whole number of at least 1, got ${ceiling}`);
    }
    this.#limit = ceiling;
  }

  /** Requests allowed in flight now. */
  get limit(): number {
    return this.#limit;
  }

  get cuts(): number {
    return this.#cuts;
  }

  get atCeiling(): boolean {
    return this.#limit === this.ceiling;
  }

  /** An answer that was not a refusal: one more in flight after a long enough run of them. */
  onAdmitted(_sample: Sample): void {
    if (this.#limit >= this.ceiling) return;
    this.#goodStreak += 1;
    if (this.#goodStreak >= CONCURRENCY_INCREASE_AFTER * this.#limit * 2 ** this.#refusedProbes) {
      this.#goodStreak = 0;
      this.#probedFrom = this.#limit;
      this.#limit += 1;
    }
  }

  /** Any refusal, cut or not: the run of good answers starts again. */
  onRefused(): void {
    this.#goodStreak = 0;
  }

  /** The server is overloaded: from the count in flight when the refused request was sent, the load it could not take. */
  onOverloaded(inFlightAtStart: number): void {
    const next = Math.max(1, Math.floor(CONCURRENCY_DECREASE * Math.min(this.#limit, inFlightAtStart)));
    // Refused while probing one above a limit that held: probe less often from now on.
    this.#refusedProbes = this.#limit === this.#probedFrom + 1 ? this.#refusedProbes + 1 : 0;
    this.#limit = next;
    this.#goodStreak = 0;
    this.#cuts += 1;
  }
}
