import { describe, expect, it } from 'vitest';
import { type PoolOptions, runOrdered } from '../../src/ordered-pool.js';

/** A started item whose outcome the test decides. */
interface Pending {
  index: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Picks which pending item settles next. */
type Policy = (pending: readonly Pending[]) => number;

const fifo: Policy = () => 0;
const newestFirst: Policy = (pending) => pending.reduce((best, p, i) => (p.index > (pending[best] as Pending).index ? i : best), 0);
function seeded(seed: number): Policy {
  // mulberry32: a tiny deterministic PRNG, so a failing order can be replayed.
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
    expect(await drive(runOrdered(options), h, seeded(seed))).toEqual({ started: n });
    expect(h.emitted).toEqual(inOrder(n));
    // The work really did finish out of order, and really did run side by side, up to the bound.
    expect(h.settledOrder).not.toEqual(range(n));
    expect(h.maxInFlight).toBe(Math.min(concurrency, n));
  });
});

describe('runOrdered: a slow first item holds back new work instead of piling up results', () => {
  it.each([
    [30, 3],
    [30, 8],
    [100, 1],
    [5, 64],
  ])('%i items, concurrency %i, newest finishes first', async (n, concurrency) => {
    let pulled = 0;
    let maxAhead = 0;
    const { h, options } = harness({ concurrency });
    function* items(): Generator<number> {
      for (let i = 0; i < n; i += 1) {
        pulled += 1;
        maxAhead = Math.max(maxAhead, pulled - h.emitted.length);
        yield i;
      }
    }
    options.items = items();
    expect(await drive(runOrdered(options), h, newestFirst)).toEqual({ started: n });
    expect(h.emitted).toEqual(inOrder(n));
    expect(h.maxHeld).toBeLessThanOrEqual(concurrency);
    expect(h.maxInFlight).toBeLessThanOrEqual(concurrency);
    // Items are pulled lazily: never more than `concurrency` past the last one emitted.
    expect(maxAhead).toBeLessThanOrEqual(concurrency);
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
    [3, 1, 'newest first', 3],
  ] as const)('concurrency %i, stop at %i, %s: %i started', async (concurrency, stopAt, policy, started) => {
    const { h, options } = harness({ items: range(10), concurrency, shouldStop: (result) => result === `r${stopAt}` });
    const pick = policy === 'fifo' ? fifo : newestFirst;
    expect(await drive(runOrdered(options), h, pick)).toEqual({ started });
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
    expect(await drive(runOrdered(options), h, fifo, settle)).toEqual({ started });
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
    expect(await runOrdered(options)).toEqual({ started: 0 });
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

describe('runOrdered: concurrency must be 1 to 64', () => {
  it.each([0, -1, 65, 1.5, Number.NaN])('%d', async (concurrency) => {
    const { options } = harness({ items: range(3), concurrency });
    await expect(runOrdered(options)).rejects.toThrow(RangeError);
  });
});

function thrower(error: Error): never {
  throw error;
}
