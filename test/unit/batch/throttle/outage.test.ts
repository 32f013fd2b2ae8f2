import { describe, expect, it } from 'vitest';
import { MIN_RATE } from '../../../../src/batch/throttle/adaptive-rate.js';
import {
  OUTAGE_AFTER_ANSWERS,
  OUTAGE_AFTER_FIRSTS,
  OutageWatch,
  OVERLOAD_OUTAGE_AFTER_MS,
  PROBE_EVERY_MS,
} from '../../../../src/batch/throttle/outage.js';
import { Throttle, type ThrottleChange } from '../../../../src/batch/throttle/throttle.js';
import { type Feedback, feedbackFor, type Permit } from '../../../../src/http/gate.js';
import { type Server, settle, simulateBatch, VirtualClock } from './virtual-batch.js';

const first = (sequence: number) => ({ sequence, retry: false });
const retry = (sequence: number) => ({ sequence, retry: true });

describe('OutageWatch', () => {
  it('an outage is OUTAGE_AFTER_ANSWERS answers failing in a row, OUTAGE_AFTER_FIRSTS of them first attempts; a good answer between starts the count again', () => {
    const watch = new OutageWatch();
    for (let i = 1; i < OUTAGE_AFTER_ANSWERS; i++) expect(watch.onFailing(first(i), 0)).toBe(false);
    watch.onGood(first(100));
    for (let i = 1; i < OUTAGE_AFTER_ANSWERS; i++) expect(watch.onFailing(first(i), 0)).toBe(false);
    expect(watch.active).toBe(false);
    expect(watch.onFailing(first(OUTAGE_AFTER_ANSWERS), 0)).toBe(true);
    expect(watch.active).toBe(true);
    expect(watch.outages).toBe(1);
  });

  it('a share of failures is not one: OUTAGE_AFTER_FIRSTS first attempts failing in a row, among fewer than OUTAGE_AFTER_ANSWERS answers, is chance', () => {
    const watch = new OutageWatch();
    // One upstream of two dead: eight firsts land on it in a row now and then, and the next good answer ends the run.
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 2 * OUTAGE_AFTER_FIRSTS; i++) expect(watch.onFailing(first(i), 0)).toBe(false);
      watch.onGood(first(1000));
    }
    expect(watch.outages).toBe(0);
  });

  it("after OUTAGE_AFTER_FIRSTS failed firsts, retries' failures make up the answers in a row", () => {
    const watch = new OutageWatch();
    for (let i = 1; i <= OUTAGE_AFTER_FIRSTS; i++) watch.onFailing(first(i), 0);
    for (let i = OUTAGE_AFTER_FIRSTS + 1; i < OUTAGE_AFTER_ANSWERS; i++) expect(watch.onFailing(retry(i), 0)).toBe(false);
    expect(watch.onFailing(retry(OUTAGE_AFTER_ANSWERS), 0)).toBe(true);
  });

  it("a few ids failing over and over are not one: a retry's failure is its id's again", () => {
    const watch = new OutageWatch();
    watch.onFailing(first(1), 0);
    for (let i = 2; i < 1000; i++) expect(watch.onFailing(retry(i), i)).toBe(false);
    expect(watch.active).toBe(false);
  });

  it('just after an outage, retries failing again tell that it is down again, until OUTAGE_AFTER_FIRSTS good answers', () => {
    const watch = new OutageWatch();
    for (let i = 1; i <= OUTAGE_AFTER_ANSWERS; i++) watch.onFailing(first(i), 0);
    watch.onStart(100);
    expect(watch.onGood(retry(100))).toBe(true);
    for (let i = 1; i < OUTAGE_AFTER_ANSWERS; i++) expect(watch.onFailing(retry(100 + i), 0)).toBe(false);
    expect(watch.onFailing(retry(200), 0)).toBe(true);
    expect(watch.outages).toBe(2);
    watch.onStart(300);
    watch.onGood(retry(300));
    // Recovered: retries' failures are their ids' again.
    for (let i = 0; i < OUTAGE_AFTER_FIRSTS; i++) watch.onGood(first(400 + i));
    for (let i = 0; i < 2 * OUTAGE_AFTER_FIRSTS; i++) expect(watch.onFailing(retry(500 + i), 0)).toBe(false);
  });

  it('503s, which a server at capacity sheds beside what it serves, are one only after OVERLOAD_OUTAGE_AFTER_MS of nothing else', () => {
    const watch = new OutageWatch();
    for (let i = 1; i <= 2 * OUTAGE_AFTER_ANSWERS; i++) expect(watch.onFailing(first(i), i, true)).toBe(false);
    expect(watch.onFailing(first(100), 1 + OVERLOAD_OUTAGE_AFTER_MS, true)).toBe(true);
  });

  it('in an outage one probe at a time; only a good answer to a request sent since it began ends it', () => {
    const watch = new OutageWatch();
    for (let i = 1; i <= OUTAGE_AFTER_ANSWERS + 2; i++) watch.onStart(i);
    for (let i = 1; i <= OUTAGE_AFTER_ANSWERS; i++) watch.onFailing(first(i), 0);
    expect(watch.probing).toBe(false);
    // Sent before the outage: it says the service worked then, not now.
    expect(watch.onGood(first(OUTAGE_AFTER_ANSWERS + 1))).toBe(false);
    expect(watch.active).toBe(true);
    const next = OUTAGE_AFTER_ANSWERS + 3;
    watch.onStart(next);
    expect(watch.probing).toBe(true);
    watch.onStart(next + 1); // one more start in the same turn is not a second probe
    watch.onOther(first(next + 1));
    expect(watch.probing).toBe(true);
    watch.onFailing(retry(next), 0);
    expect(watch.probing).toBe(false);
    watch.onStart(next + 2);
    expect(watch.onGood(retry(next + 2))).toBe(true);
    expect(watch.active).toBe(false);
    expect(watch.probing).toBe(false);
  });
});

