// One throttle for a whole batch: every request attempt, first or retry, passes through it.
//
// It listens to how the server answers and adapts, in the spirit of TCP congestion control
// and of the AWS SDKs' adaptive retry mode:
// - 429 (rate limited) cuts the sending rate, and requests are then paced;
// - 503 (overloaded) cuts how many requests may be in flight at once;
// - each cut is multiplicative and happens at most once per round trip; good answers grow
//   the rate back along CUBIC's curve and the in-flight limit one by one;
// - a long Retry-After, or refusals that go on although we slowed down, pause the whole run;
// - a server that refuses everything for `stallMs` makes the throttle give up.

import { RecentCount, SlidingWindowLimiter } from './rate-limit.js';
import {
  CONCURRENCY_DECREASE,
  CONCURRENCY_INCREASE_AFTER,
  cubicGrowth,
  DEFAULT_MAX_PAUSE_MS,
  DEFAULT_PAUSE_MS,
  DEFAULT_STALL_MS,
  type Feedback,
  LONG_RETRY_AFTER_MS,
  MIN_RATE,
  type Permit,
  PROBE_DOUBLING_MS,
  PROBE_DOUBLINGS,
  RATE_DECREASE,
  RECOVERED_ABOVE,
  type ThrottleChange,
  type ThrottleOptions,
  type ThrottleStats,
} from './throttle-policy.js';

/** The admitted rate is measured over about the last second. */
const MEASURE_MS = 1000;
/** Less time than this since the first start is not a span to divide by: see #admittedRate. */
const MIN_MEASURE_MS = 10;

const SETTLE: unique symbol = Symbol('settle');

class ThrottlePermit implements Permit {
  #released = false;
  constructor(
    readonly owner: Throttle,
    readonly startedAt: number,
    /** The how-many-th start: tells whether it began before or after a cut, even within one millisecond. */
    readonly sequence: number,
    /** Requests in flight when this one started, itself included. */
    readonly inFlightAtStart: number,
    /** Its number in the --rate window, if there is one. */
    readonly rateStart: number | undefined,
  ) {}

  release(feedback: Feedback): void {
    if (this.#released) return;
    this.#released = true;
    this.owner[SETTLE](this, feedback);
  }
}

interface Waiter {
  resolve(permit: Permit | undefined): void;
  signal: AbortSignal;
  onAbort(): void;
  since: number;
}

export class Throttle {
  readonly #ceiling: number;
  readonly #stallMs: number;
  readonly #maxPauseMs: number;
  readonly #now: () => number;
  readonly #setTimer: (callback: () => void, delayMs: number) => () => void;
  readonly #onChange: ((change: ThrottleChange) => void) | undefined;
  readonly #userLimit: SlidingWindowLimiter | undefined;

  // Retries go ahead of first attempts: ids already begun finish before new ones start.
  readonly #retries: Waiter[] = [];
  readonly #firsts: Waiter[] = [];
  /** The pool's resume, while it holds new items back for us, and since when. */
  #holder: (() => void) | undefined;
  #holdingSince = 0;
  #cancelTimer: (() => void) | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #stopped: string | undefined;

  #inFlight = 0;
  #limit: number;
  #started = 0;
  #firstStartAt: number | undefined;
  #lastStartAt = Number.NEGATIVE_INFINITY;

  /** Requests per second; Infinity until the first 429. */
  #rate = Number.POSITIVE_INFINITY;
  /** Where the server pushed back at the last cut. */
  #rateAtCut = 0;
  /** Seconds of good answers since the last cut, counted in answers at the current rate. */
  #sinceCut = 0;
  readonly #oks = new RecentCount(MEASURE_MS);
  readonly #recentOks = new RecentCount(MEASURE_MS / 4);
  #goodStreak = 0;
  /** How many times the current limit's probe (limit + 1) was refused: see CONCURRENCY_INCREASE_AFTER. */
  #refusedProbes = 0;
  /** The limit the last probe started from. */
  #probedFrom = 0;
  /** Slow start after the first cut: from this rate, at this time, doubling until the next cut. */
  #probe: { from: number; since: number } | undefined;
  /** A refusal came with nothing admitted lately: once the pause is over, a slow start from what the server has admitted by then. */
  #probeAfterPause: { oks: number; since: number } | undefined;
  /** 'ok' answers since the run began. */
  #okCount = 0;

