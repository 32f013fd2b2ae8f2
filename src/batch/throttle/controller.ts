// What the server's answers decide: when the next start may go, by the three parts (the
// adaptive rate, the concurrency limit, the pause rule), and which one reacts to a refusal; the
// outage watch (outage.ts) and the share of 503s (refusal-share.ts) say which failures are the
// service's and which refusals are load.
// Requests already under way at a cut answer with refusals too, so a round trip of refusals
// gets one reaction: a cut of the rate or of the limit, or a pause. The queue that waits on
// these decisions is throttle.ts.

import type { LoadRefusal } from '../../http/classify.js';
import type { Feedback } from '../../http/gate.js';
import { MAX_AUTO_CONCURRENCY, startingLimit } from '../adaptive/latency-tuning.js';
import { AdaptiveRate } from './adaptive-rate.js';
import { AutoConcurrency } from './auto-concurrency.js';
import { ConcurrencyLimit, type InFlightLimit } from './concurrency-limit.js';
import { OutageWatch, PROBE_EVERY_MS } from './outage.js';
import { OverdueWatch } from './overdue.js';
import { Pacing } from './pacing.js';
import { DEFAULT_PAUSE_MS, LONG_RETRY_AFTER_MS, type PauseReason, PauseRule } from './pause.js';
import { RefusalShare } from './refusal-share.js';
import { RetryQuota } from './retry-quota.js';
import { Slowdown } from './slowdown.js';
import type { Started, ThrottleChange, ThrottleStats } from './throttle-types.js';

export type { Started, ThrottleChange, ThrottleStats } from './throttle-types.js';

export interface ControllerOptions {
  /** A fixed ceiling (--concurrency n), or the limit found from the server's latency: 'auto' up to MAX_AUTO_CONCURRENCY, `{ auto: n }` up to n. */
  ceiling: number | 'auto' | { auto: number };
  /** The clock of the starts and answers, which the auto limit's rounds are timed by. */
  now?: (() => number) | undefined;
  stallMs?: number | undefined;
  maxPauseMs?: number | undefined;
  /** `--shard i/n`'s n: shards measure the base latency together (../adaptive/shard-sync.ts). */
  shards?: number | undefined;
  onChange?: ((change: ThrottleChange) => void) | undefined;
}

export class LoadController {
  readonly #rate = new AdaptiveRate();
  readonly #pacing = new Pacing();
  readonly #limit: InFlightLimit;
  readonly #auto: AutoConcurrency | undefined;
  /** With auto: requests that have not answered long after they should have (overdue.ts). */
  readonly #overdue: OverdueWatch | undefined;
  readonly #pauses: PauseRule;
  readonly #outage = new OutageWatch();
  /** Which 503s say overload, and which a server failing a few at random (refusal-share.ts). */
  readonly #shed = new RefusalShare();
  /** When the current outage began. */
  #outageSince = 0;
  /** Retries of failing answers, paid by good ones (retry-quota.ts). */
  readonly #quota = new RetryQuota();
  readonly #onChange: ((change: ThrottleChange) => void) | undefined;
  #started = 0;
  /** Starts up to this sequence number were already under way at the last cut or pause. */
  #reactedAtSequence = 0;
  /** The status of the refusal whose rate cut waits for a pause to end (AdaptiveRate.deferCut). */
  #deferredCutStatus = 0;
  /** Slowed down, and recovery not reported yet; why the pace is cut now (slowdown.ts: Throttle.pace reads it). */
  readonly slowdown: Slowdown;
  #refusals = 0;
  #failures = 0;

