/** Why our side ended an attempt before its answer was complete. */
export type Cutoff = 'timeout' | 'interrupted';

/** What a deadline ends: told once, with why and the reason to end it with. */
export interface Cuttable {
  cut(why: Cutoff, reason: unknown): void;
}

/** What an attempt whose time ran out is ended with; on Ctrl-C, the interrupt's reason. */
export const TIMED_OUT = Symbol('timed out');

import { LATE_MS, monotonic } from '../platform/deadline-timer.js';

export { LATE_MS } from '../platform/deadline-timer.js';

/**
 * Cuts `attempt` once, when it has run `timeoutMs` or on Ctrl-C (at once when the interrupt
 * came already), unless end() came first. One timer per attempt; the interrupt has one listener
 * for all the attempts watching it. Built without a closure or an AbortController per attempt:
 * a batch makes a million of these.
 *
 * A timer that fires late is honoured one turn of the event loop later (setImmediate runs after
 * the sockets are read): an answer that arrived before the deadline, while the process was
 * stopped, is used rather than discarded as a timeout and retried.
 */
export function attemptDeadline(timeoutMs: number, interrupt: AbortSignal, attempt: Cuttable, now = monotonic): AttemptDeadline {
  return new AttemptDeadline(timeoutMs, interrupt, attempt, now);
}

export class AttemptDeadline {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly watchers: Set<AttemptDeadline> | undefined;
  private readonly dueAt: number = 0;
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    timeoutMs: number,
    interrupt: AbortSignal,
    private readonly attempt: Cuttable,
    private readonly now: () => number = monotonic,
  ) {
    if (interrupt.aborted) {
      attempt.cut('interrupted', interrupt.reason);
      return;
    }
    this.watchers = watchersOf(interrupt);
    this.watchers.add(this);
    this.dueAt = now() + timeoutMs;
    this.timer = setTimeout(expire, timeoutMs, this);
  }

  /** The attempt is over: its timer is stopped, and the interrupt no longer reaches it. */
  end(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.watchers?.delete(this);
  }

  /** Its timer has fired (the timer calls this): the attempt is cut now, or, when the timer came late, after the sockets are read. */
  expire(): void {
    if (this.now() - this.dueAt > LATE_MS) {
      this.immediate = setImmediate(cutLate, this);
      return;
    }
    this.cutForTime();
  }

  /** Its time has run out, and any answer that came in time has been read. */
  cutForTime(): void {
    this.watchers?.delete(this);
    this.attempt.cut('timeout', TIMED_OUT);
  }

  /** Ctrl-C (the interrupt's one listener calls this). */
  interrupted(reason: unknown): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.attempt.cut('interrupted', reason);
  }
}

function expire(deadline: AttemptDeadline): void {
  deadline.expire();
}

function cutLate(deadline: AttemptDeadline): void {
  deadline.cutForTime();
}

const watching = new WeakMap<AbortSignal, Set<AttemptDeadline>>();

/** The attempts an interrupt cuts when it fires: one listener on it, however many attempts. */
function watchersOf(signal: AbortSignal): Set<AttemptDeadline> {
  let watchers = watching.get(signal);
  if (watchers === undefined) {
    const all = new Set<AttemptDeadline>();
    watchers = all;
    watching.set(signal, all);
    signal.addEventListener(
      'abort',
      () => {
        const cut = [...all];
        all.clear();
        for (const deadline of cut) deadline.interrupted(signal.reason);
      },
      { once: true },
    );
  }
  return watchers;
}
