export interface PoolOptions<T, R> {
  /** Consumed lazily: at most `concurrency` items ahead of the last one emitted. */
  items: Iterable<T>;
  /** 1..64. */
  concurrency: number;
  /** The work for one item. A rejection stops the pool and is rethrown by runOrdered once in-flight work settles. */
  run(item: T, index: number): Promise<R>;
  /** Called strictly in input order, as soon as every earlier result has been emitted. */
  emit(result: R, index: number): void;
  /** Fail-fast: once true for any completed result, no new item is started. */
  shouldStop?(result: R): boolean;
  /** The result emitted for an item never started (after a stop or an abort). */
  notStarted(item: T, index: number): R;
  /** When aborted, nothing new starts; in-flight items finish (their run() sees the abort itself). */
  signal?: AbortSignal;
}

export const MAX_CONCURRENCY = 64;

/**
 * Runs items with bounded concurrency and emits results in input order.
 *
 * Work may only run `concurrency` items ahead of the oldest unemitted result: a
 * slow item holds back new starts instead of letting finished results pile up
 * behind it, so out-of-order results buffered here never exceed `concurrency`,
 * however long the input.
 */
export async function runOrdered<T, R>(opts: PoolOptions<T, R>): Promise<{ started: number }> {
  const { concurrency } = opts;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new RangeError(`concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${concurrency}`);
  }
  const iterator = opts.items[Symbol.iterator]();
  const done = new Map<number, R>();
  let started = 0;
  let emitted = 0;
  let inFlight = 0;
  let stopped = false;
  let exhausted = false;
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

  const start = (item: T, index: number): void => {
    inFlight += 1;
    let work: Promise<R>;
    try {
      work = opts.run(item, index);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      (result) => {
        try {
          if (opts.shouldStop?.(result)) stopped = true;
        } catch (error) {
          fail(error);
        }
        done.set(index, result);
        drain();
        finishOne();
      },
      (error: unknown) => {
        fail(error);
        finishOne();
      },
    );
  };

  // Each completion starts what may start next, right away: no loop to wake, so a
  // batch of a million ids costs no extra promise per item.
  const finishOne = (): void => {
    inFlight -= 1;
    fill();
  };

  const mayStart = (): boolean =>
    !exhausted && !stopped && failure === undefined && opts.signal?.aborted !== true && started < emitted + concurrency;

  const fill = (): void => {
    while (mayStart()) {
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
      start(step.value, started);
      started += 1;
    }
    if (inFlight === 0) settle();
  };

  fill();
  await allSettled;

  if (failure !== undefined) {
    // Let a generator run its finally blocks; the run is over.
    if (!exhausted) closeQuietly(iterator);
    throw failure.error;
  }
  // Everything started has been emitted; what is left was never started.
  if (!exhausted) {
    let index = started;
    try {
      for (let step = iterator.next(); !step.done; step = iterator.next()) {
        opts.emit(opts.notStarted(step.value, index), index);
        index += 1;
      }
    } catch (error) {
      closeQuietly(iterator);
      throw error;
    }
  }
  return { started };
}

function closeQuietly(iterator: Iterator<unknown>): void {
  try {
    iterator.return?.();
  } catch {
    // The original failure is the one worth reporting.
  }
}