  constructor(options: ControllerOptions) {
    const onChange = options.onChange;
    const { ceiling } = options;
    this.#auto =
      typeof ceiling === 'number'
        ? undefined
        : new AutoConcurrency({
            now: options.now,
            shards: options.shards,
            // The user's `auto:N` starts below N as startingLimit says; bare 'auto' (the limiter's own scale) from BASE_PROBE_LIMIT.
            ...(ceiling === 'auto' ? { ceiling: MAX_AUTO_CONCURRENCY } : { ceiling: ceiling.auto, start: startingLimit(ceiling.auto) }),
            onChange: onChange && ((change) => onChange({ kind: 'limit', ...change })),
          });
    this.#limit = this.#auto ?? new ConcurrencyLimit(ceiling as number);
    this.#overdue = this.#auto && new OverdueWatch();
    this.#pauses = new PauseRule({ stallMs: options.stallMs, maxPauseMs: options.maxPauseMs });
    this.slowdown = new Slowdown({ rate: this.#rate, limit: this.#limit, auto: this.#auto, pauses: this.#pauses, outage: this.#outage });
    this.#onChange = options.onChange;
  }

  /** The most it ever lets be in flight: what the connection pool must allow. */
  get ceiling(): number {
    return this.#limit.ceiling;
  }

  /** The earliest time the next start may go, `inFlight` being in flight; Infinity while the in-flight limit is reached. */
  openAt(now: number, inFlight: number): number {
    // In an outage one probe at a time, the next once it has answered and the pause after it is over.
    if (this.#outage.probing) return Number.POSITIVE_INFINITY;
    if (this.counted(inFlight, now) >= this.#limit.limit || inFlight >= this.#limit.ceiling) return Number.POSITIVE_INFINITY;
    const at = Math.max(now, this.#pauses.until);
    if (at <= now && this.#rate.startDeferredCut(now)) this.#slowedDown(this.#deferredCutStatus);
    if (this.#rate.advance(now)) this.#noteIfRecovered();
    // An interval at the current rate after the last start was due: a cut applies to the next start (pacing.ts).
    return Math.max(at, this.#pacing.openAt(1000 / this.#rate.perSecond));
  }

  /**
   * The requests in flight that hold a place under the limit, of `inFlight`: with auto, overdue
   * ones do not, up to the limit's worth of them (overdue.ts). Those newly overdue at `now` are
   * taken as samples first.
   */
  counted(inFlight: number, now: number): number {
    const auto = this.#auto;
    const overdue = this.#overdue;
    if (auto === undefined || overdue === undefined) return inFlight;
    overdue.sweep(now, auto.overdueAfterMs, (start) =>
      auto.onOverdue({ rttMs: now - start.startedAt, inFlightAtStart: start.inFlightAtStart }),
    );
    return inFlight - Math.min(overdue.overdue, this.#limit.limit);
  }

  /** When the oldest request in flight goes overdue (auto only); Infinity otherwise. */
  nextOverdueAt(): number {
    return this.#auto === undefined || this.#overdue === undefined
      ? Number.POSITIVE_INFINITY
      : this.#overdue.nextAt(this.#auto.overdueAfterMs);
  }

  /** A start; its number. */
  onStart(now: number): number {
    this.#rate.onStart(now);
    this.#pacing.started(now, 1000 / this.#rate.perSecond);
    this.#started += 1;
    this.#outage.onStart(this.#started);
    return this.#started;
  }

  /** The start, as numbered, once its permit exists: watched for going overdue. */
  track(start: Started): void {
    this.#overdue?.started(start);
    this.#auto?.onStarted(start.inFlightAtStart);
  }

  /** Whether the server admitted a request in about the last second. */
  admitting(now: number): boolean {
    return this.#rate.admitting(now);
  }

  /** The whole service is failing: the run pauses and probes (outage.ts). */
  get inOutage(): boolean {
    return this.#outage.active;
  }

  /** Since when the service has been down, while it is (outage.ts); else undefined. */
  get downSince(): number | undefined {
    return this.#outage.active ? this.#outageSince : undefined;
  }

  /**
   * A retry after a failing answer (502, 504, a failed connection), paid for by the run's good
   * answers: true while the service serves others of the run and the bucket has one (then it is
   * taken). A service that is down pays nothing: it pauses instead.
   */
  spareRetry(now: number): boolean {
    return !this.#outage.active && this.#rate.admitting(now) && this.#quota.take();
  }

  /** Something is held back now: if by a pause, that pause is real and goes in the stats. */
  noteHeldBack(now: number): void {
    this.#pauses.noteHeldBack(now);
  }

  /** What the answer to `start` said; why to give up on the server, or undefined. */
  onAnswer(start: Started, feedback: Feedback, now: number): string | undefined {
    this.slowdown.onAnswer(feedback, now);
    // An overdue request already gave its sample; its answer is not a second one.
    const sampled = this.#overdue?.answered(start) ?? false;
    if (feedback.kind === 'ok') this.#onAdmitted(start, now, sampled);
    else if (feedback.kind === 'refused') return this.#onRefused(start, feedback, now);
    else if (feedback.kind === 'failing') return this.#onFailing(start, feedback.status, now);
    else this.#outage.onOther(start);
    return undefined;
  }

  /** `end`: when the run stopped, or now. */
  stats(end: number): ThrottleStats {
    const rate = this.#rate.perSecond;
    return {
      refusals: this.#refusals,
      failures: this.#failures,
      outages: this.#outage.outages,
      rateCuts: this.#rate.cuts,
      concurrencyCuts: this.#limit.cuts,
      ...this.#pauses.totals(end),
      ratePerSecond: rate === Number.POSITIVE_INFINITY ? undefined : rate,
      concurrencyLimit: this.#limit.limit,
      ...(this.#auto ? { settledConcurrency: this.#auto.settled } : {}),
      ...this.slowdown.stats(),
    };
  }

  #onAdmitted(start: Started, now: number, sampled: boolean): void {
    if (!start.retry) this.#shed.admitted(start.inFlightAtStart);
    this.#rate.onAdmitted(now);
    this.#pauses.onAdmitted();
    this.#quota.onGood();
    if (this.#outage.onGood(start)) this.#serviceBack(now);
    if (!sampled) this.#limit.onAdmitted({ rttMs: now - start.startedAt, inFlightAtStart: start.inFlightAtStart });
    this.#noteIfRecovered();
  }

  #onRefused(start: Started, { load, status, retryAfterMs }: Extract<Feedback, { kind: 'refused' }>, now: number): string | undefined {
    this.#refusals += 1;
    const gaveUp = this.#pauses.onRefused(now, status, !start.retry || this.#outage.active);
    if (gaveUp !== undefined) return gaveUp;
    // A 503 says the service is failing as a 502 does: many ids in a row of them are an outage.
    if (load === 'overloaded' && this.#onServiceFailing(start, now, true)) return undefined;
    // A retry's 503 is its id's again: its first attempt's was the evidence. (A 429 is always the pace's.)
    if (start.retry && load === 'overloaded') return undefined;
    // A 503 among mostly good answers, at a load the server takes, is a few failing at random: that id's own.
    if (load === 'overloaded' && !this.#shed.refused(start.inFlightAtStart)) return undefined;
    this.#limit.onRefused();
    if (start.sequence > this.#reactedAtSequence) this.#react(start, load, status, retryAfterMs, now);
    if (retryAfterMs !== undefined && retryAfterMs > LONG_RETRY_AFTER_MS) this.#pause(retryAfterMs, 'retry-after', now);
    return undefined;
  }

  /** A 502, a 504, a refused or reset connection: the service is failing for this request. */
  #onFailing(start: Started, status: number | undefined, now: number): string | undefined {
    this.#failures += 1;
    const gaveUp = this.#pauses.onRefused(now, status, !start.retry || this.#outage.active);
    if (gaveUp !== undefined) return gaveUp;
    this.#onServiceFailing(start, now);
    return undefined;
  }

  /** Whether the service is down (outage.ts); in an outage, each failure pauses the run until the next probe. */
  #onServiceFailing(start: Started, now: number, shed = false): boolean {
    if (this.#outage.onFailing(start, now, shed)) {
      this.#outageSince = now;
      this.#pause(PROBE_EVERY_MS, 'failing', now);
    } else if (this.#outage.active) {
      // The failed probe, or the answers of requests already out: said once, when the outage began.
      this.#pauses.pause(PROBE_EVERY_MS, now);
    }
    return this.#outage.active;
  }

  /** A good answer after an outage: the run starts again slowly, as TCP does after a loss of everything. */
  #serviceBack(now: number): void {
    this.#rate.restart(now);
    this.slowdown.slowed();
    this.#onChange?.({ kind: 'service-back', afterMs: now - this.#outageSince });
  }

  /** The one cut or pause a round trip of refusals gets. */
  #react(start: Started, load: LoadRefusal, status: number, retryAfterMs: number | undefined, now: number): void {
    // At one in flight there is nothing left to cut but the rate.
    const cutsInFlight = load === 'overloaded' && this.#limit.limit > 1;
    if (!cutsInFlight && !this.#rate.admitting(now)) {
      // Nothing admitted lately, so no rate to cut from: do what the server said, wait, and
      // then start slowly from what it had admitted by then (see openAt).
      const waitMs = retryAfterMs ?? DEFAULT_PAUSE_MS;
      if (waitMs > 0) this.#pause(waitMs, 'retry-after', now);
      this.#reactedAtSequence = this.#started;
      this.#rate.deferCut(now);
      this.#deferredCutStatus = status;
    } else if (this.#pauses.cutsNotHelping) {
      this.#pause(retryAfterMs ?? DEFAULT_PAUSE_MS, 'refusing', now);
    } else {
      this.#reactedAtSequence = this.#started;
      this.#pauses.onCut();
      if (cutsInFlight) {
        this.#limit.onOverloaded(start.inFlightAtStart);
        // The auto limit reports its own changes, the cut among them, and grows back on its own.
        if (this.#auto === undefined) {
          this.slowdown.slowed();
          this.#onChange?.({ kind: 'concurrency', status, limit: this.#limit.limit });
        }
      } else {
        this.#rate.cut(now);
        this.#slowedDown(status);
      }
    }
  }

  #slowedDown(status: number): void {
    this.slowdown.slowed();
    this.#onChange?.({ kind: 'slowed', status, ratePerSecond: this.#rate.perSecond });
  }

  #noteIfRecovered(): void {
    if (this.slowdown.awaitingRecovery && !this.#outage.active && this.#rate.recovered && this.#limit.atCeiling) {
      this.slowdown.recovered();
      this.#onChange?.({ kind: 'recovered' });
    }
  }

  #pause(forMs: number, reason: PauseReason, now: number): void {
    const paused = this.#pauses.pause(forMs, now, reason);
    if (paused === undefined) return;
    this.#reactedAtSequence = this.#started;
    if (paused.began) this.#onChange?.({ kind: 'paused', forMs: paused.forMs, reason });
  }
}