  #pausedUntil = Number.NEGATIVE_INFINITY;
  /**
   * When the current (or last) pause began, and whether anything waited for it. Only a pause
   * something waited for is reported, and only for as long as the run lasted: a run whose
   * last requests were told to wait past --max-retry-wait stops at once, and waits for nothing.
   */
  #pauseFrom = 0;
  #pauseFelt = false;
  /** When the throttle stopped (closed or gave up): pauses are counted up to then. */
  #stoppedAt: number | undefined;
  /** Starts up to this sequence number were already under way at the last cut or pause. */
  #reactedAtSequence = 0;
  #cutsSinceOk = 0;
  #refusingSince: number | undefined;
  /** Slowed down, and recovery not reported yet. */
  #slowed = false;

  readonly #stats = { refusals: 0, rateCuts: 0, concurrencyCuts: 0, pauses: 0, pausedMs: 0, longestWaitMs: 0 };

  constructor(options: ThrottleOptions) {
    if (!Number.isInteger(options.ceiling) || options.ceiling < 1) {
      throw new RangeError(`ceiling must be a whole number of at least 1, got ${options.ceiling}`);
    }
    this.#ceiling = options.ceiling;
    this.#limit = options.ceiling;
    this.#stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    this.#maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#setTimer = options.setTimer ?? wakeTimer;
    this.#onChange = options.onChange;
    this.#userLimit = options.rate === undefined ? undefined : new SlidingWindowLimiter(options.rate);
  }

