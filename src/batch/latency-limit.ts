// `--concurrency auto`: how many requests may be in flight, found from how long the server
// takes to answer, for users who cannot know their server's capacity.
//
// A server with spare capacity answers in the same time however many requests it holds; one
// past its capacity queues the rest, and every answer takes longer by the time spent waiting.
// So the limit grows while the answers take about as long as the base latency (the time the
// server takes when it is not queueing), and falls when they take well longer. This is TCP
// Vegas's reading of a rising round trip, as in Netflix's concurrency-limits (Vegas,
// Gradient2). The base latency is measured as Envoy's adaptive concurrency filter and BBR's
// PROBE_RTT do it, at low concurrency: at the start and again every REMEASURE_MS. A lowest
// latency kept for ever would strand the limit at the floor once the server gets slower for
// good; one that expires on its own creeps up with our own queueing, round after round.
//
// Latency is not the only signal: latency that grows while more in flight still carries more per
// second is the client's own cost, not a queue at the server, and is not cut for
// (throughput-by-load.ts); and a slow round or two is not cut for (QUEUEING_ROUNDS, QUEUE_PERSISTS_MS).
//
// Pure: it keeps no timers, and its time comes from the samples (or the injected clock).

import { LatencyRound } from './latency-round.js';
import { CONCURRENCY_DECREASE } from './throttle/concurrency-limit.js';
import { AFTER_DOUBLING, AFTER_STEPS, ThroughputByLoad } from './throughput-by-load.js';

/**
 * The shape the throttle's fixed in-flight limit has too, so this one can stand in for it behind
 * `--concurrency auto`. The throttle calls onAdmitted for every answer the server processed
 * (2xx, or one that is not a refusal: 400, 404...) and onOverloaded for a 503; not for 429 (the
 * rate's business) nor for answers that say nothing about load (timeouts, 500, 502, 504).
 */
export interface ConcurrencyLimit {
  /** Requests allowed in flight now: a whole number, at least 1. */
  readonly limit: number;
  /** `inFlightAtStart`: requests in flight when this one started, itself included. */
  onAdmitted(rttMs: number, inFlightAtStart: number): void;
  onOverloaded(inFlightAtStart: number): void;
}

export type LimitChangeReason = 'latency flat' | 'queueing' | 'overloaded (503)' | 'measuring base latency' | 'base latency measured';

/** One per change of the limit, never per request: `* concurrency 24 → 32: latency flat`. */
export interface LimitChange {
  from: number;
  to: number;
  reason: LimitChangeReason;
  /** The base latency the decision was made against, in ms; undefined until first measured. */
  baseRttMs: number | undefined;
}

export interface LatencySample {
  rttMs: number;
  inFlightAtStart: number;
  /** When the answer arrived, on the limiter's clock. */
  now: number;
}

export interface LatencyLimitOptions {
  /** Milliseconds; default performance.now. Only onAdmitted and onOverloaded read it. */
  now?: () => number;
  onChange?: (change: LimitChange) => void;
  /** Default MAX_AUTO_CONCURRENCY. */
  ceiling?: number;
}

/** The ceiling: far above what a single client should ask of one service. */
export const MAX_AUTO_CONCURRENCY = 256;
/**
 * Where the limit starts, and the concurrency the base latency is measured at. Low, so the first
 * answers show the server's own latency rather than a queue we made (8, today's default, already
 * queues on a server that serves 6 at once); doubling then reaches 8 after one round.
 */
export const BASE_PROBE_LIMIT = 4;
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

export class LatencyLimit implements ConcurrencyLimit {
  readonly #ceiling: number;
  readonly #now: () => number;
  readonly #onChange: ((change: LimitChange) => void) | undefined;

