// The client's own latency (client-busy.ts): rounds read while plantstore's event loop was busy
// say less, or nothing, of the server. And where the climb starts (startingLimit) and what
// counts as a round that used its limit (onStarted). Scripted answers on a fake clock and a
// fake event loop; nothing here sleeps.
import { describe, expect, it } from 'vitest';
import { CLIENT_BUSY, type LoopMark, type LoopUse, serverShare } from '../../../src/batch/adaptive/client-busy.js';
import { LatencyLimit, type LimitChange } from '../../../src/batch/adaptive/latency-limit.js';
import { QUEUE_PERSISTS_MS, QUEUEING_ABOVE, ROUND_MIN_SAMPLES, startingLimit } from '../../../src/batch/adaptive/latency-tuning.js';
import { type Server, simulateBatch } from './throttle/virtual-batch.js';

/** An event loop on the test's clock, busy `share` of the time from when the test says so. */
class FakeLoop implements LoopUse {
  readonly #spells: Array<{ from: number; share: number }> = [{ from: 0, share: 0 }];
  constructor(private readonly at: { now: number }) {}

  set share(share: number) {
    this.#spells.push({ from: this.at.now, share });
  }

  mark(): LoopMark {
    return this.at.now;
  }

  busySince(mark: LoopMark): number {
    const from = mark as number;
    const to = this.at.now;
    if (to <= from) return this.#spells.findLast((spell) => spell.from <= from)?.share ?? 0;
    let busy = 0;
    this.#spells.forEach((spell, i) => {
      const end = this.#spells[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      busy += spell.share * Math.max(0, Math.min(end, to) - Math.max(spell.from, from));
    });
    return busy / (to - from);
  }
}

/** A limiter on a fake clock and loop, past its base latency (`rttMs`), doubled by flat rounds to `limit`. */
function scripted(rttMs: number, limit: number) {
  const at = { now: 0 };
  const loop = new FakeLoop(at);
  const changes: LimitChange[] = [];
  const limiter = new LatencyLimit({ now: () => at.now, onChange: (change) => changes.push(change), loop });
  /** One round of answers `ms` long, each started with `inFlight` in flight. */
  const round = (ms: number, inFlight = limiter.limit, count = Math.max(ROUND_MIN_SAMPLES, limiter.limit)) => {
    at.now += ms;
    for (let i = 0; i < count; i += 1) limiter.onSample({ rttMs: ms, inFlightAtStart: inFlight, now: at.now });
  };
  while (limiter.limit < limit) round(rttMs);
  expect(limiter.limit).toBe(limit);
  /** Rounds of `ms` for at least QUEUE_PERSISTS_MS, each filling the limit of its time. */
  const lasting = (ms: number) => {
    for (let spent = 0; spent <= QUEUE_PERSISTS_MS; spent += ms) round(ms);
  };
  return { limiter, changes, loop, round, lasting, at };
}

const reasons = (changes: LimitChange[]) => changes.map((change) => change.reason);

