// When the whole service fails, not a few ids: a gateway whose upstream is down answers every
// request 502 in a millisecond, and without this a batch spends every id's retries in a moment
// (thousands of requests a second at a service that is down). Told apart from a few bad ids by
// counting ids, not answers: an id that keeps failing fails its first attempt once, however
// often its retries fail, while an outage fails the first attempts of id after id with nothing
// good between. Then the batch pauses and sends one probe at a time, one a pause apart, until an
// answer is good again. Like the other parts it keeps no clock.
//
// A service down is told from one failing a share of requests (one of two upstreams dead: every
// other answer a 502) by how long the failures run: at a half, eight first attempts in a row fail
// now and then by chance, dozens of answers in a row practically never; a service that is down
// fails every answer. The share goes on, its failures retried from the run's budget (retry-quota.ts).

import type { Started } from './throttle-types.js';

/**
 * First attempts failing in a row (502, 503, 504 or a failed connection) with no good answer
 * between, that make an outage. A few ids failing alone never line up this many in a row among
 * the good answers of the others; a service that is down fails every one.
 */
export const OUTAGE_AFTER_FIRSTS = 8;
/**
 * Failed answers in a row (first attempts and retries), with no good one between, that an outage
 * takes as well. A service failing half its requests fails 24 in a row about once in 17 million
 * answers; at the ceiling's 64 in flight, a service that is down fails as many within a round trip.
 */
export const OUTAGE_AFTER_ANSWERS = 24;
/**
 * A 503 is also how a server at capacity sheds what it cannot take, answered in the same round
 * trip as the requests it serves: the throttle's cuts are the answer to that. 503s are an
 * outage only once they have come, with nothing good between, for this long as well.
 */
export const OVERLOAD_OUTAGE_AFTER_MS = 1000;
/** In an outage, the pause after each failed probe (never longer than --max-retry-wait). */
export const PROBE_EVERY_MS = 1000;

/** A start as the outage watch sees it: its number, and whether it was an id's retry. */
export type Attempt = Pick<Started, 'sequence' | 'retry'>;

export class OutageWatch {
  #failedFirstsInARow = 0;
  /** Every failed answer since the last good one, retries included. */
  #failedInARow = 0;
  /** When the first of them came. */
  #failingSince = 0;
  #active = false;
  /** The probe in flight, by its start's number. */
  #probe: number | undefined;
  /** Outages so far. */
  #outages = 0;
  /**
   * Good answers still to come after an outage before a retry's failure is its id's again: the
   * retries of a service that came back and failed again are all that goes out at first, and
   * they must be able to tell that it is down again.
   */
  #goodToRecover = 0;
  /** The number of the latest start, and of the last one before the outage began. */
  #lastStart = 0;
  #startedBefore = 0;

  /** The service is failing: the batch waits and probes. */
  get active(): boolean {
    return this.#active;
  }

  get outages(): number {
    return this.#outages;
  }

  /** In an outage, a probe is already out: nothing else starts until it answers. */
  get probing(): boolean {
    return this.#active && this.#probe !== undefined;
  }

  /** A start: in an outage, it is the probe. */
  onStart(sequence: number): void {
    this.#lastStart = sequence;
    if (this.#active && this.#probe === undefined) this.#probe = sequence;
  }

  /**
   * A good answer (the server processed a request): true when it ends an outage. One to a
   * request sent before the outage began says only that the service worked then.
   */
  onGood(attempt: Attempt): boolean {
    this.#answered(attempt);
    this.#failedFirstsInARow = 0;
    this.#failedInARow = 0;
    if (!this.#active || attempt.sequence <= this.#startedBefore) {
      if (this.#goodToRecover > 0) this.#goodToRecover -= 1;
      return false;
    }
    this.#active = false;
    this.#goodToRecover = OUTAGE_AFTER_FIRSTS;
    return true;
  }

  /**
   * A failed answer that says the service is failing, at `now`: true when it begins an outage.
   * `shed`: a 503, which may be a server at capacity rather than down (OVERLOAD_OUTAGE_AFTER_MS).
   */
  onFailing(attempt: Attempt, now: number, shed = false): boolean {
    this.#answered(attempt);
    this.#failedInARow += 1;
    // A retry's failure is its id's again: counted once, at its first attempt. In an outage, any failure extends it.
    if (this.#active || (attempt.retry && this.#goodToRecover === 0)) return this.#beginsAfterRetry(now, shed);
    if (this.#failedFirstsInARow === 0) this.#failingSince = now;
    this.#failedFirstsInARow += 1;
    return this.#begins(now, shed);
  }

  /** When the firsts had their count already, a retry's failure can make the answers' count. */
  #beginsAfterRetry(now: number, shed: boolean): boolean {
    if (this.#active) return false;
    return this.#begins(now, shed);
  }

  #begins(now: number, shed: boolean): boolean {
    if (this.#failedFirstsInARow < OUTAGE_AFTER_FIRSTS || this.#failedInARow < OUTAGE_AFTER_ANSWERS) return false;
    if (shed && now - this.#failingSince < OVERLOAD_OUTAGE_AFTER_MS) return false;
    this.#active = true;
    this.#startedBefore = this.#lastStart;
    this.#outages += 1;
    this.#probe = undefined;
    return true;
  }

  /** Any other answer (a timeout, a 500): says nothing of an outage, but a probe is over. */
  onOther(attempt: Attempt): void {
    this.#answered(attempt);
  }

  #answered(attempt: Attempt): void {
    if (attempt.sequence === this.#probe) this.#probe = undefined;
  }
}
