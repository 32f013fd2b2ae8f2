// What `--concurrency auto` has seen each load carry, so that a rising latency can be told
// apart from a queue at the server.
//
// A server that serves K at once and queues the rest answers no more per second with more than
// K in flight: every request added waits, latency grows in proportion to the load, and the
// throughput stays flat. Latency can also grow for a reason that does not cap the throughput:
// the client's own work (TLS, HTTP/2 framing, parsing) grows with the requests it holds, and on a
// busy machine an answer waits for the client before it is read. Then more in flight still
// carries more per second, though each answer takes longer (measured over TLS on two cores,
// against a server answering in 20 ms with 200 slots: 25 ms at 8 in flight, 35 ms at 200 with
// the server queueing none of them, and 256 in flight carried 1.6x what 128 did). A limit that
// cut on latency alone stopped there, at 0.66x the best fixed setting. TCP Vegas and BBR read
// the same two signals.
//
// A round's throughput is Little's law (mean in flight / mean latency): what the round's own
// requests saw, with no clock of its own.

/** Which earlier round a load is compared with, and how much more it must carry. */
export interface Reference {
  /** The reference carried between these shares of the load now (the lowest in range is taken: the largest step, the least noise)... */
  atLeast: number;
  atMost: number;
  /** ...and throughput must have grown by at least this share of the growth in load: a queue gives none of it, no cost at all gives all. */
  riseShare: number;
}

/**
 * Slow start doubles: the round before, at half the load. A server with K slots passes up to
 * 1.33 K (K / (L/2) - 1 ≥ 0.5 (2 - 1)), one round past which the next doubling is cut. Down to
 * 0.35: a slow-start round is the first half of its limit's answers (latency-limit.ts), whose
 * mean load is about 3/4 of the limit, so the round before the doubling reads 0.375 of the
 * load after it; a server with K slots then passes up to 1.45 K.
 */
export const AFTER_DOUBLING: Reference = { atLeast: 0.35, atMost: 0.6, riseShare: 0.5 };
/**
 * Growing by steps: a round close below. A server with K slots then passes only up to 1.22 K,
 * where its latency already reads flat (FLAT_BELOW), so it is treated exactly as before; the
 * client-bound case above (0.55 of the load's growth at 256) passes.
 */
export const AFTER_STEPS: Reference = { atLeast: 0.7, atMost: 0.9, riseShare: 0.4 };

/** Loads are kept by eighth of an octave (9% wide), the latest round of each. */
const BUCKETS_PER_OCTAVE = 8;

interface Carried {
  load: number;
  perMs: number;
  /** The limit the round ran under. */
  limit: number;
}

export class ThroughputByLoad {
  readonly #byBucket = new Map<number, Carried>();

  /** Records a round (mean in flight, mean latency, the limit it ran under); call after asking `stillRising` about it. */
  record(load: number, meanRttMs: number, limit: number): void {
    if (load <= 0 || meanRttMs <= 0) return;
    this.#byBucket.set(Math.floor(Math.log2(load) * BUCKETS_PER_OCTAVE), { load, perMs: load / meanRttMs, limit });
  }

  /**
   * Whether this round carried more per second than the reference by enough; false without one.
   * The reference ran under a lower limit: two rounds under the same limit differ in load only by
   * how full they kept it, and a round that filled it less (the first after a cut, while the
   * server's queue drains) reads as carrying less, so the next looks like a rise. Measured at a
   * server with 6 slots: such a "rise" at 10 in flight grew the limit to 13, past twice its slots.
   */
  stillRising(load: number, meanRttMs: number, limit: number, { atLeast, atMost, riseShare }: Reference): boolean {
    if (load <= 0 || meanRttMs <= 0) return false;
    let reference: Carried | undefined;
    for (const carried of this.#byBucket.values()) {
      const share = carried.load / load;
      if (share < atLeast || share > atMost || carried.limit >= limit) continue;
      if (reference === undefined || carried.load < reference.load) reference = carried;
    }
    if (reference === undefined) return false;
    const loadGrowth = load / reference.load - 1;
    const throughputGrowth = load / meanRttMs / reference.perMs - 1;
    return throughputGrowth >= riseShare * loadGrowth;
  }
}
