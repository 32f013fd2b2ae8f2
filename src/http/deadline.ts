/** Why our side ended an attempt before its answer was complete. */
export type Cutoff = 'timeout' | 'interrupted';

/** The end of one attempt's watch: its timer stopped, the interrupt no longer reaching it. */
export interface AttemptDeadline {
  end(): void;
}

/**
 * Calls `cut` once, when the attempt has run `timeoutMs` or on Ctrl-C (at once when the
 * interrupt came already), unless `end()` came first. One timer per attempt; the interrupt
 * has one listener for all the attempts watching it: a batch of a million attempts adds
 * and removes no listeners on it, and no AbortController is made for any of them.
 */
export function attemptDeadline(timeoutMs: number, interrupt: AbortSignal, cut: (why: Cutoff) => void): AttemptDeadline {
  if (interrupt.aborted) {
    cut('interrupted');
    return { end: () => {} };
  }
  const stopWatching = onInterrupt(interrupt, () => {
    clearTimeout(timer);
    cut('interrupted');
  });
  const timer = setTimeout(() => {
    stopWatching();
    cut('timeout');
  }, timeoutMs);
  return {
    end: () => {
      clearTimeout(timer);
      stopWatching();
    },
  };
}

const watching = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` when `signal` aborts; returns how to stop that. */
function onInterrupt(signal: AbortSignal, fn: () => void): () => void {
  let watchers = watching.get(signal);
  if (watchers === undefined) {
    const all = new Set<() => void>();
    watchers = all;
    watching.set(signal, all);
    signal.addEventListener(
      'abort',
      () => {
        for (const watcher of all) watcher();
        all.clear();
      },
      { once: true },
    );
  }
  const mine = watchers;
  mine.add(fn);
  return () => {
    mine.delete(fn);
  };
}