  #limit = BASE_PROBE_LIMIT;
  #baseRtt: number | undefined;
  #baseMeasuredAt = Number.NEGATIVE_INFINITY;
  /** Doubling until the first round that is not flat, or the first 503 (TCP's slow start). */
  #slowStart = true;
  /** While the base latency is being measured: the limit to go back to after it. */
  #measuring: { restoreTo: number | undefined } | undefined = { restoreTo: undefined };
  /** In-flight count of the last 503: growth slows to one at a time near it. */
  #overloadedAt: number | undefined;
  /**
   * 503s in a row at (or above) the count refused before: each doubles the rounds the limit
   * waits just below it before asking for it again. A server with a hard limit is otherwise
   * asked every other round, and each probe costs refusals (the fixed limit does the same).
   */
  #refusedAgain = 0;
  /** Flat, filled rounds spent just below #overloadedAt since the last 503. */
  #roundsBelowRefused = 0;
  #floorRounds = 0;
  /** Rounds in a row at this limit that read as queueing, and when the first of them opened. */
  #queueingRounds = 0;
  #queueingSince = 0;
  /** When the first of the rounds in a row at this limit above flat latency opened; undefined after a flat one. */
  #aboveFlatSince: number | undefined;
  /** When the round now filling opened: the last change of the limit, or the end of the last round. */
  #roundOpenedAt = Number.NEGATIVE_INFINITY;
  /**
   * Rounds in a row that grew the limit, flat and carrying more than a lower load did. Each
   * doubles the next step (up to the band's width): the longer more in flight keeps carrying
   * more, the further off the server's capacity (CUBIC's growth away from its last loss). From a
   * cut to 64 against a server with room for 200, steps of the square root took 17 rounds back
   * to 256, growing steps take 9.
   */
  #grownInARow = 0;
  /** The round that led to the last cut for queueing, until a round that is not queueing. */
  #lastCut: { meanInFlight: number; rtt: number } | undefined;
  /** Latency that grows while throughput grows with it is not a queue at the server (throughput-by-load.ts). */
  readonly #carried = new ThroughputByLoad();

  /** Answers to requests started before this time saw an older limit, and do not count. */
  #roundStart = Number.NEGATIVE_INFINITY;
  readonly #round = new LatencyRound();

  constructor(options: LatencyLimitOptions = {}) {
    const ceiling = options.ceiling ?? MAX_AUTO_CONCURRENCY;
    if (!Number.isInteger(ceiling) || ceiling < 1) {
      throw new RangeError(`ceiling must be a whole number of at least 1, got ${ceiling}`);
    }
    this.#ceiling = ceiling;
    this.#limit = Math.min(BASE_PROBE_LIMIT, ceiling);
    this.#now = options.now ?? (() => performance.now());
    this.#onChange = options.onChange;
  }

  get limit(): number {
    return this.#limit;
  }

  /**
   * The limit the run works at: while the base latency is measured again (a few rounds at
   * BASE_PROBE_LIMIT), the one it goes back to after. What a summary names as where the run settled.
   */
  get settled(): number {
    return this.#measuring?.restoreTo ?? this.#limit;
  }

  /** The base latency in ms; undefined until the first round is over. */
  get baseRttMs(): number | undefined {
    return this.#baseRtt;
  }

