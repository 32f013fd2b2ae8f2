// A deadline on what a pipe or a socket brings, that a suspend does not turn into a timeout.
// http/deadline.ts cuts request attempts by this rule; config/token-command.ts times the token command by it.

/**
 * A timer that fires this much after its time was held up: the event loop did not run (the
 * process was stopped by Ctrl-Z or SIGSTOP, the machine slept, a VM was paused), so sockets
 * and pipes were not read meanwhile either. Timers run before they are read in each turn of the loop.
 */
export const LATE_MS = 10;

export const monotonic = (): number => performance.now();

export interface DeadlineTimer {
  clear(): void;
}

/**
 * setTimeout for a deadline: a timer that fires late (the process was stopped) calls `onDue`
 * one turn of the event loop later (setImmediate runs after the sockets and pipes are read), once
 * what arrived meanwhile (an answer, a command's output and exit) has been handled.
 */
export function deadlineTimer(timeoutMs: number, onDue: () => void, now = monotonic): DeadlineTimer {
  const dueAt = now() + timeoutMs;
  let immediate: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => {
    if (now() - dueAt > LATE_MS) immediate = setImmediate(onDue);
    else onDue();
  }, timeoutMs);
  return {
    clear() {
      clearTimeout(timer);
      clearImmediate(immediate);
    },
  };
}