describe("the client's share of a round trip", () => {
  it('is half the round trip with the loop busy all the time, none with it idle', () => {
    expect(serverShare(2, 0)).toBe(2);
    expect(serverShare(2, 1)).toBe(1);
    expect(serverShare(1.6, 0.5)).toBeCloseTo(1.2, 10);
  });

  it('rounds at twice the base read with the loop busy: no cut, and the limit goes on doubling; idle, the same rounds cut', () => {
    const busy = scripted(50, 32);
    busy.loop.share = 1;
    busy.lasting(100);
    expect(reasons(busy.changes.slice(3))).not.toContain('queueing');
    expect(busy.limiter.limit).toBeGreaterThanOrEqual(64);

    const idle = scripted(50, 32);
    idle.lasting(100);
    expect(reasons(idle.changes.slice(3))).toContain('queueing');
    expect(idle.limiter.limit).toBeLessThan(32);
  });

  it(`a span with the loop busy ${CLIENT_BUSY} of the time or more is never cut for, however slow: 3.5x the base, 90% busy`, () => {
    const { changes, loop, round } = scripted(50, 32);
    loop.share = 0.9;
    for (let i = 0; i < 4; i += 1) round(175);
    expect(reasons(changes)).not.toContain('queueing');
  });

  it(`a lasting rise the client's share explains is held, not cut: 1.6x the base with the loop half busy (below ${CLIENT_BUSY})`, () => {
    const half = scripted(50, 32);
    half.loop.share = 0.5;
    half.lasting(80);
    expect(half.limiter.limit).toBe(32);
    expect(half.changes).toHaveLength(3);

    const idle = scripted(50, 32);
    idle.lasting(80);
    expect(idle.changes.at(-1)).toMatchObject({ from: 32, reason: 'queueing' });
  });

  it(`a queue larger than the client's share is still cut with the loop half busy: 2.5x the base reads ${serverShare(2.5, 0.5)}x, over ${QUEUEING_ABOVE}`, () => {
    const { limiter, changes, loop, lasting } = scripted(50, 32);
    loop.share = 0.5;
    lasting(125);
    expect(changes.at(-1)).toMatchObject({ from: 32, reason: 'queueing' });
    expect(limiter.limit).toBeLessThan(32);
  });

  it('the base takes its own share off too: a base read with the loop 40% busy (the first half second), then a queue at 1.55x is cut', () => {
    const at = { now: 0 };
    const loop = new FakeLoop(at);
    const changes: LimitChange[] = [];
    const limiter = new LatencyLimit({ now: () => at.now, onChange: (change) => changes.push(change), loop });
    loop.share = 0.4;
    at.now += 65;
    for (let i = 0; i < ROUND_MIN_SAMPLES; i += 1) limiter.onSample({ rttMs: 65, inFlightAtStart: 4, now: at.now });
    expect(limiter.limit).toBe(8);
    // A server with 4 slots, 50 ms each: at 8 in flight every answer takes 100 ms, 1.54x the base as
    // read; the client idle but for 7% of the time. Taken off the rounds alone, that would read 1.49x.
    loop.share = 0.07;
    for (let i = 0; i < 4; i += 1) {
      at.now += 100;
      for (let j = 0; j < ROUND_MIN_SAMPLES; j += 1) limiter.onSample({ rttMs: 100, inFlightAtStart: 8, now: at.now });
    }
    expect(reasons(changes)).toContain('queueing');
    expect(limiter.limit).toBeLessThan(8);
  });

  it('a span of queueing rounds that began with the client busy is cut once its busy share falls under CLIENT_BUSY', () => {
    const { changes, loop, round } = scripted(50, 32);
    // 2.5x the base at 20 of the 32 allowed (not filled, so no growth resets the span): busy, no cut.
    loop.share = 1;
    round(125, 20);
    round(125, 20);
    expect(reasons(changes.slice(3))).toEqual([]);
    // The queue goes on with the loop idle: over the span the loop was busy 2/3 of the time, so
    // 2.5x reads 2.5 × (1 - 1/3) = 1.67x, a queue, and the very next round is cut.
    loop.share = 0;
    round(125, 20);
    expect(changes.at(-1)).toMatchObject({ from: 32, reason: 'queueing' });
  });

  it('slow start does not end on latency above flat that the client explains (1.4x, loop 60% busy); idle, it does', () => {
    const busy = scripted(50, 32);
    busy.loop.share = 0.6;
    busy.lasting(70);
    busy.round(50);
    expect(busy.changes.at(-1)).toMatchObject({ from: 32, to: 64, reason: 'latency flat' });

    const idle = scripted(50, 32);
    idle.lasting(70);
    idle.round(50);
    expect(idle.changes.at(-1)).toMatchObject({ from: 32, reason: 'latency flat' });
    expect(idle.changes.at(-1)?.to).toBeLessThan(64);
  });
});

