// One throttle for a whole batch: every request attempt, first or retry, passes through it.
//
// It listens to how the server answers and adapts, in the spirit of TCP congestion control
// and of the AWS SDKs' adaptive retry mode. Three parts decide, each on its own state:
// - adaptive-rate.ts: a server that is rate-limiting cuts the sending rate, and requests are
//   then paced; good answers grow it back along CUBIC's curve;
// - concurrency-limit.ts: an overloaded server cuts how many requests may be in flight;
//   good answers grow it back one by one; with `--concurrency auto`, auto-concurrency.ts
//   stands in its place: the limit follows the server's latency, and a 503 cuts that same limit;
// - pause.ts: a long Retry-After, or refusals that go on although we slowed down, pause the
//   whole run; a server that refuses everything for `stallMs` makes the throttle give up;
// - outage.ts: when the service itself fails (502, 503, 504, failed connections for id after id,
//   not a few ids over and over), the run pauses and sends one probe at a time until it answers;
// - retry-quota.ts: a share of failing answers among good ones is retried from one budget for the
//   run, refilled by the good answers.
// controller.ts puts them together, one reaction per round trip. This file is the queue on
// top: it grants permits while they (and --rate) allow, retries before first attempts, and
// holds the ordered pool's new items back meanwhile.

import type { AttemptGate, Feedback, Permit } from '../../http/gate.js';
import { SlidingWindowLimiter } from '../rate-limit.js';
import { LoadController, type Started, type ThrottleChange, type ThrottleStats } from './controller.js';
import type { PaceState, ThrottleOptions } from './throttle-types.js';

export type { ThrottleChange, ThrottleStats } from './controller.js';
export type { Concurrency, PaceState, ThrottleOptions } from './throttle-types.js';

const SETTLE: unique symbol = Symbol('settle');

class ThrottlePermit implements Permit, Started {
  #released = false;
  constructor(
    readonly owner: Throttle,
    readonly startedAt: number,
    readonly sequence: number,
    readonly inFlightAtStart: number,
    /** Its number in the --rate window, if there is one. */
    readonly rateStart: number | undefined,
    readonly retry: boolean,
  ) {}

  release(feedback: Feedback): void {
    if (this.#released) return;
    this.#released = true;
    this.owner[SETTLE](this, feedback);
  }
}

interface Waiter {
  resolve(permit: Permit | undefined): void;
  retry: boolean;
  signal: AbortSignal;
  onAbort(): void;
}

export class Throttle implements AttemptGate {
  readonly #now: () => number;
  readonly #setTimer: (callback: () => void, delayMs: number) => () => void;
  readonly #onChange: ((change: ThrottleChange) => void) | undefined;
  readonly #userLimit: SlidingWindowLimiter | undefined;
  readonly #load: LoadController;

  // Retries go ahead of first attempts: ids already begun finish before new ones start.
  readonly #retries: Waiter[] = [];
  readonly #firsts: Waiter[] = [];
  /** The pool's resume, while it holds new items back for us. */
  #holder: (() => void) | undefined;
  #cancelTimer: (() => void) | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #stopped: string | undefined;
  /** When the throttle stopped (closed or gave up): pauses are counted up to then. */
  #stoppedAt: number | undefined;
  readonly #stopping = new AbortController();

  #inFlight = 0;
  /** The most requests it ever lets be in flight: what the connection pool must allow. */
  readonly maxInFlight: number;

  constructor(options: ThrottleOptions) {
    this.#load = new LoadController(options);
    this.maxInFlight = this.#load.ceiling;
    this.#now = options.now ?? (() => performance.now());
    this.#setTimer = options.setTimer ?? wakeTimer;
    this.#onChange = options.onChange;
    this.#userLimit = options.rate === undefined ? undefined : new SlidingWindowLimiter(options.rate);
  }

