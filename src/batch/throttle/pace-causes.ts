// Why the pace is cut, as data for the progress line (the words are the UI's): what the answers
// of about the last CAUSE_WINDOW_MS said (refusals and failures, each by kind, and the
// Retry-After they asked for) and whether the latency-based limit cut for a queue meanwhile.
// Counted over a window, not since the start, so a cause that has passed stops being named, and
// in one-second buckets (RecentCount), so a run of 10,000 answers a second costs nothing more.
// Like the throttle's other parts it keeps no clock: every call is given the time.

import type { Feedback } from '../../http/gate.js';
import type { SlowPace } from '../../ui/pace-words.js';
import { RecentCount } from '../rate-limit.js';

/** The answers the causes are read over. */
export const CAUSE_WINDOW_MS = 10_000;

/**
 * What the answers of about the last CAUSE_WINDOW_MS said: the fields of the UI's SlowPace that
 * count answers (one shape, declared where it is worded: the UI imports nothing of the batch).
 */
export type RecentCauses = Pick<
  SlowPace,
  'answers' | 'overloaded' | 'overloadedStatus' | 'rateLimited' | 'rateLimitedStatus' | 'failing' | 'retryAfterMs' | 'latencyCuts'
>;

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
