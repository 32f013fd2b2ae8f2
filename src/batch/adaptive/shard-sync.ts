// Shards of one job (`--shard i/n`, n > 1) on one server: when each measures the base latency.
//
// Each shard's latency-based limit (latency-limit.ts) reads the latency it sees against the base
// latency it measured with a few requests in flight. Alone at a server, that measure shows the
// server's own latency. Beside other shards it shows theirs too: a shard that measures while the
// others already hold a queue takes that queue for the server's latency, then grows until the
// queue is half as long again, while the others, who measured the server empty, cut for the queue
// it builds, down to one in flight. TCP Vegas's unfairness between flows that measured their base
// RTT at different times; Netflix's concurrency-limits (Vegas, Gradient2) have it as soon as
// several clients share one bottleneck. Measured (4 shards, default concurrency, a server serving
// 16 at once in 50 ms): one shard grew to 26-37 in flight while the others sat at 2-6, 45 in flight
// in all; mean queueing 25-82 ms over six runs, against 17-23 ms for one process.
//
// A polluted base only comes down once the queue empties, and the queue only empties if every
// shard holds back at the same moment: BBR's PROBE_RTT, where all flows' drains line up. Shards
// cannot talk to each other, but they share a clock, the wall clock (NTP keeps machines within
// milliseconds, far below the period below): so
// - a shard's first measure lasts FIRST_MEASURE_MS of rounds, keeping the lowest (base-measure.ts):
//   shards started together (xargs -P, GNU parallel, a Job's pods) overlap at the measuring limit
//   for most of it, before any of them grows;
// - and at every multiple of the wall clock's period (resyncPeriod: a power of two, about
//   RESYNC_LATENCIES latencies), each shard whose limit is in use measures again, so that all of
//   them drain the server together and see it empty. In its first EARLY_MS, every MIN_RESYNC_MS:
//   shards spawned together but further apart than the first measure lasts (a loaded machine
//   starting four Nodes) are put right within a second. A shard that joins late, or restarts, is
//   put right at the next common instant. One alone at the server (no --shard) is unchanged: it
//   measures as before, every REMEASURE_MS.

/** A shard's first measure of the base latency lasts at least this long (ms of the limiter's clock). */
export const FIRST_MEASURE_MS = 500;
/** Shards measure again together about every this many latencies (BBR: 10 s against ~100 ms RTTs)... */
export const RESYNC_LATENCIES = 40;
/** ...but not more often than this (ms)... */
export const MIN_RESYNC_MS = 1024;
/** ...which is how often in a shard's first this many ms (from its first answer). */
export const EARLY_MS = 4000;
/** A measure together lasts this many latencies (as they were before it): the queue drains, then a round at the measuring limit. */
export const RESYNC_MEASURE_LATENCIES = 2;

/**
 * The shards' common period for a latency of `rttMs`: a power of two milliseconds, so that shards
 * that read slightly different latencies still meet, at the longer period's instants.
 */
export function resyncPeriod(rttMs: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(MIN_RESYNC_MS, RESYNC_LATENCIES * rttMs)));
}

/** Milliseconds since the epoch, from a time on performance.now()'s clock. */
export const WALL_CLOCK = (now: number): number => performance.timeOrigin + now;

export class ShardSync {
  #last: number | undefined;
  #first: number | undefined;

  /** `wall`: the wall-clock time (ms since the epoch) of a time on the limiter's clock. */
  constructor(readonly wall: (now: number) => number) {}

  /** Whether one of the shards' instants passed since the last call, at a latency of `rttMs`. */
  due(now: number, rttMs: number): boolean {
    const at = this.wall(now);
    const last = this.#last;
    this.#last = at;
    this.#first ??= at;
    if (last === undefined) return false;
    // MIN_RESYNC_MS divides every longer period: shards early and late still meet at the longer one's instants.
    const period = at - this.#first < EARLY_MS ? MIN_RESYNC_MS : resyncPeriod(rttMs);
    return Math.floor(at / period) !== Math.floor(last / period);
  }
}
