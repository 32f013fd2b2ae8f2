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
// Latency is not the only signal. Latency that grows while more in flight still carries more per
// second is the client's own cost, not a queue at the server (throughput-by-load.ts); so is latency
// read while the client's event loop was too busy to read the answers as they came (client-busy.ts);
// neither is cut for, nor a slow round or two (QUEUEING_ROUNDS, QUEUE_PERSISTS_MS).
//
// Pure: it keeps no timers, and its time comes from the samples (or the injected clock).

import { CONCURRENCY_DECREASE } from '../throttle/concurrency-limit.js';
import type { BaseMeasure } from './base-measure.js';
import { CLIENT_BUSY, EVENT_LOOP, IDLE_LOOP, type LoopUse, lastedRatio, type Opened, serverShare } from './client-busy.js';
import { doublingStaysShort, LatencyGrowth, queueingCut } from './latency-growth.js';
import type { ConcurrencyLimit, LatencyLimitOptions, LatencySample, LimitChange, LimitChangeReason } from './latency-limit-types.js';
import { LatencyRound } from './latency-round.js';
import {
  BASE_PROBE_LIMIT,
  FLAT_BELOW,
  GROW_RISING_BELOW,
  MAX_AUTO_CONCURRENCY,
  MIN_QUEUE_MS,
  NOT_OURS_IN_FLIGHT_DROP,
  NOT_OURS_RTT_DROP,
  QUEUE_EVEN_RISING,
  QUEUE_PERSISTS_BASES,
  QUEUE_PERSISTS_MS,
  QUEUEING_ABOVE,
  QUEUEING_ROUNDS,
  RISE_MIN_ANSWERS,
  ROUND_MIN_SAMPLES,
  SLOW_START_ROUND_SHARE,
} from './latency-tuning.js';
import { MeasureSchedule } from './measure-schedule.js';
import { WALL_CLOCK } from './shard-sync.js';
import { AFTER_DOUBLING, AFTER_STEPS, ThroughputByLoad } from './throughput-by-load.js';

export type { ConcurrencyLimit, LatencyLimitOptions, LatencySample, LimitChange, LimitChangeReason } from './latency-limit-types.js';

export class LatencyLimit implements ConcurrencyLimit {
  readonly #ceiling: number;
  /** Where the limit starts, and the base latency is first measured (startingLimit). */
  readonly #start: number;
  readonly #now: () => number;
  readonly #onChange: ((change: LimitChange) => void) | undefined;
  readonly #loop: LoopUse;

  #limit: number;
  #baseRtt: number | undefined;
  /** The round the base latency was read from: its mean in flight, and how busy the client's loop was. */
  #baseRound = { load: 0, loopBusy: 0 };
  /** Doubling until the first round that is not flat, or the first 503 (TCP's slow start). */
  #slowStart = true;
  /** While the base latency is being measured (base-measure.ts), and when it is (measure-schedule.ts). */
  #measuring: BaseMeasure | undefined;
  readonly #schedule: MeasureSchedule;
  /** Rounds in a row at this limit that read as queueing, and when the first of them opened. */
  #queueingRounds = 0;
  #queueingSince: Opened = { at: 0, loop: undefined };
  /** When the first of the rounds in a row at this limit above flat latency opened; undefined after a flat one. */
  #aboveFlatSince: Opened | undefined;
  /** When the round now filling opened: the last change of the limit, or the end of the last round. */
  #roundOpened: Opened;
  /** The most requests started with under the limit since the round opened (onStarted). */
  #mostStarted = 0;
  /** The round that led to the last cut for queueing, until a round that is not queueing. */
  #lastCut: { meanInFlight: number; rtt: number } | undefined;
  /** Latency that grows while throughput grows with it is not a queue at the server (throughput-by-load.ts). */
  readonly #carried = new ThroughputByLoad();
  readonly #growth = new LatencyGrowth();

  /** Answers to requests started before this time saw an older limit, and do not count. */
  #roundStart = Number.NEGATIVE_INFINITY;
  readonly #round = new LatencyRound();

