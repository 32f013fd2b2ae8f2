// The run's throttle, and what the progress line reads of it and of the tally.

import { Throttle, type ThrottleChange } from '../batch/throttle/throttle.js';
import type { Context } from '../context.js';
import type { ProgressState } from '../ui/progress.js';
import type { BatchOptions } from './batch-flags.js';
import { outageLimitMs } from './budgets.js';
import { describeChange } from './summary.js';
import type { Tally } from './tally.js';

/**
 * A batch of at most this many ids goes out at once, as it did when a fixed 8 was the default:
 * the latency-based limit learns nothing from so few answers, and would only send them in two waves.
 */
export const HANDFUL = 8;

/** How the run waits on its service: the longest pause (--max-retry-wait) and outage (--max-outage) it waits out. */
export interface Waits {
  maxRetryWaitMs: number;
  outageMs: number;
}

/** The waits of a run: --max-outage, or its default (a multiple of --max-retry-wait). */
export function waitsOf(opts: Pick<BatchOptions, 'maxOutage'>, maxRetryWaitMs: number): Waits {
  return { maxRetryWaitMs, outageMs: outageLimitMs(opts.maxOutage, maxRetryWaitMs) };
}

/**
 * One throttle for a run of `size` ids: its ceiling, --rate, and how long an outage is waited out.
 * `onGaveUp` hears the throttle give up on the service (its own decision, never a stop the run asked for).
 */
export function throttleFor(
  size: number,
  opts: Pick<BatchOptions, 'concurrency' | 'rate' | 'verbose' | 'shard'>,
  waits: Waits,
  ctx: Pick<Context, 'io'>,
  onGaveUp: (reason: string) => void,
): Throttle {
  const { concurrency, rate, verbose } = opts;
  return new Throttle({
    ceiling: typeof concurrency === 'object' && size <= HANDFUL ? Math.min(HANDFUL, concurrency.auto) : concurrency,
    ...(rate ? { rate } : {}),
    ...(opts.shard ? { shards: opts.shard.count } : {}),
    maxPauseMs: waits.maxRetryWaitMs,
    stallMs: waits.outageMs,
    onChange: (change: ThrottleChange) => {
      if (change.kind === 'gave-up') onGaveUp(change.reason);
      if (verbose) ctx.io.err(`* ${describeChange(change)}`);
    },
  });
}

/** Where the run is, for the progress line: the limit of its ceiling, and the ids this run sent apart from those the journal skipped. */
export function progressState<R>(tally: Tally<R>, throttle: Throttle): ProgressState {
  const stats = throttle.stats();
  return {
    done: tally.total,
    sent: tally.total - tally.skipped,
    // Ids not done: failed or in flight (the summary tells them apart).
    failed: tally.failed + tally.inFlight,
    limit: stats.concurrencyLimit,
    ceiling: throttle.maxInFlight,
    downForMs: throttle.downFor(),
    // Why the pace is cut, as the throttle knows it: the progress line words it.
    pace: throttle.pace(),
  };
}
