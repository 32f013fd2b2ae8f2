// When a batch stops by itself before its list is done: after too many failures (--max-failures,
// --fail-fast) or at a time the user set (--max-duration). Either way the ids in flight finish
// and the rest are "not sent"; what ends the run is the engine's (run-batch.ts).

import { invalid, type Origin, type Parse } from '../flags/flag.js';

/** `--max-failures 25` (ids) or `--max-failures 2%` (of the ids decided so far). */
export type MaxFailures = { count: number } | { percent: number };

/**
 * A share is judged only once this many ids are decided (answered: deleted, absent or failed):
 * the first failure of a run is 100% of one id, which says nothing about the list.
 */
export const MIN_DECIDED_FOR_SHARE = 100;

export const maxFailures: Parse<MaxFailures> = (raw: string, origin: Origin) => {
  const advice = 'give a number of failed ids (such as 10) or a share of the ids decided (such as 5%)';
  const share = /^(\d+(?:\.\d+)?)%$/.exec(raw);
  if (share) {
    const percent = Number(share[1]);
    if (!(percent > 0 && percent <= 100)) throw invalid(raw, origin, `${advice}; a share is more than 0% and at most 100%`);
    return { percent };
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) throw invalid(raw, origin, advice);
  return { count: Number(raw) };
};

/** The budget as typed: `10`, `5%`. */
export function describeMaxFailures(budget: MaxFailures): string {
  return 'count' in budget ? String(budget.count) : `${budget.percent}%`;
}

/** Counts the ids this run decides, and says when the failures among them are over the budget. */
export class FailureBudget {
  private failed = 0;
  private decided = 0;

  constructor(readonly budget: MaxFailures) {}

  /** One more id decided by this run; true once the failures reach the budget. */
  add(failed: boolean): boolean {
    this.decided++;
    if (failed) this.failed++;
    return this.spent();
  }

  spent(): boolean {
    if ('count' in this.budget) return this.failed >= this.budget.count;
    return this.decided >= MIN_DECIDED_FOR_SHARE && this.failed * 100 >= this.budget.percent * this.decided;
  }

  /** Why the rest is not sent: `--max-failures 5% stopped after 12 of 200 ids failed`. */
  why(flag: string): string {
    return `not sent: ${flag} stopped after ${this.failed} of ${this.decided} id${this.decided === 1 ? '' : 's'} failed`;
  }
}

/**
 * Without --max-outage, a server that refuses or fails every request for this many
 * --max-retry-wait (2 minutes at its default 30 s, but at least MIN_OUTAGE_MS) is not coming back
 * soon: the run gives up, and ends with exit 6.
 */
export const STALL_RETRY_WAITS = 4;
export const MIN_OUTAGE_MS = 1000;

/** How long a run waits out a service that answers nothing good: --max-outage, or its default. */
export function outageLimitMs(maxOutage: number | undefined, maxRetryWaitMs: number): number {
  return maxOutage ?? Math.max(MIN_OUTAGE_MS, STALL_RETRY_WAITS * maxRetryWaitMs);
}

/**
 * Calls `reached` once, `ms` after now, unless cancelled first. `setTimer` is the clock: a test
 * gives its own to reach the deadline when it says so.
 */
export function startDeadline(
  ms: number,
  reached: () => void,
  setTimer: (fn: () => void, ms: number) => () => void = realTimer,
): () => void {
  return setTimer(reached, ms);
}

function realTimer(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  // A deadline alone never keeps the process up: a run that finished early exits at once.
  timer.unref();
  return () => clearTimeout(timer);
}