  constructor(options: LatencyLimitOptions = {}) {
    const ceiling = options.ceiling ?? MAX_AUTO_CONCURRENCY;
    if (!Number.isInteger(ceiling) || ceiling < 1) {
      throw new RangeError(`ceiling must be a whole number of at least 1, got ${ceiling}`);
    }
    this.#ceiling = ceiling;
    this.#start = Math.min(ceiling, options.start ?? BASE_PROBE_LIMIT);
    this.#limit = this.#start;
    this.#now = options.now ?? (() => performance.now());
    this.#onChange = options.onChange;
    this.#loop = options.loop ?? (options.now ? IDLE_LOOP : EVENT_LOOP);
    // An injected clock stands for the wall clock too: shards in a test share it.
    this.#schedule = new MeasureSchedule(options.shards ?? 1, options.now ? (now) => now : WALL_CLOCK);
    this.#measuring = this.#schedule.first();
    this.#roundOpened = { at: Number.NEGATIVE_INFINITY, loop: this.#loop.mark() };
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

  /**
   * A request started with `inFlight` under the limit, itself included. Whether a round used the
   * limit is read from the starts: in slow start its answers are those of the doubling's requests
   * that started with the fewest in flight, which never show the limit reached.
   */
  onStarted(inFlight: number): void {
    if (inFlight > this.#mostStarted) this.#mostStarted = inFlight;
    if (this.#schedule.shared) this.#measuring?.begin(this.#now());
  }

  onAdmitted(rttMs: number, inFlightAtStart: number): void {
    this.onSample({ rttMs, inFlightAtStart, now: this.#now() });
  }

  onSample({ rttMs, inFlightAtStart, now }: LatencySample): void {
    const together = this.#schedule.together(now, rttMs, this.#limit, () => this.#inUse());
    if (together) this.#remeasure(together, now);
    if (now - rttMs < this.#roundStart) return;
    // Only answers to requests sent at low concurrency show the base latency.
    const first = this.#measuring?.restoreTo === undefined;
    if (this.#measuring !== undefined && inFlightAtStart > (first ? this.#start : BASE_PROBE_LIMIT)) return;
    this.#round.add(rttMs, inFlightAtStart);
    // In slow start a round is half the limit's answers: the requests the last doubling added go
    // out at once, on top of those already in flight, so the first of them to answer carry the new
    // load, and the climb takes a round trip per doubling instead of two.
    const perRound = this.#slowStart ? Math.ceil(this.#limit / SLOW_START_ROUND_SHARE) : this.#limit;
    const roundSize = this.#measuring === undefined ? Math.max(ROUND_MIN_SAMPLES, perRound) : ROUND_MIN_SAMPLES;
    if (this.#round.size >= roundSize) this.#endRound(now);
  }

  /**
   * A request sent with `inFlightAtStart` in flight has gone `ageMs` without an answer: its latency
   * is at least that, a sample like an answer's. Whether it was taken as one: not while the base
   * latency is measured (a hang is no base latency), and then its answer, if it comes, counts instead.
   */
  onOverdue(ageMs: number, inFlightAtStart: number): boolean {
    if (this.#measuring !== undefined) return false;
    this.onSample({ rttMs: ageMs, inFlightAtStart, now: this.#now() });
    return true;
  }

  onOverloaded(inFlightAtStart: number): void {
    const now = this.#now();
    const limit = this.#measuring?.restoreTo ?? this.#limit;
    // Sent with more in flight than the limit allows now: the cut already answered its load.
    if (inFlightAtStart > limit || limit <= 1) return;
    const next = Math.max(1, Math.floor(CONCURRENCY_DECREASE * inFlightAtStart));
    this.#growth.onOverloaded(inFlightAtStart);
    this.#slowStart = false;
    // While measuring again, the limit to go back to is cut; the measuring limit only if above it.
    const again = this.#measuring?.restoreTo !== undefined;
    if (this.#measuring?.restoreTo !== undefined) this.#measuring.restoreTo = Math.min(this.#measuring.restoreTo, next);
    if (!again || next < this.#limit) this.#set(next, 'overloaded (503)', now);
  }

  #endRound(now: number): void {
    const { medianRtt: rtt, meanRtt, meanInFlight, maxInFlight, answers } = this.#round.close();
    const opened = this.#roundOpened;
    this.#roundOpened = { at: now, loop: this.#loop.mark() };
    // The client kept the answers waiting: this round's latency is its own (client-busy.ts).
    const loopBusy = this.#loop.busySince(opened.loop);
    const busy = loopBusy >= CLIENT_BUSY;
    const grownInARow = this.#growth.takeStreak();
    const filled = Math.max(maxInFlight, this.#mostStarted) >= this.#limit;
    this.#mostStarted = 0;
    const rising =
      answers >= RISE_MIN_ANSWERS &&
      this.#carried.stillRising(meanInFlight, meanRtt, this.#limit, this.#slowStart ? AFTER_DOUBLING : AFTER_STEPS);
    this.#carried.record(meanInFlight, meanRtt, this.#limit);

    if (this.#measuring !== undefined) {
      const measured = this.#measuring.add({ rtt, load: meanInFlight, loopBusy }, now);
      if (measured === undefined) return;
      const { restoreTo } = this.#measuring;
      this.#measuring = undefined;
      this.#baseRtt = measured.rtt;
      this.#baseRound = { load: measured.load, loopBusy: measured.loopBusy };
      this.#schedule.measured(now);
      if (restoreTo === undefined) this.#grow(now);
      else this.#set(restoreTo, 'base latency measured', now);
      return;
    }

    if (rtt < (this.#baseRtt as number)) {
      // A round this fast shows the base latency at least as well as a measurement would.
      this.#baseRtt = rtt;
      this.#baseRound = { load: meanInFlight, loopBusy };
      this.#schedule.measured(now);
    }
    const ratio = rtt / (this.#baseRtt as number);
    const measurable = rtt - (this.#baseRtt as number) >= MIN_QUEUE_MS;
    const flat = ratio <= FLAT_BELOW || !measurable;
    if (flat) this.#aboveFlatSince = undefined;
    else this.#aboveFlatSince ??= opened;
    let stale = false;
    // Latency twice the base is a queue even while throughput still rises: a server whose every
    // answer slows with each request it holds (latency = base + k × load) keeps carrying a little
    // more per second far past where it suffers.
    const queueing = ratio >= QUEUEING_ABOVE && measurable && (!rising || ratio >= QUEUE_EVEN_RISING);
    this.#queueingRounds = queueing ? this.#queueingRounds + 1 : 0;
    if (this.#queueingRounds === 1) this.#queueingSince = opened;
    const lasting = Math.min(QUEUE_PERSISTS_MS, QUEUE_PERSISTS_BASES * (this.#baseRtt as number));
    const persists = this.#queueingRounds >= QUEUEING_ROUNDS && this.#lasted(this.#queueingSince, now, lasting, ratio) >= QUEUEING_ABOVE;
    // A slow round or two is as likely a pause of our own (a collection, a burst of TLS work) as a queue: nothing yet.
    const waitAndSee = queueing && !persists && !busy;
    this.#schedule.round(rtt, waitAndSee ? undefined : queueing && persists && this.#limit === 1);
    if (queueing && persists) {
      this.#slowStart = false;
      const cut = this.#lastCut;
      stale =
        cut !== undefined && meanInFlight <= (1 - NOT_OURS_IN_FLIGHT_DROP) * cut.meanInFlight && rtt >= (1 - NOT_OURS_RTT_DROP) * cut.rtt;
      if (!stale) {
        this.#lastCut = { meanInFlight, rtt };
        this.#set(queueingCut(this.#limit, { meanInFlight, rtt, baseRtt: this.#baseRtt as number }), 'queueing', now);
      }
    } else if (!waitAndSee) {
      this.#lastCut = undefined;
      // Flat latency with the limit filled: more in flight, same time each, so more per second;
      // or latency that grew but not as a queue does, since more in flight still carried more.
      if ((flat || busy || (rising && ratio < GROW_RISING_BELOW)) && filled) {
        // Only a round both flat and carrying more than a lower load did speeds the next step:
        // latency reads flat up to 1.25 K at a server with K slots, but past K it carries no
        // more; and just after a cut, a queue draining at the server can make the rounds before
        // look poor, so that rounds already past K read as carrying more.
        this.#growth.keepStreak(flat && rising ? grownInARow : 0);
        // The client's own share taken off both, as from a lasting rise (client-busy.ts).
        const base = { rtt: serverShare(this.#baseRtt as number, this.#baseRound.loopBusy), load: this.#baseRound.load };
        const round = { rtt: serverShare(rtt, loopBusy), load: meanInFlight };
        const cutAt = rising ? QUEUE_EVEN_RISING : QUEUEING_ABOVE;
        this.#grow(now, !this.#slowStart || busy || doublingStaysShort(base, round, 2 * this.#limit, cutAt));
      } else if (!flat && !rising && filled && this.#lasted(this.#aboveFlatSince as Opened, now, lasting, ratio) > FLAT_BELOW) {
        // Slow start ends on latency above flat that lasts, as a cut waits for a queue that
        // lasts: at 128 of a server with room for 200 over TLS, the client's first half second
        // made one round 1.3-1.9x the base and the next flat, and ending there left the limit to
        // climb to 256 by steps, 0.3-0.4 s later. A round that never filled the limit (the
        // requests a doubling added not all out yet) says nothing of it.
        this.#slowStart = false;
      }
    }

    const alone = this.#measuring === undefined ? this.#schedule.alone(now, stale, this.#limit) : undefined;
    if (alone) this.#remeasure(alone, now);
  }

  /** A shard's limit is in use: not measuring, past slow start, and not at its ceiling with latency flat (a server with room). */
  #inUse(): boolean {
    return this.#measuring === undefined && !this.#slowStart && !(this.#limit >= this.#ceiling && this.#aboveFlatSince === undefined);
  }

  /** The base latency is measured again, at BASE_PROBE_LIMIT in flight. */
  #remeasure(measure: BaseMeasure, now: number): void {
    this.#lastCut = undefined;
    this.#measuring = measure;
    this.#set(Math.min(this.#limit, BASE_PROBE_LIMIT), 'measuring base latency', now);
    this.#roundStart = now;
    this.#round.clear();
  }

  #lasted(opened: Opened, now: number, lasting: number, ratio: number): number {
    return lastedRatio(this.#loop, opened, { now, lasting, ratio, baseLoopBusy: this.#baseRound.loopBusy });
  }

  #grow(now: number, mayDouble = true): void {
    const next = this.#growth.next(this.#limit, this.#slowStart && mayDouble);
    if (next !== undefined) this.#set(Math.min(this.#ceiling, next), 'latency flat', now);
  }

  #set(to: number, reason: LimitChangeReason, now: number): void {
    if (to === this.#limit) return;
    const from = this.#limit;
    this.#limit = to;
    this.#roundStart = now;
    this.#roundOpened = { at: now, loop: this.#loop.mark() };
    this.#mostStarted = 0;
    this.#queueingRounds = 0;
    this.#aboveFlatSince = undefined;
    this.#round.clear();
    this.#onChange?.({ from, to, reason, baseRttMs: this.#baseRtt });
  }
}