describe("slow start's doubling, judged with the client's share taken off", () => {
  // At 32 in flight, 1.24x the base measured at 4: flat, but latency rising with the load as it
  // has would pass 1.5x at 64 (latency = base + k × load), so an idle client steps instead of doubling.
  it('the rise is the client busy 60% of the round: doubles to 64; idle, steps', () => {
    const busy = scripted(50, 32);
    busy.loop.share = 0.6;
    busy.round(62);
    expect(busy.changes.at(-1)).toMatchObject({ from: 32, to: 64, reason: 'latency flat' });

    const idle = scripted(50, 32);
    idle.round(62);
    expect(idle.changes.at(-1)).toMatchObject({ from: 32, reason: 'latency flat' });
    expect(idle.changes.at(-1)?.to).toBeGreaterThan(32);
    expect(idle.changes.at(-1)?.to).toBeLessThan(64);
  });
});

describe('a round uses its limit when the starts reach it', () => {
  it('in slow start, answers that all started below the limit still grow it once a start reached it', () => {
    const started = scripted(50, 32);
    started.limiter.onStarted(32);
    // The first half of the doubling's answers: they started with 17 to 32 in flight, here 24.
    started.round(50, 24, 16);
    expect(started.limiter.limit).toBe(64);

    const notStarted = scripted(50, 32);
    notStarted.round(50, 24, 16);
    expect(notStarted.limiter.limit).toBe(32);
  });

  it('a round whose starts never reached the limit does not grow it (a run held back by its rate)', () => {
    const { limiter, round } = scripted(50, 32);
    // Two whole rounds of flat answers, the starts never above 20 of the 32 allowed.
    for (let i = 0; i < 2; i += 1) {
      limiter.onStarted(20);
      round(50, 20);
    }
    expect(limiter.limit).toBe(32);
  });
});

describe('where the climb starts (startingLimit)', () => {
  it.each([
    [64, 4],
    [32, 4],
    [2, 2],
    [128, 8],
    [256, 16],
  ])('auto:%i starts at %i in flight', (ceiling, start) => {
    expect(startingLimit(ceiling)).toBe(start);
  });

  it.each([
    [{ auto: 64 }, 4],
    [{ auto: 256 }, 16],
  ])('%j: the first wave, before any answer, is %i requests', async (ceiling, wave) => {
    const arrivals: number[] = [];
    const server: Server = async (clock) => {
      arrivals.push(clock.now);
      await clock.sleep(20);
      return { status: 204 };
    };
    const run = await simulateBatch({ ids: 500, ceiling, server });
    expect(run.accepted).toBe(500);
    expect(arrivals.filter((at) => at === 0)).toHaveLength(wave);
  });
});

describe("the CLI's wiring: no injected clock, this process's event loop", () => {
  /** Keeps the event loop running code (busy) for `ms`. */
  const spin = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // busy on purpose: the loop never waits for I/O meanwhile
    }
  };
  /** Base 20 ms at 4 in flight, then rounds at 2x with the loop kept busy through each; the changes. */
  const run = (loop?: LoopUse) => {
    const changes: LimitChange[] = [];
    const limiter = new LatencyLimit({ ceiling: 64, onChange: (change) => changes.push(change), ...(loop ? { loop } : {}) });
    spin(20);
    for (let i = 0; i < ROUND_MIN_SAMPLES; i += 1) limiter.onSample({ rttMs: 20, inFlightAtStart: 4, now: performance.now() });
    for (let round = 0; round < 6; round += 1) {
      spin(50);
      const now = performance.now();
      for (let i = 0; i < ROUND_MIN_SAMPLES; i += 1) limiter.onSample({ rttMs: 40, inFlightAtStart: limiter.limit, now });
    }
    return reasons(changes);
  };

  it('rounds read while the loop spins are not cut for; the same rounds with a loop that reads idle are', () => {
    expect(run()).not.toContain('queueing');
    expect(run({ mark: () => undefined, busySince: () => 0 })).toContain('queueing');
  });
});