  /**
   * A permit to send one attempt: returned at once when nothing waits and every gate is open
   * (no promise, no timer), else a promise. Undefined means do not send: `signal` aborted, or
   * the throttle gave up (gaveUp() says why) or was closed.
   */
  acquire(kind: 'first' | 'retry', signal: AbortSignal): Permit | undefined | Promise<Permit | undefined> {
    if (signal.aborted || this.#stopped !== undefined) return undefined;
    const now = this.#now();
    if (this.#retries.length === 0 && this.#firsts.length === 0 && this.#openAt(now) <= now) return this.#grant(now);
    return new Promise((resolve) => {
      const queue = kind === 'retry' ? this.#retries : this.#firsts;
      const waiter: Waiter = {
        resolve,
        signal,
        since: now,
        onAbort: () => {
          queue.splice(queue.indexOf(waiter), 1);
          resolve(undefined);
          if (this.#idle()) this.#clearTimer();
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      queue.push(waiter);
      this.#pump();
    });
  }

  /**
   * For the ordered pool's `hold`: true while a new item's first attempt would have to wait,
   * and then `resume` is called once it would not. New items wait in the pool rather than
   * here, and ids waiting out a Retry-After do not keep new ones from starting.
   */
  hold(resume: () => void): boolean {
    if (this.#stopped !== undefined) return false;
    const now = this.#now();
    const at = this.#openAt(now);
    if (this.#retries.length === 0 && this.#firsts.length === 0 && at <= now) return false;
    // Never resumed from in here: the pool counts itself held only once this returns.
    if (this.#holder === undefined) this.#holdingSince = now;
    this.#notePauseFelt(now);
    this.#holder = resume;
    if (at !== Number.POSITIVE_INFINITY) this.#wakeAt(Math.max(at, now), now);
    return true;
  }

  /** Why the throttle stopped sending: the server refused every request for `stallMs`. */
  gaveUp(): string | undefined {
    return this.#stopped === CLOSED ? undefined : this.#stopped;
  }

  /**
   * Whether the server admitted a request of this run in about the last second: its refusals
   * then are pacing. A lone id, or a run it admits nothing of, is not being paced but refused.
   */
  admitting(): boolean {
    return this.#oks.total(this.#now()) > 0;
  }

  /** The HTTP layer sent a request again on its own: the server saw it arrive, so --rate counts it. */
  resent(): void {
    this.#userLimit?.record(this.#now());
  }

  stats(): ThrottleStats {
    const current = this.#pauseFelt ? Math.max(0, Math.min(this.#pausedUntil, this.#stoppedAt ?? this.#now()) - this.#pauseFrom) : 0;
    return {
      ...this.#stats,
      pauses: this.#stats.pauses + (this.#pauseFelt ? 1 : 0),
      pausedMs: this.#stats.pausedMs + current,
      ratePerSecond: this.#rate === Number.POSITIVE_INFINITY ? undefined : this.#rate,
      concurrencyLimit: this.#limit,
    };
  }

  /** After the run: waiting acquisitions get undefined, the timer is cleared, nothing more is granted. */
  close(): void {
    this.#stop(CLOSED);
  }

  /** The earliest time a start is allowed; Infinity while the in-flight limit is reached. */
  #openAt(now: number): number {
    if (this.#inFlight >= this.#limit) return Number.POSITIVE_INFINITY;
    let at = now;
    if (this.#pausedUntil > at) at = this.#pausedUntil;
    // Spaced from the last start at the current rate, so a cut applies to the very next start.
    // No catching up after a late timer: a server that paces strictly refuses starts too close together.
    if (this.#probeAfterPause !== undefined && at <= now) this.#startProbe(429, now);
    if (this.#probe !== undefined) this.#rate = this.#probeRate(now);
    const pacedAt = this.#lastStartAt + 1000 / this.#rate;
    if (pacedAt > at) at = pacedAt;
    if (this.#userLimit !== undefined) at = this.#userLimit.nextAllowedAt(at);
    return at;
  }

  /** The slow start's rate now; past PROBE_DOUBLINGS doublings without a refusal, the first cut was a fluke. */
  #probeRate(now: number): number {
    const doublings = (now - (this.#probe as { since: number }).since) / PROBE_DOUBLING_MS;
    if (doublings < PROBE_DOUBLINGS) return (this.#probe as { from: number }).from * 2 ** doublings;
    this.#probe = undefined;
    if (this.#slowed && this.#limit === this.#ceiling) {
      this.#slowed = false;
      this.#onChange?.({ kind: 'recovered' });
    }
    return Number.POSITIVE_INFINITY;
  }

  #grant(now: number): ThrottlePermit {
    this.#inFlight += 1;
    this.#started += 1;
    this.#firstStartAt ??= now;
    this.#lastStartAt = now;
    const rateStart = this.#userLimit?.record(now);
    return new ThrottlePermit(this, now, this.#started, this.#inFlight, rateStart);
  }

  #idle(): boolean {
    return this.#retries.length === 0 && this.#firsts.length === 0 && this.#holder === undefined;
  }

  /** Grants waiting retries, then first attempts, then lets the pool start new items, while the gates are open. */
  #pump(): void {
    while (!this.#idle()) {
      const now = this.#now();
      const at = this.#openAt(now);
      if (at > now) {
        this.#notePauseFelt(now);
        // Infinity: the next release pumps.
        if (at === Number.POSITIVE_INFINITY) this.#clearTimer();
        else this.#wakeAt(at, now);
        return;
      }
      const waiter = this.#retries.shift() ?? this.#firsts.shift();
      if (waiter !== undefined) {
        waiter.signal.removeEventListener('abort', waiter.onAbort);
        this.#noteWait(now - waiter.since);
        waiter.resolve(this.#grant(now));
      } else {
        // The pool starts items, each acquiring synchronously, until hold() says wait again.
        const resume = this.#holder as () => void;
        this.#holder = undefined;
        this.#noteWait(now - this.#holdingSince);
        resume();
      }
    }
    this.#clearTimer();
  }

  /** Something is held back now: if by a pause, that pause is real and goes in the stats. */
  #notePauseFelt(now: number): void {
    if (this.#pausedUntil > now) this.#pauseFelt = true;
  }

  #noteWait(ms: number): void {
    if (ms > this.#stats.longestWaitMs) this.#stats.longestWaitMs = ms;
  }

  #wakeAt(at: number, now: number): void {
    if (this.#timerAt === at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#cancelTimer = this.#setTimer(() => {
      this.#cancelTimer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#pump();
    }, at - now);
  }

  #clearTimer(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  [SETTLE](permit: ThrottlePermit, feedback: Feedback): void {
    this.#inFlight -= 1;
    if (this.#stopped !== undefined) return;
    const now = this.#now();
    if (permit.rateStart !== undefined) this.#userLimit?.finish(permit.rateStart, now);
    if (feedback.kind === 'ok') this.#onOk(now);
    else if (feedback.kind === 'refused') this.#onRefused(permit, feedback, now);
    if (this.#stopped === undefined) this.#pump();
  }

  #onOk(now: number): void {
    this.#oks.add(now);
    this.#okCount += 1;
    this.#recentOks.add(now);
    this.#cutsSinceOk = 0;
    this.#refusingSince = undefined;
    if (this.#rate !== Number.POSITIVE_INFINITY && this.#probe === undefined) {
      // Time moves with the answers: a run that sends less than the rate allows does not raise it.
      this.#sinceCut += 1 / this.#rate;
      this.#rate = Math.max(MIN_RATE, this.#rateAtCut * cubicGrowth(this.#sinceCut));
    }
    if (this.#limit < this.#ceiling) {
      this.#goodStreak += 1;
      if (this.#goodStreak >= CONCURRENCY_INCREASE_AFTER * this.#limit * 2 ** this.#refusedProbes) {
        this.#goodStreak = 0;
        this.#probedFrom = this.#limit;
        this.#limit += 1;
      }
    }
    if (this.#slowed && this.#probe === undefined && this.#limit === this.#ceiling && this.#rate >= RECOVERED_ABOVE * this.#rateAtCut) {
      this.#slowed = false;
      this.#onChange?.({ kind: 'recovered' });
    }
  }

  #onRefused(permit: ThrottlePermit, { status, retryAfterMs }: Extract<Feedback, { kind: 'refused' }>, now: number): void {
    this.#stats.refusals += 1;
    this.#goodStreak = 0;
    this.#refusingSince ??= now;
    if (now - this.#refusingSince >= this.#stallMs) {
      this.#stop(`the server refused every request for ${Math.round((now - this.#refusingSince) / 1000)} s`);
      return;
    }
    // Requests already under way at the last cut answer with refusals too: one reaction per round trip.
    if (permit.sequence > this.#reactedAtSequence) {
      const cutsRate = status === 429 || this.#limit === 1;
      if (cutsRate && this.#oks.total(now) === 0) {
        // Nothing admitted lately, so no rate to cut from: a cut would start from nothing and
        // crawl back for minutes. Do what the server said, wait, and then start slowly from
        // what it had admitted by then (see #openAt).
        const waitMs = retryAfterMs ?? DEFAULT_PAUSE_MS;
        if (waitMs > 0) this.#pause(waitMs, 'retry-after', now);
        this.#reactedAtSequence = this.#started;
        this.#probeAfterPause = { oks: this.#okCount, since: now };
      } else if (this.#cutsSinceOk >= 2) {
        // Two cuts did not help: the server needs a break, not a slightly slower client.
        this.#pause(retryAfterMs ?? DEFAULT_PAUSE_MS, 'refusing', now);
      } else {
        this.#reactedAtSequence = this.#started;
        this.#cutsSinceOk += 1;
        if (status === 503 && this.#limit > 1) this.#cutConcurrency(permit);
        else this.#cutRate(status, now);
      }
    }
    if (retryAfterMs !== undefined && retryAfterMs > LONG_RETRY_AFTER_MS) this.#pause(retryAfterMs, 'retry-after', now);
  }

  #startProbe(reason: 429 | 503, now: number): void {
    const base = this.#probeAfterPause as { oks: number; since: number };
    this.#probeAfterPause = undefined;
    // What the server admitted while we waited: the answers to requests it had already taken.
    const admitted = ((this.#okCount - base.oks) * 1000) / Math.max(MIN_MEASURE_MS, now - base.since);
    this.#rateAtCut = Math.max(MIN_RATE, admitted);
    this.#rate = Math.max(MIN_RATE, RATE_DECREASE * this.#rateAtCut);
    this.#probe = { from: this.#rate, since: now };
    this.#slowed = true;
    this.#stats.rateCuts += 1;
    this.#onChange?.({ kind: 'slowed', reason, ratePerSecond: this.#rate });
  }

  #cutRate(reason: 429 | 503, now: number): void {
    const first = this.#stats.rateCuts === 0;
    this.#rateAtCut = Math.max(MIN_RATE, Math.min(this.#rate, this.#admittedRate(now)));
    this.#rate = Math.max(MIN_RATE, RATE_DECREASE * this.#rateAtCut);
    this.#probe = first ? { from: this.#rate, since: now } : undefined;
    this.#sinceCut = 0;
    this.#slowed = true;
    this.#stats.rateCuts += 1;
    this.#onChange?.({ kind: 'slowed', reason, ratePerSecond: this.#rate });
  }

  /** From the count in flight when the refused request was sent: the load the server could not take. */
  #cutConcurrency(permit: ThrottlePermit): void {
    const next = Math.max(1, Math.floor(CONCURRENCY_DECREASE * Math.min(this.#limit, permit.inFlightAtStart)));
    // Refused while probing one above a limit that held: probe less often from now on.
    this.#refusedProbes = this.#limit === this.#probedFrom + 1 ? this.#refusedProbes + 1 : 0;
    this.#limit = next;
    this.#goodStreak = 0;
    this.#slowed = true;
    this.#stats.concurrencyCuts += 1;
    this.#onChange?.({ kind: 'concurrency', limit: this.#limit });
  }

  #pause(forMs: number, reason: 'retry-after' | 'refusing', now: number): void {
    const until = now + Math.min(forMs, this.#maxPauseMs);
    if (until <= this.#pausedUntil) return;
    const alreadyPaused = this.#pausedUntil > now;
    if (!alreadyPaused) {
      // The last pause is over: into the stats if anything waited for it, whole.
      if (this.#pauseFelt) {
        this.#stats.pauses += 1;
        this.#stats.pausedMs += this.#pausedUntil - this.#pauseFrom;
      }
      this.#pauseFrom = now;
      this.#pauseFelt = false;
    }
    this.#pausedUntil = until;
    this.#reactedAtSequence = this.#started;
    if (alreadyPaused) return;
    this.#onChange?.({ kind: 'paused', forMs: until - now, reason });
  }

  /**
   * 'ok' answers per second over the last second. Early in a run less time has passed, and
   * that time is the divisor: a full second would understate the rate. The opening burst then
   * reads high, but one cut per round trip brings the rate down within a few round trips,
   * faster than growth would find a rate set too low.
   */
  #admittedRate(now: number): number {
    const span = Math.min(MEASURE_MS, Math.max(MIN_MEASURE_MS, now - (this.#firstStartAt ?? now)));
    const overSecond = (this.#oks.total(now) * 1000) / span;
    // A second that began slowly (a slow start, a pause) understates what the server takes now.
    const lately = (this.#recentOks.total(now) * 1000) / Math.min(span, MEASURE_MS / 4);
    return Math.max(overSecond, lately);
  }

  #stop(reason: string): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason;
    this.#stoppedAt = this.#now();
    this.#clearTimer();
    for (const waiter of [...this.#retries.splice(0), ...this.#firsts.splice(0)]) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(undefined);
    }
    if (reason !== CLOSED) this.#onChange?.({ kind: 'gave-up', reason });
    // The pool goes on, and each item it starts gets no permit: reported at once, not sent.
    const resume = this.#holder;
    this.#holder = undefined;
    resume?.();
  }
}

const CLOSED = 'closed';

// Kept referenced: while requests wait for it, it is all that keeps the process alive
// (an unref'd one let a paused run exit 0 halfway). It is cleared once nothing waits.
function wakeTimer(callback: () => void, delayMs: number): () => void {
  // Rounded up: a timer that fires a fraction early would only be set again.
  const timer = setTimeout(callback, Math.ceil(delayMs));
  return () => clearTimeout(timer);
}
