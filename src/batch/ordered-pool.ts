export interface PoolOptions<T, R> {
  /** Consumed lazily: at most `window` items ahead of the last one emitted. */
  items: Iterable<T>;
  /**
   * Items in progress at once (a whole number, at least 1); by default as many as the window
   * allows. A throttle that bounds the work itself (through `hold`) needs no other bound here.
   */
  concurrency?: number;
  /**
   * Items started but not yet emitted, at most (default DEFAULT_WINDOW): how far work may run
   * ahead of a slow item, and so how many finished results may wait here for it.
   */
  window?: number;
  /**
   * The work for one item: a promise, or the result itself when there is nothing to wait for
   * (an item skipped, as a --journal skips what an earlier run finished). A rejection (or a
   * throw) stops the pool and is rethrown by runOrdered once in-flight work settles.
   */
  run(item: T, index: number): Promise<R> | R;
  /** Called strictly in input order, as soon as every earlier result has been emitted. */
  emit(result: R, index: number): void;
  /** Fail-fast: once true for any completed result, no new item is started. */
  shouldStop?(result: R): boolean;
  /** The result emitted for an item never started (after a stop or an abort). */
  notStarted(item: T, index: number): R;
  /**
   * Asked between runs of not-started results (NOT_STARTED_RUN at a time): a promise while
   * whoever takes the emitted results is behind (a reader slower than stdout is written), and
   * the rest wait for it, so a stop in a million ids holds a run of results, never all of them.
   */
  paceNotStarted?(): Promise<void> | undefined;
  /** When aborted, nothing new starts; in-flight items finish (their run() sees the abort itself). */
  signal?: AbortSignal;
  /**
   * Asked before each new start that `concurrency` and `window` allow: return true to start
   * nothing for now, and call `resume` once new starts may be asked about again. Lets a
   * throttle decide when new work begins, so that `concurrency` can count items waiting to
   * retry without those waits holding back new items. A callback rather than a promise: a
   * saturated pool asks this once per item.
   */
  hold?(resume: () => void): boolean;
}

/**
 * The most requests in flight the CLI allows (--concurrency n): as high as `--concurrency auto`
 * may go (MAX_AUTO_CONCURRENCY), so a fixed value can be compared with it. The pool itself takes any bound.
 */
export const MAX_CONCURRENCY = 256;

/**
 * The default reorder window. A result waiting for a slow earlier item is a small object
 * (an id, a status, at most a short message), so a full window holds a few megabytes; at
 * the hundreds of requests a second a remote server allows, it lets the other workers go
 * on through a whole timeout of one slow answer.
 */
export const DEFAULT_WINDOW = 16_384;

/**
 * Results given at once (skipped items) handled in one turn of the event loop, at most: a
 * resumed run skipping a million ids still reads signals and drains its output between them.
 */
const SETTLED_AT_ONCE_PER_TURN = 1024;

/**
 * Not-started results emitted between two questions to paceNotStarted (and two turns of the
 * event loop, so a second signal is heard): small enough that what waits to be written stays
 * a few hundred kilobytes, large enough that a million of them cost a thousand turns.
 */
const NOT_STARTED_RUN = 1024;

/**
 * Runs items with bounded concurrency and emits results in input order.
 *
 * At most `concurrency` items are in progress at once. A slow item does not stop new
 * starts: later items keep starting and finishing, and their results wait here until
 * it is done. Only when `window` items are started but not emitted does the pool wait
 * for the slow one, so memory stays bounded however long the input.
 */
