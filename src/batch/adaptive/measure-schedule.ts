// When `--concurrency auto` (latency-limit.ts) measures the base latency, and for how long
// (base-measure.ts). Alone at a server: one round at the start, then again every REMEASURE_MS,
// after FLOOR_ROUNDS_BEFORE_REMEASURE rounds at one in flight still queueing, or when latency
// does not move with its load (stale). As one of a job's shards, at the instants all of them
// share (shard-sync.ts), and never alone: alone, it would read the others' queue as the base.

import { BaseMeasure } from './base-measure.js';
import { FLOOR_ROUNDS_BEFORE_REMEASURE, REMEASURE_MS } from './latency-tuning.js';
import { FIRST_MEASURE_MS, RESYNC_MEASURE_LATENCIES, ShardSync } from './shard-sync.js';

export class MeasureSchedule {
  readonly #sync: ShardSync | undefined;
  #measuredAt = Number.NEGATIVE_INFINITY;
  /** Rounds in a row at one in flight that still read as queueing. */
  #floorRounds = 0;
  /** The last round's median latency, out of a measure: how long the shards' measure together lasts. */
  #lastRtt: number | undefined;

  /** `shards`: `--shard i/n`'s n (1: alone); `wall`: the wall-clock time of a time on the limiter's clock. */
  constructor(shards: number, wall: (now: number) => number) {
    this.#sync = shards > 1 ? new ShardSync(wall) : undefined;
  }

  /** Shards begin their first measure when their first request goes out: a clock is read for it. */
  get shared(): boolean {
    return this.#sync !== undefined;
  }

  /** The run's first measure: one round alone; a shard's lasts FIRST_MEASURE_MS. */
  first(): BaseMeasure {
    return new BaseMeasure(undefined, this.#sync ? FIRST_MEASURE_MS : 0);
  }

  /**
   * An answer at `now`: a measure together to begin now, back to `restoreTo` after it, when the
   * shards' instant passed and `inUse()` says the limit is in use; else undefined.
   */
  together(now: number, rttMs: number, restoreTo: number, inUse: () => boolean): BaseMeasure | undefined {
    const latency = this.#lastRtt ?? rttMs;
    if (!this.#sync?.due(now, latency) || !inUse()) return undefined;
    return this.#begin(restoreTo, RESYNC_MEASURE_LATENCIES * latency, now);
  }

  /** A measure ended, or a round read faster than the base: the base is new as of `now`. */
  measured(now: number): void {
    this.#measuredAt = now;
  }

  /** A round (not a measure's) ended with this median latency; `atFloor`: at one in flight and still queueing (undefined: a round that says neither). */
  round(rtt: number, atFloor: boolean | undefined): void {
    this.#lastRtt = rtt;
    if (atFloor !== undefined) this.#floorRounds = atFloor ? this.#floorRounds + 1 : 0;
  }

  /** After a round, alone at the server: a measure to begin now, back to `restoreTo`, if one is due or latency is `stale`. */
  alone(now: number, stale: boolean, restoreTo: number): BaseMeasure | undefined {
    if (this.#sync !== undefined) return undefined;
    const due = now - this.#measuredAt >= REMEASURE_MS || this.#floorRounds >= FLOOR_ROUNDS_BEFORE_REMEASURE;
    return stale || due ? this.#begin(restoreTo, 0, now) : undefined;
  }

  #begin(restoreTo: number, lastsMs: number, now: number): BaseMeasure {
    this.#floorRounds = 0;
    return new BaseMeasure(restoreTo, lastsMs, now);
  }
}
