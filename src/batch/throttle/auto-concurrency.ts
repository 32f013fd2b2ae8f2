// `--concurrency auto` inside the throttle: the latency-based limit (../latency-limit.ts) stands
// where the fixed-ceiling limit (concurrency-limit.ts) stands otherwise, so a 503 cut and the
// latency's growth and back-off move one limit, never two that fight.

import { LatencyLimit, type LimitChange } from '../adaptive/latency-limit.js';
import { MAX_AUTO_CONCURRENCY } from '../adaptive/latency-tuning.js';
import { RecentCount } from '../rate-limit.js';
import type { InFlightLimit, Sample } from './concurrency-limit.js';
import { overdueAfterMs } from './overdue.js';
import { CAUSE_WINDOW_MS } from './pace-causes.js';

export class AutoConcurrency implements InFlightLimit {
  readonly #latency: LatencyLimit;
  #cuts = 0;
  /** Cuts of the limit in about the last CAUSE_WINDOW_MS, any and those for a queue: why the pace is cut (pace-causes.ts). */
  readonly #recentCuts = new RecentCount(CAUSE_WINDOW_MS);
  readonly #recentLatencyCuts = new RecentCount(CAUSE_WINDOW_MS);
  /** The most it ever allows: what the connection pool must hold. */
  readonly ceiling: number;

  constructor(
    options: {
      now?: (() => number) | undefined;
      ceiling?: number;
      start?: number;
      /** `--shard i/n`'s n (shard-sync.ts). */
      shards?: number | undefined;
      onChange?: ((change: LimitChange) => void) | undefined;
    } = {},
  ) {
    this.ceiling = options.ceiling ?? MAX_AUTO_CONCURRENCY;
    const now = options.now ?? (() => performance.now());
    const onChange = options.onChange;
    this.#latency = new LatencyLimit({
      ceiling: this.ceiling,
      ...(options.start ? { start: options.start } : {}),
      ...(options.shards ? { shards: options.shards } : {}),
      ...(options.now ? { now: options.now } : {}),
      onChange: (change) => {
        // A dip to measure the base latency again is no cut: nothing the server said.
        if (change.to < change.from && change.reason !== 'measuring base latency') {
          this.#recentCuts.add(now());
          if (change.reason === 'queueing') this.#recentLatencyCuts.add(now());
        }
        onChange?.(change);
      },
    });
  }

  /** Cuts of the limit in about the last CAUSE_WINDOW_MS: any, and those for a queue at the server (latency rising). */
  cutsLately(now: number): { any: number; latency: number } {
    return { any: this.#recentCuts.total(now), latency: this.#recentLatencyCuts.total(now) };
  }

  get limit(): number {
    return this.#latency.limit;
  }

  /** Where the run works, leaving out the short dips to measure the base latency again. */
  get settled(): number {
    return this.#latency.settled;
  }

  get cuts(): number {
    return this.#cuts;
  }

  /**
   * Never holds back the report of recovery: the limit's every change is reported on its own
   * (`concurrency 24 → 32: latency flat`), and it has no fixed ceiling to come back to.
   */
  get atCeiling(): boolean {
    return true;
  }

  /** How long a request may go unanswered before it counts as evidence (overdue.ts). */
  get overdueAfterMs(): number {
    return overdueAfterMs(this.#latency.baseRttMs);
  }

  /** An overdue request, as a sample of its age so far; whether it was taken as one. */
  onOverdue(sample: Sample): boolean {
    return this.#latency.onOverdue(sample.rttMs, sample.inFlightAtStart);
  }

  /** A request started, `inFlight` counted under the limit with it. */
  onStarted(inFlight: number): void {
    this.#latency.onStarted(inFlight);
  }

  onAdmitted(sample: Sample): void {
    this.#latency.onAdmitted(sample.rttMs, sample.inFlightAtStart);
  }

  /** A 429 is the rate's business; it says nothing of how many the server holds at once. */
  onRefused(): void {}

  onOverloaded(inFlightAtStart: number): void {
    const before = this.#latency.limit;
    this.#latency.onOverloaded(inFlightAtStart);
    if (this.#latency.limit < before) this.#cuts += 1;
  }
}
