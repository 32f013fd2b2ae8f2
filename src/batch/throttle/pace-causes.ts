// Why the pace is cut, as data for the progress line (the words are the UI's): what the answers
// of about the last CAUSE_WINDOW_MS said (refusals and failures, each by kind, and the
// Retry-After they asked for) and whether the latency-based limit cut for a queue meanwhile.
// Counted over a window, not since the start, so a cause that has passed stops being named, and
// in one-second buckets (RecentCount), so a run of 10,000 answers a second costs nothing more.
// Like the throttle's other parts it keeps no clock: every call is given the time.

import type { Feedback } from '../../http/gate.js';
import { RecentCount } from '../rate-limit.js';

/** The answers the causes are read over. */
export const CAUSE_WINDOW_MS = 10_000;

/** What the answers of about the last CAUSE_WINDOW_MS said. */
export interface RecentCauses {
  /** Answers of every kind, retries included: the share's denominator. */
  answers: number;
  /** Refused as overloaded (503), and the status of the latest such refusal. */
  overloaded: number;
  overloadedStatus: number | undefined;
  /** Refused as rate-limited (429), and the status of the latest such refusal. */
  rateLimited: number;
  rateLimitedStatus: number | undefined;
  /** Failing answers: a gateway's 502 or 504, a failed connection. */
  failing: number;
  /** The Retry-After of the latest refusal that gave one, in ms, when it came within the window. */
  retryAfterMs: number | undefined;
  /** Cuts of the latency-based limit (`--concurrency auto`) for a queue at the server. */
  latencyCuts: number;
}

export class CauseWindow {
  readonly #answers = new RecentCount(CAUSE_WINDOW_MS);
  readonly #overloaded = new RecentCount(CAUSE_WINDOW_MS);
  readonly #rateLimited = new RecentCount(CAUSE_WINDOW_MS);
  readonly #failing = new RecentCount(CAUSE_WINDOW_MS);
  #overloadedStatus: number | undefined;
  #rateLimitedStatus: number | undefined;
  #retryAfter: { ms: number; at: number } | undefined;

  /** An answer, as the throttle was told of it. */
  onAnswer(feedback: Feedback, now: number): void {
    this.#answers.add(now);
    if (feedback.kind === 'failing') this.#failing.add(now);
    if (feedback.kind !== 'refused') return;
    if (feedback.load === 'overloaded') {
      this.#overloaded.add(now);
      this.#overloadedStatus = feedback.status;
    } else {
      this.#rateLimited.add(now);
      this.#rateLimitedStatus = feedback.status;
    }
    if (feedback.retryAfterMs !== undefined) this.#retryAfter = { ms: feedback.retryAfterMs, at: now };
  }

  /** What the answers said; the limit's cuts are the controller's to add (AutoConcurrency.cutsLately). */
  read(now: number): Omit<RecentCauses, 'latencyCuts'> {
    const retryAfter = this.#retryAfter;
    return {
      answers: this.#answers.total(now),
      overloaded: this.#overloaded.total(now),
      overloadedStatus: this.#overloadedStatus,
      rateLimited: this.#rateLimited.total(now),
      rateLimitedStatus: this.#rateLimitedStatus,
      failing: this.#failing.total(now),
      retryAfterMs: retryAfter !== undefined && now - retryAfter.at < CAUSE_WINDOW_MS ? retryAfter.ms : undefined,
    };
  }
}
