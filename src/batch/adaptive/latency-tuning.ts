// The numbers `--concurrency auto` (latency-limit.ts) decides by, each with the measurement
// or the reference it comes from. The limiter reads them; the tests and the docs quote them.

/** The highest ceiling auto can be given (`--concurrency auto:256`): far above what a single client should ask of one service. */
export const MAX_AUTO_CONCURRENCY = 256;
/**
 * The ceiling of the default (no --concurrency): a default takes at most this much of a service
 * shared with others. 64 in flight runs 640 requests a second against a 100 ms API (500,000 ids
 * in 13 minutes, against 1 h 45 min at the old fixed 8), and was the best fixed setting against
 * a server serving 48 at once at 50 ms; a server that wants more is one its owner can name:
 * `--concurrency auto:256`.
 */
export const DEFAULT_AUTO_CEILING = 64;
/**
 * Where the default's limit starts, and the concurrency the base latency is measured at. Low, so
 * the first answers show the server's own latency rather than a queue we made (8, the old fixed
 * default, already queues on a server that serves 6 at once); doubling then reaches 8 after one round.
 */
export const BASE_PROBE_LIMIT = 4;
/**
 * A raised ceiling starts this far below it (startingLimit): four doublings, as the default's
 * 4 → 64 takes, whatever the ceiling. Each doubling is a round trip during which the batch runs
 * at half its pace or less: measured at K = 200 over TLS (20 ms), starting `auto:256` at 16
 * rather than 4 took its runs from 0.86-0.89x to 0.96x of fixed 256, at 64 to 1.0x. Who writes
 * `--concurrency auto:256` has said the server takes far more than 4; the first wave of 16 is
 * still the most a server meets before any answer, a quarter of the default's ceiling.
 */
export const START_BELOW_CEILING = 16;

/** Where the limit starts for `ceiling`: BASE_PROBE_LIMIT for the default and below, a sixteenth of a raised one. */
export function startingLimit(ceiling: number): number {
  return Math.min(ceiling, Math.max(BASE_PROBE_LIMIT, Math.floor(ceiling / START_BELOW_CEILING)));
}
/** Answers in a round (at least; a round is also at least one answer per request allowed in flight). */
export const ROUND_MIN_SAMPLES = 8;
/**
 * A round's median latency up to this many times the base is flat, and the limit grows:
 * Envoy's default minRTT buffer (25%), room for the jitter of a real network.
 */
export const FLAT_BELOW = 1.25;
/**
 * From this many times the base the server is queueing, and the limit falls (Gradient2's
 * tolerance). Between the two the limit holds: against a server that serves K at once and
 * queues the rest, that is between 1.25 K and 1.5 K in flight, a queue at most half the
 * base latency long, which keeps the server busy across the network's own delays.
 */
export const QUEUEING_ABOVE = 1.5;
/**
 * Latency this close to the base, in ms, is flat whatever the ratio: the client cannot tell
 * such a queue from its own delays. Timers tick in whole milliseconds, and at thousands of
 * answers a second one turn of the event loop (or one collection) holds answers back about as
 * long. Against a server a few hundred microseconds away (loopback, the same rack) ratios are
 * all noise: measured on loopback, rounds 1.5-6x the base came and went with no queue at the
 * server, and the cuts they caused ran the batch at 3-16 in flight, 25% slower than 32 fixed.
 * Far above any network's jitter it is nothing: 4% of a 50 ms base.
 */
export const MIN_QUEUE_MS = 2;
/**
 * Rounds in a row that must read as queueing before a cut... At a 20 ms base latency, one garbage
 * collection or burst of TLS work in the client makes a whole round look 1.5x slower (measured:
 * 37 ms at 52 in flight against a server queueing none, 23 ms the rounds either side); a queue
 * persists. Costs one round of reaction.
 */
export const QUEUEING_ROUNDS = 2;
/**
 * ...and for at least this long, in ms, from the start of the first of them. The client's own
 * pauses are measured in time, not in rounds: over TLS on two cores against a server with room
 * for 200, the first half second (TLS, the compiler warming up) and a collection later made two
 * and three rounds in a row read 1.6-2.3x the base at 128 and 256 in flight, 80-110 ms in all,
 * and the cuts they caused cost a 10,000-id batch a quarter of its speed. At a base latency of
 * 50 ms and more two rounds take this long anyway; at 20 ms it adds a round or two.
 */
export const QUEUE_PERSISTS_MS = 150;
/**
 * ...or for this many base latencies, if that is shorter. Where the server answers in a few
 * milliseconds (loopback, the same rack), the round trip is mostly the client's own work, and
 * fewer in flight is what makes it faster: on loopback the limit that cut on such rounds settled
 * at 45-100 in flight and ran 10,000 ids in 653 ms, the one that waited 150 ms rode to 256 and
 * took 701 ms (fixed 64: 580-655 ms). At a 20 ms base the full 150 ms applies.
 */
export const QUEUE_PERSISTS_BASES = 8;
/** A cut for queueing never goes below this share of the limit in one round (Gradient2's bound)... */
export const DEEPEST_CUT = 0.5;
/** ...and always takes at least this much off, so a cut is felt. */
export const SHALLOWEST_CUT = 0.9;
/** The base latency is measured again this often (BBR: 10 s; a batch runs for minutes or hours). */
export const REMEASURE_MS = 30_000;
/** Rounds at the floor that are still queueing before the base latency is measured again (Envoy: 5). */
export const FLOOR_ROUNDS_BEFORE_REMEASURE = 5;
/**
 * A cut for queueing that took at least this share off the requests in flight, followed by a
 * round whose latency fell by less than NOT_OURS_RTT_DROP, shows latency that does not move
 * with our load: not our queue but a slower server. The base latency is measured again at once
 * rather than cutting round after round to the floor.
 */
export const NOT_OURS_IN_FLIGHT_DROP = 0.25;
export const NOT_OURS_RTT_DROP = 0.1;
/**
 * A round of fewer answers never reads as carrying more than a lower load (throughput-by-load.ts):
 * the rise a step asks for is 10-20% of the throughput, about the noise in the mean of a dozen
 * latencies. Measured at a server with 6 slots (rounds of 8-11 answers), such a false rise grew
 * the limit from 11 to 13 in one run of eight, past twice the slots; the client-bound case the
 * rule is for runs rounds of a hundred answers and more.
 */
export const RISE_MIN_ANSWERS = 32;
/**
 * Latency this many times the base is a queue even while more in flight still carries more per
 * second (throughput-by-load.ts)... The client's own cost over TLS on two cores measured 1.2-1.6×
 * the base at 128-256 in flight, its pauses up to 2.3× for a round or two (QUEUE_PERSISTS_MS).
 */
export const QUEUE_EVEN_RISING = 2;
/**
 * ...and growth on that rise stops from this many times the base, short of it: against latency =
 * base + k × load, the rise reads only from rounds of 32 answers (RISE_MIN_ANSWERS), so it stops
 * below twice the server's own base for every k (from k = 0.038 × base, latency reaches 1.8× by
 * 28 in flight, where no rise is read).
 */
export const GROW_RISING_BELOW = 1.8;
/** In slow start a round is the limit's answers divided by this (latency-limit.ts onSample). */
export const SLOW_START_ROUND_SHARE = 2;
