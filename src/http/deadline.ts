/** The abort reason of an attempt whose time ran out; on Ctrl-C the reason is the interrupt's. */
export const TIMED_OUT = Symbol('timed out');

/** The signal one attempt is sent with, and the end of that attempt. */
export interface AttemptDeadline {
  /** Aborts with TIMED_OUT once the attempt has run `timeoutMs`, or with the interrupt's reason on Ctrl-C. */
  signal: AbortSignal;
  /** The attempt is over: its timer is stopped, and the interrupt no longer reaches it. */
  end(): void;
}

/** One timer and one controller per attempt, both let go the moment the attempt ends. */
export function attemptDeadline(timeoutMs: number, interrupt: AbortSignal): AttemptDeadline {
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort(interrupt.reason);
  const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
  if (interrupt.aborted) onInterrupt();
  else interrupt.addEventListener('abort', onInterrupt, { once: true });
  return {
    signal: controller.signal,
    end: () => {
      clearTimeout(timer);
      interrupt.removeEventListener('abort', onInterrupt);
    },
  };
}