function setup(ceiling = 8) {
  const clock = new VirtualClock();
  const changes: ThrottleChange[] = [];
  const throttle = new Throttle({ ceiling, now: clock.read, setTimer: clock.setTimer, onChange: (change) => changes.push(change) });
  const signal = new AbortController().signal;
  const acquire = (kind: 'first' | 'retry' = 'first') => {
    const state: { permit: Permit | undefined; settled: boolean } = { permit: undefined, settled: false };
    void throttle.acquire(kind, signal).then((permit) => {
      state.permit = permit;
      state.settled = true;
    });
    return state;
  };
  return { clock, changes, throttle, acquire };
}

const ok: Feedback = { kind: 'ok' };
const badGateway: Feedback = { kind: 'failing', status: 502 };

describe('Throttle: a few ids failing alone', () => {
  it("an id refused (503) over and over cuts the limit once, at its first refusal: its retries' refusals are its own", async () => {
    const { throttle, acquire } = setup(8);
    const firstTry = acquire();
    await settle();
    (firstTry.permit as Permit).release(feedbackFor(503));
    expect(throttle.stats().concurrencyCuts).toBe(1);
    const limit = throttle.stats().concurrencyLimit;
    for (let i = 0; i < 20; i++) {
      const again = acquire('retry');
      await settle();
      (again.permit as Permit).release(feedbackFor(503));
    }
    expect(throttle.stats()).toMatchObject({ concurrencyCuts: 1, concurrencyLimit: limit, pauses: 0, refusals: 21 });
    expect(throttle.gaveUp()).toBeUndefined();
    expect(throttle.outage()).toBe(false);
  });
});

describe('Throttle: an outage', () => {
  it('pauses the run, then lets one probe out a pause apart; a good probe ends it and the run starts again slowly', async () => {
    const { clock, throttle, changes, acquire } = setup(32);
    const wave = Array.from({ length: OUTAGE_AFTER_ANSWERS }, () => acquire());
    await settle();
    for (const request of wave) (request.permit as Permit).release(badGateway);
    expect(throttle.outage()).toBe(true);
    expect(changes).toContainEqual({ kind: 'paused', forMs: PROBE_EVERY_MS, reason: 'failing' });

    const probe = acquire('retry');
    const behind = acquire('retry');
    await clock.advance(PROBE_EVERY_MS - 1);
    expect(probe.settled).toBe(false);
    await clock.advance(1);
    expect(probe.settled).toBe(true);
    await clock.advance(10 * PROBE_EVERY_MS);
    // The probe is out: nothing else goes, however long it takes.
    expect(behind.settled).toBe(false);
    (probe.permit as Permit).release(badGateway);
    await clock.advance(PROBE_EVERY_MS - 1);
    expect(behind.settled).toBe(false);
    await clock.advance(1);
    expect(behind.settled).toBe(true);

    (behind.permit as Permit).release(ok);
    expect(throttle.outage()).toBe(false);
    expect(changes.at(-1)).toEqual({ kind: 'service-back', afterMs: 11 * PROBE_EVERY_MS + PROBE_EVERY_MS });
    expect(throttle.stats()).toMatchObject({ outages: 1, failures: OUTAGE_AFTER_ANSWERS + 1, refusals: 0 });
  });

  it('the slow restart after it is no rate cut: nothing refused, nothing cut', async () => {
    const { clock, throttle, acquire } = setup(32);
    const wave = Array.from({ length: OUTAGE_AFTER_ANSWERS }, () => acquire());
    await settle();
    for (const request of wave) (request.permit as Permit).release(badGateway);
    const probe = acquire('retry');
    await clock.advance(PROBE_EVERY_MS);
    (probe.permit as Permit).release(ok);
    expect(throttle.outage()).toBe(false);
    // Paced again from the slowest rate, and doubling: a restart, counted as none of the cuts.
    expect(throttle.stats()).toMatchObject({ outages: 1, refusals: 0, rateCuts: 0, ratePerSecond: MIN_RATE });
  });

  it('a batch behind a gateway whose upstream is down for 5 s: every id deleted, and after the first second at most a probe a second', async () => {
    const downFrom = 200;
    const downTo = 5200;
    const server: Server = async (clock) => {
      const down = clock.now >= downFrom && clock.now < downTo;
      await clock.sleep(down ? 1 : 10);
      return { status: down ? 502 : 204 };
    };
    const result = await simulateBatch({ ids: 5000, ceiling: 64, server });
    expect(result.accepted).toBe(5000);
    expect(result.failed).toBe(0);
    const settledDown = result.startedAt.filter((at) => at >= downFrom + 1000 && at < downTo).length;
    expect(settledDown).toBeLessThanOrEqual((downTo - downFrom - 1000) / PROBE_EVERY_MS + 1);
    expect(result.stats.outages).toBe(1);
  });
});
