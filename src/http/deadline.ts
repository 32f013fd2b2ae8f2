/** Why our side ended an attempt before its answer was complete. */
export type Cutoff = 'timeout' | 'interrupted';

/** What a deadline ends: told once, with why and the reason to end it with. */
export interface Cuttable {
  cut(why: Cutoff, reason: unknown): void;
}

/** What an attempt whose time ran out is ended with; on Ctrl-C, the interrupt's reason. */
export const TIMED_OUT = Symbol('timed out');

/**
 * Cuts `attempt` once, when it has run `timeoutMs` or on Ctrl-C (at once when the interrupt
 * came already), unless end() came first. One timer per attempt; the interrupt has one listener
 * for all the attempts watching it. Built without a closure or an AbortController per attempt:
 * a batch makes a million of these.
 */
export function attemptDeadline(timeoutMs: number, interrupt: AbortSignal, attempt: Cuttable): AttemptDeadline {
  return new AttemptDeadline(timeoutMs, interrupt, attempt);
}

export class AttemptDeadline {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly watchers: Set<AttemptDeadline> | undefined;

  constructor(
    timeoutMs: number,
    interrupt: AbortSignal,
    private readonly attempt: Cuttable,
  ) {
    if (interrupt.aborted) {
      attempt.cut('interrupted', interrupt.reason);
      return;
    }
    this.watchers = watchersOf(interrupt);
    this.watchers.add(this);
    this.timer = setTimeout(expire, timeoutMs, this);
  }

  /** The attempt is over: its timer is stopped, and the interrupt no longer reaches it. */
  end(): void {
    clearTimeout(this.timer);
    this.watchers?.delete(this);
  }

  /** Its time has run out (its timer calls this). */
  expire(): void {
    this.watchers?.delete(this);
    this.attempt.cut('timeout', TIMED_OUT);
  }

  /** Ctrl-C (the interrupt's one listener calls this). */
  interrupted(reason: unknown): void {
    clearTimeout(this.timer);
    this.attempt.cut('interrupted', reason);
  }
}

function expire(deadline: AttemptDeadline): void {
  deadline.expire();
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