export async function runOrdered<T, R>(opts: PoolOptions<T, R>): Promise<void> {
  const { window = DEFAULT_WINDOW } = opts;
  const concurrency = opts.concurrency ?? window;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  if (!Number.isInteger(window) || window < 1) {
    throw new RangeError(`window must be a whole number of at least 1, got ${window}`);
  }
  const iterator = opts.items[Symbol.iterator]();
  const done = new Map<number, R>();
  let started = 0;
  let emitted = 0;
  let inFlight = 0;
  let stopped = false;
  let exhausted = false;
  let holding = false;
  /** Pulled from the input but not started yet (held back by `hold`). */
  let pulled = false;
  let next: T | undefined;
  let failure: { error: unknown } | undefined;
  let settle: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => {
    settle = resolve;
  });

  const fail = (error: unknown): void => {
    failure ??= { error };
  };

  const drain = (): void => {
    // A failed item leaves a hole at its index, so nothing after it is emitted:
    // output stays a prefix of the input, and after emit itself threw, nothing more is written.
    while (done.has(emitted)) {
      const result = done.get(emitted) as R;
      done.delete(emitted);
      try {
        opts.emit(result, emitted);
      } catch (error) {
        fail(error);
        return;
      }
      emitted += 1;
    }
  };

  const settleOne = (index: number, result: R): void => {
    try {
      if (opts.shouldStop?.(result)) stopped = true;
    } catch (error) {
      fail(error);
    }
    done.set(index, result);
    drain();
  };

  /** Starts an item; true when its result came at once (nothing in flight for it). */
  const start = (item: T, index: number): boolean => {
    let work: Promise<R> | R;
    try {
      work = opts.run(item, index);
    } catch (error) {
      work = Promise.reject(error);
    }
    // A result given at once is handled here, not in a microtask: a million of them would
    // otherwise run as one chain of microtasks that never lets the event loop turn.
    if (!(work instanceof Promise)) {
      settleOne(index, work);
      return true;
    }
    inFlight += 1;
    work.then(
      (result) => {
        settleOne(index, result);
        finishOne();
      },
      (error: unknown) => {
        fail(error);
        finishOne();
      },
    );
    return false;
  };

  // Each completion starts what may start next, right away: no loop to wake, so a
  // batch of a million ids costs no extra promise per item.
  const finishOne = (): void => {
    inFlight -= 1;
    fill();
  };

  /** Whether any more items may ever start. */
  const open = (): boolean => !exhausted && !stopped && failure === undefined && opts.signal?.aborted !== true;
  const mayStart = (): boolean => !holding && open() && inFlight < concurrency && started - emitted < window;

  // Deferred to the end of this turn of the event loop: hold's owner resumes us the moment
  // a request ends, before that request's result has reached shouldStop, and --fail-fast
  // must not start another item after a failure it has not yet seen.
  const resume = (): void => {
    setImmediate(() => {
      holding = false;
      fill();
    });
  };

  /** The pool is waiting for the next turn of the event loop after many results given at once. */
  let yielding = false;
  const fillNextTurn = (): void => {
    yielding = true;
    setImmediate(() => {
      yielding = false;
      fill();
    });
  };

  const fill = (): void => {
    let settledAtOnce = 0;
    while (!yielding && mayStart()) {
      // The next item is pulled before asking hold: a run whose input is exhausted must not
      // sit through a pause only to find there is nothing left to start.
      if (!pulled) {
        let step: IteratorResult<T>;
        try {
          step = iterator.next();
        } catch (error) {
          fail(error);
          break;
        }
        if (step.done) {
          exhausted = true;
          break;
        }
        next = step.value;
        pulled = true;
      }
      if (opts.hold?.(resume) === true) {
        holding = true;
        break;
      }
      const item = next as T;
      pulled = false;
      next = undefined;
      const index = started;
      started += 1;
      if (start(item, index) && ++settledAtOnce >= SETTLED_AT_ONCE_PER_TURN && open()) fillNextTurn();
    }
    // Held with nothing in flight, the run goes on when resumed, unless nothing may start anyway.
    if (inFlight === 0 && !yielding && (!holding || !open())) settle();
  };

  const onAbort = (): void => fill();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  fill();
  await allSettled;
  opts.signal?.removeEventListener('abort', onAbort);

  if (failure !== undefined) {
    // Let a generator run its finally blocks; the run is over.
    if (!exhausted) closeQuietly(iterator);
    throw failure.error;
  }
  // Everything started has been emitted; what is left was never started. Emitted as a
  // stream, paced by whoever takes them: never all at once.
  if (!exhausted) {
    try {
      await emitNotStarted(opts, iterator, started, pulled ? { value: next as T } : undefined);
    } catch (error) {
      closeQuietly(iterator);
      throw error;
    }
  }
}

/** Emits a not-started result for `first` (an item pulled but not started) and each item left in `iterator`. */
async function emitNotStarted<T, R>(
  opts: PoolOptions<T, R>,
  iterator: Iterator<T>,
  index: number,
  first: { value: T } | undefined,
): Promise<void> {
  let sinceLastPace = 0;
  if (first !== undefined) {
    opts.emit(opts.notStarted(first.value, index), index);
    index += 1;
    sinceLastPace += 1;
  }
  for (;;) {
    if (sinceLastPace >= NOT_STARTED_RUN) {
      sinceLastPace = 0;
      const wait = opts.paceNotStarted?.();
      if (wait !== undefined) await wait;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const step = iterator.next();
    if (step.done) return;
    opts.emit(opts.notStarted(step.value, index), index);
    index += 1;
    sinceLastPace += 1;
  }
}

function closeQuietly(iterator: Iterator<unknown>): void {
  try {
    iterator.return?.();
  } catch {
    // The original failure is the one worth reporting.
  }
}
