import { describe, expect, it } from 'vitest';
import { type PoolOptions, runOrdered } from '../../../src/batch/ordered-pool.js';
import { seeded } from '../../helpers/seeded.js';

/** A started item whose outcome the test decides. */
interface Pending {
  index: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Picks which pending item settles next. */
type Policy = (pending: readonly Pending[]) => number;

const fifo: Policy = () => 0;
/** FIFO, except that item 0 finishes only when nothing else is left. */
const zeroLast: Policy = (pending) =>
  Math.max(
    0,
    pending.findIndex((p) => p.index !== 0),
  );
const newestFirst: Policy = (pending) => pending.reduce((best, p, i) => (p.index > (pending[best] as Pending).index ? i : best), 0);
/** A random order that replays from its seed. */
function seededOrder(seed: number): Policy {
  const next = seeded(seed);
  return (pending) => Math.floor(next() * pending.length);
}

/**
 * Items are numbers; run(i) resolves to `r<i>` when the driver says so; notStarted is `ns<i>`.
 * Counts what the pool cannot hide: work in flight, and results it holds but has not emitted.
 */
function harness(overrides: Partial<PoolOptions<number, string>> & { items?: Iterable<number> } = {}) {
  const h = {
    pending: [] as Pending[],
    calls: [] as number[],
    events: [] as string[],
    emitted: [] as Array<[string, number]>,
    settledOrder: [] as number[],
    inFlight: 0,
    maxInFlight: 0,
    received: 0,
    maxHeld: 0,
  };
  const options: PoolOptions<number, string> = {
    items: [],
    concurrency: 1,
    run(item, index) {
      h.calls.push(index);
      h.events.push(`run ${index}`);
      h.inFlight += 1;
      h.maxInFlight = Math.max(h.maxInFlight, h.inFlight);
      return new Promise<string>((resolve, reject) => {
        h.pending.push({ index, resolve: () => resolve(`r${item}`), reject });
      }).then(
        (result) => {
          h.inFlight -= 1;
          h.settledOrder.push(index);
          // The pool receives this result next, before anything else can run.
          h.received += 1;
          h.maxHeld = Math.max(h.maxHeld, h.received - h.emitted.length);
          return result;
        },
        (error: unknown) => {
          h.inFlight -= 1;
          throw error;
        },
      );
    },
    emit(result, index) {
      h.events.push(`emit ${index}`);
      h.emitted.push([result, index]);
    },
    notStarted: (item) => `ns${item}`,
    ...overrides,
  };
  return { h, options };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Settles pending work one item at a time, in the policy's order, until the pool is done. */
async function drive<T>(
  pool: Promise<T>,
  h: { pending: Pending[] },
  pick: Policy,
  settle: (p: Pending) => void = (p) => p.resolve(),
): Promise<T> {
  let finished = false;
  pool.then(
    () => (finished = true),
    () => (finished = true),
  );
  for (;;) {
    await flush();
    if (finished) return pool;
    if (h.pending.length === 0) throw new Error('the pool stalled: nothing in flight, yet not finished');
    const [next] = h.pending.splice(pick(h.pending), 1);
    settle(next as Pending);
  }
}

const range = (n: number): number[] => [...Array(n).keys()];
const inOrder = (n: number): Array<[string, number]> => range(n).map((i) => [`r${i}`, i]);

describe('runOrdered: results come out in input order whatever order the work finishes in', () => {
  it.each([
    [50, 4, 1],
    [50, 4, 2],
    [100, 16, 3],
    [10, 64, 4],
    [37, 7, 5],
    [64, 64, 6],
    [3, 2, 8],
  ])('%i items, concurrency %i, seed %i', async (n, concurrency, seed) => {
    const { h, options } = harness({ items: range(n), concurrency });
    await drive(runOrdered(options), h, seededOrder(seed));
    expect(h.calls).toHaveLength(n);
    expect(h.emitted).toEqual(inOrder(n));
    // The work really did finish out of order, and really did run side by side, up to the bound.
    expect(h.settledOrder).not.toEqual(range(n));
    expect(h.maxInFlight).toBe(Math.min(concurrency, n));
  });
});

describe('runOrdered: a slow item does not stop new starts; finished results wait for it', () => {
  it.each([
    [50, 4],
    [200, 64],
    [30, 2],
  ])('%i items, concurrency %i: item 0 answers last', async (n, concurrency) => {
    const { h, options } = harness({ items: range(n), concurrency });
    const pool = runOrdered(options);
    // Everything but item 0 finishes, oldest first.
    await flush();
    while (h.pending.length > 1) {
      h.pending.splice(zeroLast(h.pending), 1)[0]?.resolve();
      await flush();
    }
    expect(h.calls).toEqual(range(n));
    expect(h.emitted).toEqual([]);
    expect(h.maxInFlight).toBe(Math.min(concurrency, n));
    h.pending[0]?.resolve();
    await pool;
    expect(h.calls).toHaveLength(n);
    expect(h.emitted).toEqual(inOrder(n));
  });
});

describe('runOrdered: the window bounds how far work runs ahead of the oldest unemitted item', () => {
  it.each([
    // items, concurrency, window
    [40, 4, 10],
    [40, 8, 3],
    [20, 1, 1],
    [100, 16, 16],
  ])('%i items, concurrency %i, window %i, newest finishes first', async (n, concurrency, window) => {
    let pulled = 0;
    let maxAhead = 0;
    const { h, options } = harness({ concurrency, window });
    function* items(): Generator<number> {
      for (let i = 0; i < n; i += 1) {
        pulled += 1;
        maxAhead = Math.max(maxAhead, pulled - h.emitted.length);
        yield i;
      }
    }
    options.items = items();
    await drive(runOrdered(options), h, newestFirst);
    expect(h.calls).toHaveLength(n);
    expect(h.emitted).toEqual(inOrder(n));
    // Both bounds are reached, and neither is passed.
    expect(maxAhead).toBe(window);
    expect(h.maxHeld).toBe(window);
    expect(h.maxInFlight).toBe(Math.min(concurrency, window));
  });

  it.each([0, -1, 1.5, Number.NaN])('window %d is refused', async (window) => {
    const { options } = harness({ items: range(3), concurrency: 2, window });
    await expect(runOrdered(options)).rejects.toThrow(RangeError);
  });
});

describe('runOrdered: a million items', () => {
  it('emits every one in order, holding no more than the window of them', async () => {
    const n = 1_000_000;
    const window = 4096;
    // Every 10,000th item answers in a later turn of the event loop, after the others have run
    // as far ahead as the window lets them.
    const slowEvery = 10_000;
    let started = 0;
    let emitted = 0;
    let outOfOrder = 0;
    let maxAhead = 0;
    function* items(): Generator<number> {
      for (let i = 0; i < n; i += 1) yield i;
    }
    await runOrdered<number, number>({
      items: items(),
      concurrency: 64,
      window,
      run(item) {
        started += 1;
        maxAhead = Math.max(maxAhead, started - emitted);
        if (item % slowEvery !== 0) return Promise.resolve(item);
        return new Promise((resolve) => setImmediate(() => resolve(item)));
      },
      emit(result, index) {
        if (result !== index || index !== emitted) outOfOrder += 1;
        emitted += 1;
      },
      notStarted: () => -1,
    });
    expect(started).toBe(n);
    expect(emitted).toBe(n);
    expect(outOfOrder).toBe(0);
    expect(maxAhead).toBe(window);
  });
});

describe('runOrdered: results given at once (items skipped, as a --journal resume skips what was done)', () => {
  it('are emitted in order among promised ones, take no place in flight, and let the event loop turn between them', async () => {
    const n = 100_000;
    let turns = 0;
    let counting = true;
    const countTurns = (): void => {
      turns += 1;
      if (counting) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    let maxInFlight = 0;
    let inFlight = 0;
    let emitted = 0;
    let outOfOrder = 0;
    function* items(): Generator<number> {
      for (let i = 0; i < n; i += 1) yield i;
    }
    await runOrdered<number, number>({
      items: items(),
      // One in flight at a time: skipped items never wait for a place.
      concurrency: 1,
      run(item) {
        // Every 1,000th item is sent (a promise); the others are skipped.
        if (item % 1000 !== 999) return item;
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return new Promise((resolve) =>
          setImmediate(() => {
            inFlight -= 1;
            resolve(item);
          }),
        );
      },
      emit(result, index) {
        if (result !== index || index !== emitted) outOfOrder += 1;
        emitted += 1;
      },
      notStarted: () => -1,
    });
    counting = false;
    expect({ emitted, outOfOrder, maxInFlight }).toEqual({ emitted: n, outOfOrder: 0, maxInFlight: 1 });
    // 99,900 skipped items: at most 1,024 of them a turn, so at least ~98 turns besides the 100 sends'.
    expect(turns).toBeGreaterThanOrEqual(n / 1024);
  });

  it('all given at once: the pool still yields to the event loop, and ends', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    let emitted = 0;
    await runOrdered<number, number>({
      items: Array.from({ length: 50_000 }, (_, i) => i),
      run: (item) => item,
      emit: () => void emitted++,
      notStarted: () => -1,
    });
    clearInterval(tick);
    expect(emitted).toBe(50_000);
    expect(turns).toBeGreaterThan(0);
  });
});

describe('runOrdered: concurrency 1 is strictly sequential', () => {
  it.each([[1], [4]])('%i items', async (n) => {
    const { h, options } = harness({ items: range(n), concurrency: 1 });
    await drive(runOrdered(options), h, fifo);
    expect(h.events).toEqual(range(n).flatMap((i) => [`run ${i}`, `emit ${i}`]));
  });
});

describe('runOrdered: fail-fast starts nothing new once a result says stop', () => {
  it.each([
    // concurrency, item that says stop, policy, items started
    [1, 4, 'fifo', 5],
    [3, 4, 'fifo', 7],
    [4, 0, 'fifo', 4],
    [3, 8, 'fifo', 10],
    // The stop arrives while item 0 still runs: 0 and 2 finish and are emitted as they are.
    [3, 1, 'item 0 last', 3],
    // Item 0 does not hold back 3, 4 and 5; after the stop, 5 and then 0 finish.
    [3, 4, 'item 0 last', 6],
  ] as const)('concurrency %i, stop at %i, %s: %i started', async (concurrency, stopAt, policy, started) => {
    const { h, options } = harness({ items: range(10), concurrency, shouldStop: (result) => result === `r${stopAt}` });
    const pick = policy === 'fifo' ? fifo : zeroLast;
    await drive(runOrdered(options), h, pick);
    expect(h.calls).toHaveLength(started);
    expect(h.calls).toEqual(range(started));
    expect(h.emitted).toEqual(range(10).map((i) => [i < started ? `r${i}` : `ns${i}`, i]));
  });
});

describe('runOrdered: an abort starts nothing new; in-flight work finishes', () => {
  it.each([
    // concurrency, abort just before this item settles (-1: before the run starts), items started
    [1, -1, 0],
    [3, -1, 0],
    [1, 2, 3],
    [3, 2, 5],
    [3, 9, 10],
  ])('concurrency %i, abort at %i: %i started', async (concurrency, abortAt, started) => {
    const controller = new AbortController();
    if (abortAt === -1) controller.abort();
    const { h, options } = harness({ items: range(10), concurrency, signal: controller.signal });
    const settle = (p: Pending): void => {
      if (p.index === abortAt) controller.abort();
      p.resolve();
    };
    await drive(runOrdered(options), h, fifo, settle);
    expect(h.calls).toHaveLength(started);
    expect(h.calls).toEqual(range(started));
    expect(h.emitted).toEqual(range(10).map((i) => [i < started ? `r${i}` : `ns${i}`, i]));
  });
});

describe('runOrdered: empty input', () => {
  it.each([
    ['array', () => []],
    ['generator', function* () {}],
    ['set', () => new Set<number>()],
  ])('%s', async (_name, items) => {
    const { h, options } = harness({ items: items(), concurrency: 4 });
    await runOrdered(options);
    expect(h.calls).toHaveLength(0);
    expect(h.events).toEqual([]);
  });
});

describe('runOrdered: a failure is rethrown once in-flight work has settled', () => {
  it.each([
    // what fails, for which item, where, results emitted, items started
    ['run rejects', 4, 'run', 4, 7],
    // The failure is known at once, before items 2 and 3 finish: nothing more starts.
    ['run throws synchronously', 4, 'run-sync', 4, 5],
    // Nothing more is emitted after emit itself failed.
    ['emit throws', 2, 'emit', 2, 5],
    // No hole: the results that arrive are all emitted, then the error surfaces.
    ['shouldStop throws', 3, 'shouldStop', 6, 6],
  ] as const)('%s for item %i', async (_name, failAt, where, emitted, started) => {
    const boom = new Error('boom');
    let closed = false;
    function* items(): Generator<number> {
      try {
        yield* range(10);
      } finally {
        closed = true;
      }
    }
    const { h, options } = harness({ items: items(), concurrency: 3 });
    const { run, emit } = options;
    if (where === 'run-sync') options.run = (item, index) => (index === failAt ? thrower(boom) : run(item, index));
    if (where === 'emit') options.emit = (result, index) => (index === failAt ? thrower(boom) : emit(result, index));
    if (where === 'shouldStop') options.shouldStop = (result) => (result === `r${failAt}` ? thrower(boom) : false);
    const settle = (p: Pending): void => (where === 'run' && p.index === failAt ? p.reject(boom) : p.resolve());
    let inFlightAtFailure = -1;
    const pool = runOrdered(options).catch((error: unknown) => {
      inFlightAtFailure = h.inFlight;
      throw error;
    });
    await expect(drive(pool, h, fifo, settle)).rejects.toBe(boom);
    expect(inFlightAtFailure).toBe(0);
    expect(h.calls).toEqual(range(started).filter((i) => where !== 'run-sync' || i !== failAt));
    expect(h.emitted).toEqual(inOrder(emitted));
    expect(closed).toBe(true);
  });
});

describe('runOrdered: concurrency must be a whole number of at least 1', () => {
  it.each([0, -1, 1.5, Number.NaN])('%d is refused', async (concurrency) => {
    const { options } = harness({ items: range(3), concurrency });
    await expect(runOrdered(options)).rejects.toThrow(RangeError);
  });

  it('any larger bound is taken', async () => {
    const { h, options } = harness({ items: range(300), concurrency: 200 });
    await drive(runOrdered(options), h, seededOrder(9));
    expect(h.calls).toHaveLength(300);
    expect(h.maxInFlight).toBe(200);
  });
});

/** A hold that lets `budget` more items start, then holds and keeps the resume callback. */
function gate(budget: number) {
  const g = {
    budget,
    asked: 0,
    resume: undefined as (() => void) | undefined,
    hold(resume: () => void): boolean {
      g.asked += 1;
      if (g.budget > 0) {
        g.budget -= 1;
        return false;
      }
      g.resume = resume;
      return true;
    },
  };
  return g;
}

describe('runOrdered: hold lets a throttle decide when new items start', () => {
  it('starts nothing while held; resume lets start as many as hold and concurrency then allow', async () => {
    const g = gate(2);
    const { h, options } = harness({ items: range(8), concurrency: 4, hold: g.hold });
    const pool = runOrdered(options);
    await flush();
    expect(h.calls).toEqual([0, 1]);
    // A completion asks again, and is held again.
    h.pending.shift()?.resolve();
    await flush();
    expect(h.calls).toEqual([0, 1]);
    expect(h.emitted).toEqual(inOrder(1));
    g.budget = Number.POSITIVE_INFINITY;
    g.resume?.();
    // Not at once: a resume takes effect at the end of the event loop's turn (see runOrdered).
    expect(h.calls).toEqual([0, 1]);
    await flush();
    expect(h.calls).toEqual([0, 1, 2, 3, 4]);
    await drive(pool, h, fifo);
    expect(h.calls).toHaveLength(8);
    expect(h.emitted).toEqual(inOrder(8));
  });

  it('is asked only when there is an item to start: the end of the input does not wait for a resume', async () => {
    const g = gate(3);
    const { h, options } = harness({ items: range(3), concurrency: 4, hold: g.hold });
    await drive(runOrdered(options), h, fifo);
    expect(h.calls).toHaveLength(3);
    expect(g.asked).toBe(3);
  });

  it.each(['abort', 'fail-fast'] as const)('held with nothing in flight, a %s ends the run at once', async (how) => {
    const controller = new AbortController();
    const g = gate(2);
    const { h, options } = harness({
      items: range(5),
      concurrency: 4,
      hold: g.hold,
      signal: controller.signal,
      ...(how === 'fail-fast' ? { shouldStop: (result: string) => result === 'r1' } : {}),
    });
    let finished = false;
    const pool = runOrdered(options).finally(() => {
      finished = true;
    });
    await flush();
    for (const p of h.pending.splice(0)) p.resolve();
    await flush();
    expect(finished).toBe(how === 'fail-fast');
    controller.abort();
    // Never resumed, yet done; the item pulled for the held start is reported with the rest.
    await pool;
    expect(h.calls).toHaveLength(2);
    expect(h.emitted).toEqual(range(5).map((i) => [i < 2 ? `r${i}` : `ns${i}`, i]));
    expect(g.resume).toBeDefined();
  });
});

function thrower(error: Error): never {
  throw error;
}

describe('runOrdered: the items left after a stop are a stream, paced by paceNotStarted', () => {
  it('a reader behind holds the rest: at most one run of results (1,024) goes out, and no more are pulled, until it catches up', async () => {
    const controller = new AbortController();
    controller.abort();
    const n = 10_000;
    const seen = { pulled: 0, emitted: 0, paces: [] as Array<() => void> };
    function* items(): Generator<number> {
      for (let i = 0; i < n; i += 1) {
        seen.pulled += 1;
        yield i;
      }
    }
    const pool = runOrdered<number, number>({
      items: items(),
      signal: controller.signal,
      run: (item) => item,
      emit: (result, index) => {
        if (result !== -index) throw new Error(`emitted ${result} at ${index}`);
        seen.emitted += 1;
      },
      notStarted: (_item, index) => -index,
      paceNotStarted: () => new Promise<void>((resolve) => seen.paces.push(resolve)),
    });
    await flush();
    expect(seen.paces).toHaveLength(1);
    expect(seen.emitted).toBe(1024);
    expect(seen.pulled).toBeLessThanOrEqual(1025);
    // Still held, however many turns pass.
    for (let i = 0; i < 5; i++) await flush();
    expect(seen.emitted).toBe(1024);
    for (let answered = 0; seen.emitted < n; ) {
      seen.paces[answered++]?.();
      await flush();
      await flush();
      expect(seen.emitted).toBeLessThanOrEqual(1024 * (answered + 1));
    }
    await pool;
    expect(seen.emitted).toBe(n);
  });
});
