// How many retries a service that fails a share of its requests is worth, for the whole run: a
// gateway with one of two upstreams dead answers half the requests 502 and serves the other half
// at full speed. Each id failing there on its own retries (--retries) loses about one id in eight
// for good (half of a half of a half), though its next attempt would most likely land on the live
// upstream. So, as the AWS SDKs' retry quota does, retries of failing answers are paid from one
// bucket for the run, refilled by good answers: while the service serves most of what it is sent,
// an id's failure costs it a fifth of a retry, as a paced refusal does, and it is tried again at
// once; a service failing far more than it serves empties the bucket, and each failure costs a
// whole retry again (then the outage rule, outage.ts, pauses the run). Like the other parts it
// keeps no clock.

/** Retries the bucket holds, and starts with: enough for a burst of failures as wide as the widest ceiling's wave. */
export const RETRY_QUOTA = 500;
/**
 * Retries each good answer puts back. Two per good answer carries a steady share of failures of
 * up to two in three (two failed attempts for each one served); past it the bucket runs dry.
 */
export const RETRIES_PER_GOOD = 2;

export class RetryQuota {
  #tokens = RETRY_QUOTA;

  /** Retries in the bucket now. */
  get tokens(): number {
    return this.#tokens;
  }

  /** A good answer: it puts RETRIES_PER_GOOD back, up to RETRY_QUOTA. */
  onGood(): void {
    this.#tokens = Math.min(RETRY_QUOTA, this.#tokens + RETRIES_PER_GOOD);
  }

  /** One retry of a failing answer: true when the bucket pays for it (and one is taken). */
  take(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