  onAdmitted(rttMs: number, inFlightAtStart: number): void {
    this.onSample({ rttMs, inFlightAtStart, now: this.#now() });
  }

  onSample({ rttMs, inFlightAtStart, now }: LatencySample): void {
    if (now - rttMs < this.#roundStart) return;
    // Only answers to requests sent at low concurrency show the base latency.
    if (this.#measuring !== undefined && inFlightAtStart > BASE_PROBE_LIMIT) return;
    this.#round.add(rttMs, inFlightAtStart);
    const roundSize = this.#measuring === undefined ? Math.max(ROUND_MIN_SAMPLES, this.#limit) : ROUND_MIN_SAMPLES;
    if (this.#round.size >= roundSize) this.#endRound(now);
  }

  onOverloaded(inFlightAtStart: number): void {
    const now = this.#now();
    const limit = this.#measuring?.restoreTo ?? this.#limit;
    // Sent with more in flight than the limit allows now: the cut already answered its load.
    if (inFlightAtStart > limit || limit <= 1) return;
    const next = Math.max(1, Math.floor(CONCURRENCY_DECREASE * inFlightAtStart));
    this.#refusedAgain = this.#overloadedAt !== undefined && inFlightAtStart >= this.#overloadedAt ? this.#refusedAgain + 1 : 0;
    this.#roundsBelowRefused = 0;
    this.#grownInARow = 0;
    this.#overloadedAt = inFlightAtStart;
    this.#slowStart = false;
    if (this.#measuring?.restoreTo !== undefined) {
      this.#measuring.restoreTo = Math.min(this.#measuring.restoreTo, next);
      if (next < this.#limit) this.#set(next, 'overloaded (503)', now);
      return;
    }
    this.#set(next, 'overloaded (503)', now);
  }

  #endRound(now: number): void {
    const { medianRtt: rtt, meanRtt, meanInFlight, maxInFlight, answers } = this.#round.close();
    const openedAt = this.#roundOpenedAt;
    this.#roundOpenedAt = now;
    const grownInARow = this.#grownInARow;
    this.#grownInARow = 0;
    const filled = maxInFlight >= this.#limit;
    const rising =
      answers >= RISE_MIN_ANSWERS &&
      this.#carried.stillRising(meanInFlight, meanRtt, this.#limit, this.#slowStart ? AFTER_DOUBLING : AFTER_STEPS);
    this.#carried.record(meanInFlight, meanRtt, this.#limit);

    if (this.#measuring !== undefined) {
      const { restoreTo } = this.#measuring;
      this.#measuring = undefined;
      this.#baseRtt = rtt;
      this.#baseMeasuredAt = now;
      if (restoreTo === undefined) this.#grow(now);
      else this.#set(restoreTo, 'base latency measured', now);
      return;
    }

    const base = this.#baseRtt as number;
    if (rtt < base) {
      // A round this fast shows the base latency at least as well as a measurement would.
      this.#baseRtt = rtt;
      this.#baseMeasuredAt = now;
    }
    const ratio = rtt / (this.#baseRtt as number);
    const measurable = rtt - (this.#baseRtt as number) >= MIN_QUEUE_MS;
    const flat = ratio <= FLAT_BELOW || !measurable;
    if (flat) this.#aboveFlatSince = undefined;
    else this.#aboveFlatSince ??= openedAt;
    let stale = false;
    const queueing = ratio >= QUEUEING_ABOVE && measurable && !rising;
    this.#queueingRounds = queueing ? this.#queueingRounds + 1 : 0;
    if (this.#queueingRounds === 1) this.#queueingSince = openedAt;
    const lasting = Math.min(QUEUE_PERSISTS_MS, QUEUE_PERSISTS_BASES * (this.#baseRtt as number));
    const persists = this.#queueingRounds >= QUEUEING_ROUNDS && now - this.#queueingSince >= lasting;
    if (queueing && !persists) {
      // A slow round or two is as likely a pause of our own (a collection, a burst of TLS work) as a queue.
    } else if (queueing) {
      this.#slowStart = false;
      this.#floorRounds = this.#limit === 1 ? this.#floorRounds + 1 : 0;
      const cut = this.#lastCut;
      stale =
        cut !== undefined && meanInFlight <= (1 - NOT_OURS_IN_FLIGHT_DROP) * cut.meanInFlight && rtt >= (1 - NOT_OURS_RTT_DROP) * cut.rtt;
      if (!stale) {
        this.#lastCut = { meanInFlight, rtt };
        // Little's law: the server gets through meanInFlight / rtt per ms; at its base latency,
        // that throughput needs meanInFlight * base / rtt in flight, no queue.
        const fit = Math.floor((meanInFlight * (this.#baseRtt as number)) / rtt);
        const next = Math.max(1, Math.ceil(DEEPEST_CUT * this.#limit), Math.min(fit, Math.floor(SHALLOWEST_CUT * this.#limit)));
        this.#set(next, 'queueing', now);
      }
    } else {
      this.#floorRounds = 0;
      this.#lastCut = undefined;
      // Flat latency with the limit filled: more in flight, same time each, so more per second;
      // or latency that grew but not as a queue does, since more in flight still carried more.
      if ((flat || rising) && filled) {
        // Only a round both flat and carrying more than a lower load did speeds the next step:
        // latency reads flat up to 1.25 K at a server with K slots, but past K it carries no
        // more; and just after a cut, a queue draining at the server can make the rounds before
        // look poor, so that rounds already past K read as carrying more.
        this.#grownInARow = flat && rising ? grownInARow : 0;
        this.#grow(now);
      } else if (!flat && filled && now - (this.#aboveFlatSince as number) >= lasting) {
        // Slow start ends on latency above flat that lasts, as a cut waits for a queue that
        // lasts: at 128 of a server with room for 200 over TLS, the client's first half second
        // made one round 1.3-1.9x the base and the next flat, and ending there left the limit to
        // climb to 256 by steps, 0.3-0.4 s later. A round that never filled the limit (the
        // requests a doubling added not all out yet) says nothing of it.
        this.#slowStart = false;
      }
    }

    const due = now - this.#baseMeasuredAt >= REMEASURE_MS || this.#floorRounds >= FLOOR_ROUNDS_BEFORE_REMEASURE;
    if (this.#measuring === undefined && (stale || due)) {
      this.#floorRounds = 0;
      this.#lastCut = undefined;
      this.#measuring = { restoreTo: this.#limit };
      this.#set(Math.min(this.#limit, BASE_PROBE_LIMIT), 'measuring base latency', now);
      this.#roundStart = now;
    }
  }

  #grow(now: number): void {
    const limit = this.#limit;
    if (this.#overloadedAt !== undefined && limit >= this.#overloadedAt) {
      // A round at the count the server last refused, without a refusal: it takes that now.
      // Past it, growth starts again from small steps.
      this.#overloadedAt = undefined;
      this.#refusedAgain = 0;
      this.#grownInARow = 0;
    }
    // Envoy's headroom (the square root), doubled for each round in a row that grew, flat and
    // carrying more (#grownInARow), but never a step that could carry the limit across the band
    // where it holds, from its flat edge past its queueing one (1.5 / 1.25 = 1.2).
    const headroom = Math.floor(Math.sqrt(limit)) * 2 ** Math.min(this.#grownInARow, 8);
    const step = Math.max(1, Math.min(headroom, Math.floor((QUEUEING_ABOVE / FLAT_BELOW - 1) * limit)));
    let next = this.#slowStart ? limit * 2 : limit + step;
    // Quickly back to just below where the server refused, then one at a time.
    if (this.#overloadedAt !== undefined) {
      next = Math.min(next, Math.max(limit + 1, this.#overloadedAt - 1));
      // Asking for the refused count again: only after 2^n - 1 good rounds below it, n the refusals there in a row.
      if (next >= this.#overloadedAt && this.#roundsBelowRefused < 2 ** this.#refusedAgain - 1) {
        this.#roundsBelowRefused += 1;
        this.#grownInARow = 0;
        return;
      }
    }
    this.#grownInARow += 1;
    this.#set(Math.min(this.#ceiling, next), 'latency flat', now);
  }

  #set(to: number, reason: LimitChangeReason, now: number): void {
    if (to === this.#limit) return;
    const from = this.#limit;
    this.#limit = to;
    this.#roundStart = now;
    this.#roundOpenedAt = now;
    this.#queueingRounds = 0;
    this.#aboveFlatSince = undefined;
    this.#round.clear();
    this.#onChange?.({ from, to, reason, baseRttMs: this.#baseRtt });
  }
}
