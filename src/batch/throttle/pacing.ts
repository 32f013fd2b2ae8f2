// When the next start may go while the adaptive rate (adaptive-rate.ts) paces the run: one start
// every 1/rate seconds, on a schedule. Spaced from each actual start instead, every late timer was
// lost for good: setTimeout rounds 6.7 ms up to 7 and fires at 7-8 ms, so a pace of 150/s sent
// 125-135/s, and against a token bucket of 150/s the rate had to climb past the bucket's (its
// convex part) to send at it, until the next 429 (GCRA, the cell-rate schedule of ATM and of
// nginx's limit_req, keeps the same theoretical time). A start up to LATE_MADE_UP of an interval
// late keeps the schedule; one later than that (a pause, a stall) starts it again from itself, so
// nothing is sent in a burst to catch up.

/** A start this share of its interval late or less keeps the schedule. */
export const LATE_MADE_UP = 0.5;

export class Pacing {
  /** When the last start was due on the schedule (its actual time if it started it again). */
  #dueAt = Number.NEGATIVE_INFINITY;

  /** The earliest the next start may go, one `intervalMs` after the last one was due. */
  openAt(intervalMs: number): number {
    return this.#dueAt + intervalMs;
  }

  /** A start at `now`, the pace then one start every `intervalMs` (0: unpaced). */
  started(now: number, intervalMs: number): void {
    const due = this.#dueAt + intervalMs;
    this.#dueAt = intervalMs > 0 && now >= due && now - due <= LATE_MADE_UP * intervalMs ? due : now;
  }
}