  /**
   * A permit to send one attempt, granted at once when nothing waits and every gate is open.
   * Undefined means do not send: `signal` aborted, or the throttle gave up (gaveUp() says why)
   * or was closed.
   */
  acquire(kind: 'first' | 'retry', signal: AbortSignal): Promise<Permit | undefined> {
    if (signal.aborted || this.#stopped !== undefined) return Promise.resolve(undefined);
    const now = this.#now();
    if (this.#retries.length === 0 && this.#firsts.length === 0 && this.#openAt(now) <= now)
      return Promise.resolve(this.#grant(now, kind === 'retry'));
    return new Promise((resolve) => {
      const queue = kind === 'retry' ? this.#retries : this.#firsts;
      const waiter: Waiter = {
        resolve,
        retry: kind === 'retry',
        signal,
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
    this.#load.noteHeldBack(now);
    this.#holder = resume;
    this.#wakeFor(at, now);
    return true;
  }

  /** Why the throttle stopped sending: the server refused every request for `stallMs`, or the run stopped it (stop()). */
  gaveUp(): string | undefined {
    return this.#stopped === CLOSED ? undefined : this.#stopped;
  }

  /**
   * Whether the server admitted a request of this run in about the last second: its refusals
   * then are pacing. A lone id, or a run it admits nothing of, is not being paced but refused.
   */
  admitting(): boolean {
    return this.#load.admitting(this.#now());
  }

  /** The whole service is failing (8 ids in a row failing on their first attempt, with no good answer between): the run pauses and probes, and a failure now is the service's. */
  outage(): boolean {
    return this.#load.inOutage;
  }

  /** A failing answer's retry, paid by the run's good answers (retry-quota.ts): true when the run's budget has one. */
  spareRetry(): boolean {
    return this.#stopped === undefined && this.#load.spareRetry(this.#now());
  }

  /** While the service is down (an outage), for how long so far; else undefined. */
  downFor(): number | undefined {
    return this.pace().downForMs;
  }

  /** Aborted once the throttle grants nothing more: a retry waiting its turn need not wait on. */
  get stopped(): AbortSignal {
    return this.#stopping.signal;
  }

  /** The HTTP layer sent a request again on its own: the server saw it arrive, so --rate counts it. */
  resent(): void {
    this.#userLimit?.record(this.#now());
  }

  stats(): ThrottleStats {
    return this.#load.stats(this.#stoppedAt ?? this.#now());
  }

  /** Why the pace is cut now, as data: the progress line words it (slowdown.ts). */
  pace(): PaceState {
    return this.#load.slowdown.pace(this.#now(), this.#stopped === undefined ? this.#load.downSince : undefined);
  }

  /** After the run: waiting acquisitions get undefined, the timer is cleared, nothing more is granted. */
  close(): void {
    this.#stop(CLOSED);
  }

  /** The run stops sending (--max-duration, a failure budget): as close(), and gaveUp() says `reason` to the attempts it ends. */
  stop(reason: string): void {
    this.#stop(reason, false);
  }

  /** The earliest time a start is allowed; Infinity while the in-flight limit is reached. */
  #openAt(now: number): number {
    const at = this.#load.openAt(now, this.#inFlight);
    return this.#userLimit === undefined || at === Number.POSITIVE_INFINITY ? at : this.#userLimit.nextAllowedAt(at);
  }

  #grant(now: number, retry: boolean): ThrottlePermit {
    this.#inFlight += 1;
    const sequence = this.#load.onStart(now);
    const rateStart = this.#userLimit?.record(now);
    const permit = new ThrottlePermit(this, now, sequence, this.#load.counted(this.#inFlight, now), rateStart, retry);
    this.#load.track(permit);
    return permit;
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
        this.#load.noteHeldBack(now);
        this.#wakeFor(at, now);
        return;
      }
      const waiter = this.#retries.shift() ?? this.#firsts.shift();
      if (waiter !== undefined) {
        waiter.signal.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(this.#grant(now, waiter.retry));
      } else {
        // The pool starts items, each acquiring at once, until hold() says wait again.
        const resume = this.#holder as () => void;
        this.#holder = undefined;
        resume();
      }
    }
    this.#clearTimer();
  }

  /**
   * Wakes the queue when the gates open at `at`. Infinity, the limit reached: the next release
   * pumps, or with auto the oldest request going overdue, whichever comes first.
   */
  #wakeFor(at: number, now: number): void {
    const wake = at === Number.POSITIVE_INFINITY ? this.#load.nextOverdueAt() : at;
    if (wake === Number.POSITIVE_INFINITY) this.#clearTimer();
    else this.#wakeAt(Math.max(wake, now), now);
  }

  #wakeAt(at: number, now: number): void {
    // A timer due sooner stays: it pumps, and the pump sets the next one.
    if (this.#timerAt <= at) return;
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
    const gaveUp = this.#load.onAnswer(permit, feedback, now);
    if (gaveUp !== undefined) this.#stop(gaveUp);
    else this.#pump();
  }

  #stop(reason: string, gaveUp = reason !== CLOSED): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason;
    this.#stoppedAt = this.#now();
    this.#clearTimer();
    // Retries waiting out their backoff end now, and are told there is no more.
    this.#stopping.abort();
    for (const waiter of [...this.#retries.splice(0), ...this.#firsts.splice(0)]) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(undefined);
    }
    if (gaveUp) this.#onChange?.({ kind: 'gave-up', reason });
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
