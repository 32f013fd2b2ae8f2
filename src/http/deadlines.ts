import { EventEmitter } from 'node:events';

/** The abort reason of a signal whose time ran out. */
export const TIMED_OUT = Symbol('timed out');

/**
 * What undici accepts as a request's `signal`: an EventEmitter that emits
 * 'abort', with the reason on `reason`. Cheaper per request than an
 * AbortSignal, whose EventTarget listeners a large batch pays for on every request.
 * (No `aborted` property on purpose: undici would then treat it as an AbortSignal.)
 */
export class DeadlineSignal extends EventEmitter {
  reason: unknown = undefined;

  constructor() {
    super();
    // Every request in flight in this bucket listens: up to --concurrency at once.
    this.setMaxListeners(0);
  }

  fire(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.emit('abort');
  }
}

interface Bucket {
  signal: DeadlineSignal;
  opensUntil: number;
  timer: NodeJS.Timeout;
}

/**
 * Signals that fire when an attempt's time is up, or at once on Ctrl-C.
 *
 * A controller and a timer per request weigh on a large batch on loopback,
 * so attempts that start close together share one: each signal serves the
 * attempts started within one "bucket" (a twentieth of the timeout, 5 to 250 ms)
 * and fires `timeoutMs` after the bucket closes. Every attempt it aborts has
 * therefore run at least `timeoutMs`, and at most one bucket longer.
 */
export class Deadlines {
  readonly #timeoutMs: number;
  readonly #width: number;
  readonly #interrupt: AbortSignal;
  readonly #live = new Set<Bucket>();
  #current: Bucket | undefined;
  readonly #onInterrupt = (): void => {
    for (const bucket of this.#live) bucket.signal.fire(this.#interrupt.reason);
  };

  constructor(timeoutMs: number, interrupt: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#width = Math.min(250, Math.max(5, Math.floor(timeoutMs / 20)));
    this.#interrupt = interrupt;
    interrupt.addEventListener('abort', this.#onInterrupt, { once: true });
  }

  /** A signal for an attempt starting now. Callers check the interrupt themselves before sending. */
  signal(): DeadlineSignal {
    const now = performance.now();
    if (this.#current === undefined || now >= this.#current.opensUntil) this.#current = this.#open(now);
    return this.#current.signal;
  }

  /** Stops every timer; signals already handed out stay as they are. */
  dispose(): void {
    for (const bucket of this.#live) clearTimeout(bucket.timer);
    this.#live.clear();
    this.#current = undefined;
    this.#interrupt.removeEventListener('abort', this.#onInterrupt);
  }

  #open(now: number): Bucket {
    const signal = new DeadlineSignal();
    const bucket: Bucket = {
      signal,
      opensUntil: now + this.#width,
      timer: setTimeout(() => {
        this.#live.delete(bucket);
        signal.fire(TIMED_OUT);
      }, this.#width + this.#timeoutMs),
    };
    // A pending deadline must not keep the process alive once the work is done.
    bucket.timer.unref();
    if (this.#interrupt.aborted) signal.fire(this.#interrupt.reason);
    this.#live.add(bucket);
    return bucket;
  }
}
