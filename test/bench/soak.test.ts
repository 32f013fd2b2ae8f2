// The soak's own parts (soak.ts, a bench): the figures it reports are only as true as the server
// it runs against and the arithmetic it does, so both are checked here, quickly and on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { kindsOf, type SoakResult, soakConfig, soakSchedule, wantsReference } from './soak.js';
import { againstReference, climbOf, inServiceOf, measuredServiceRatio, paceOf, running } from './soak-figures.js';
import { soakRows } from './soak-rows.js';
import { capacityAt, type SoakPlan, type SoakServer, servable, signToken, startSoakServer } from './soak-server.js';

const CYCLE = { capacities: [64, 16, 128], phaseMs: 3000, baseLatencyMs: 20 };

describe('servable: what the server could answer over a span', () => {
  it('integrates capacity / base latency across phases, and caps it at a ceiling', () => {
    expect(capacityAt(CYCLE, 1000, 1000 + 3000)).toBe(16);
    expect(capacityAt(CYCLE, 1000, 1000 + 9000 + 6000)).toBe(128);
    expect(servable(CYCLE, 0, 0, 9000)).toBeCloseTo(((64 + 16 + 128) / 20) * 3000);
    expect(servable(CYCLE, 0, 0, 9000, 64)).toBeCloseTo(((64 + 16 + 64) / 20) * 3000);
    // Half of phase 0 and half of phase 1.
    expect(servable(CYCLE, 0, 1500, 4500)).toBeCloseTo((64 / 20) * 1500 + (16 / 20) * 1500);
  });
});

describe('pace and climb', () => {
  it('takes the stopped time out of a run', () => {
    const span = { from: 0, to: 10_000, stopped: [{ from: 2000, to: 7000 }] };
    expect(running(span)).toEqual([
      { from: 0, to: 2000 },
      { from: 7000, to: 10_000 },
    ]);
    // 5 s of running time in phase 0 (3 s) and phase 2 (7-9 s) and phase 0 again (9-10 s): all at 64 or more.
    const pace = paceOf(CYCLE, 0, [span], 8000, 64);
    expect(pace.runningMs).toBe(5000);
    expect(pace.perSecond).toBeCloseTo(1600);
    const could = servable(CYCLE, 0, 0, 2000) + servable(CYCLE, 0, 7000, 10_000);
    expect(pace.ratio).toBeCloseTo(8000 / could);
    expect(pace.ceilingRatio).toBeCloseTo(8000 / ((64 / 20) * 5000));
    // Phase 2 (128) from 7 to 9 s: 2 of the 5 s at 128, which a ceiling of 64 halves.
    expect(pace.ceilingShare).toBeCloseTo((64 * 5000) / (64 * 3000 + 128 * 2000));
  });

  it('measures a restart from its first deletion: how long until then, and how it climbed', () => {
    // Phase 0 (64 in flight, 20 ms): 320 a step at full pace. Nothing for 300 ms, then a third, then full.
    const perStep = 320;
    const deletesByStep = [0, 0, 0, ...Array(10).fill(perStep / 3), ...Array(17).fill(perStep)];
    const inFlightByStep = Array.from({ length: 30 }, (_, step) => step);
    const climb = climbOf(CYCLE, 0, { deletesByStep, inFlightByStep }, { from: 0, to: 3000, stopped: [] }, 64);
    expect(climb.msToFirstDelete).toBe(300);
    // From 300 ms: 1 s of a third of the pace.
    expect(climb.firstSecond).toBeCloseTo(1 / 3, 5);
    // The first window of 5 steps with ≥ 0.8 × 1600: four full steps and a third (1387) ends at 1700 ms, 1.4 s in.
    expect(climb.msTo80).toBe(1400);
    expect(climb.inFlightAfter).toEqual([8, 13, 23]);
    expect(climb.after5).toBeUndefined();
    const idle = climbOf(CYCLE, 0, { deletesByStep: [0, 0], inFlightByStep: [] }, { from: 0, to: 3000, stopped: [] }, 64);
    expect(idle.msToFirstDelete).toBeUndefined();
  });
});

describe('the pace against a reference run (issue 41: a --concurrency 64 run through the same soak)', () => {
  // Phase 0 is 64 in flight, phase 1 16: at 20 ms, 3.2 and 0.8 a millisecond at the ceiling.
  const inPhase0 = { from: 0, to: 3000, stopped: [] };
  const inPhase1 = { from: 3000, to: 6000, stopped: [] };

  it('compares each run’s share of its own servable, not plants a second: the capacity each met differs', () => {
    // The default ran in the 64 phase and deleted 0.6 of what it allowed; the reference ran in the
    // 16 phase and deleted 0.75 of it. A second, the default deleted more (1920 against 600).
    const pace = paceOf(CYCLE, 0, [inPhase0], 0.6 * 3.2 * 3000, 64);
    const reference = paceOf(CYCLE, 0, [inPhase1], 0.75 * 0.8 * 3000, 64);
    expect(pace.perSecond).toBeGreaterThan(reference.perSecond);
    const against = againstReference(pace, reference);
    expect(against.ratio).toBeCloseTo(0.6 / 0.75);
    // The reference's share of the default's servable (3,200 /s): 2,400 /s; the value over it is the ratio.
    expect(against.floorPerSecond).toBeCloseTo(2400);
    expect(pace.perSecond / against.floorPerSecond).toBeCloseTo(against.ratio);
    expect(againstReference(pace, paceOf(CYCLE, 0, [inPhase1], 0, 64)).ratio).toBe(0);
  });

  it('scales the nominal share by the server’s measured service time', () => {
    const pace = paceOf(CYCLE, 0, [inPhase0], 0.6 * 3.2 * 3000, 64);
    // A 20 ms request that took 25 ms: the server could serve 0.8 of the nominal, of which 0.6 is 0.75.
    expect(measuredServiceRatio(pace, 20, 25)).toBeCloseTo(0.75);
    expect(measuredServiceRatio(pace, 20, 0)).toBe(0);
  });

  it('reads how full a run kept the server’s slots, at the ceiling and below it, over its running steps only', () => {
    // 48 in service through phase 0 (64), 16 through phase 1 (16), 64 through phase 2 (128): a run
    // from 0 to 9 s stopped from 1 to 2 s, whose first and last half steps are not whole steps.
    const servingByStep = [...Array(30).fill(48), ...Array(30).fill(16), ...Array(30).fill(64)];
    servingByStep[5] = 0; // stopped: not counted
    const span = { from: 50, to: 8950, stopped: [{ from: 500, to: 600 }] };
    const inService = inServiceOf(CYCLE, 0, servingByStep, [span], 64);
    // At the ceiling: 28 steps of 48 (0-50 and 8900-9000 are part steps; 500-600 stopped) and 29 of 64.
    expect(inService.atCeiling).toBeCloseTo((28 * 48 + 29 * 64) / (57 * 64));
    expect(inService.belowCeiling).toBeCloseTo(1);
    expect(inServiceOf(CYCLE, 0, [], [], 64)).toEqual({ atCeiling: 0, belowCeiling: 0 });
  });

  /** A finished soak of `ids` over one run in phase 0 (0-3 s) that deleted `share` of min(capacity, 64) / 20 ms. */
  const result = (share: number, concurrency?: number, code = 0): SoakResult => {
    const config = { ...soakConfig({}), ids: Math.round(share * 3.2 * 3000), concurrency, interruptions: 0, baseLatencyMs: 20 };
    const stats = {
      startedAt: 0,
      deleted: config.ids,
      notDeletedCount: 0,
      maxRequestsPerId: 1,
      requestsPerId: [0, config.ids, 0, 0] as [number, number, number, number],
    };
    const run = { index: 0, from: 0, to: 3000, stopped: [], code, signal: null, peakKiB: 1, rssExact: true, cpuMs: 1, hung: false };
    return {
      config,
      schedule: { interruptions: [], suspendAtDeleted: undefined },
      plan: { ids: config.ids, baseLatencyMs: 20, capacities: [64, 16, 128], phaseMs: 3000, tokenSecret: 's', missing: '404' },
      runs: [
        {
          ...run,
          deletedBefore: 0,
          deletedAfter: config.ids,
          summary: undefined,
          stderrSample: [],
          stderrLines: 0,
          journalBytes: 0,
          failureKinds: [],
        },
      ],
      stats: {
        ...stats,
        meanQueueingMs: 0,
        meanServiceMs: 21,
        cpuMs: 0,
        byStatus: {},
        overTwice: [],
        notDeleted: [],
        deletesByStep: [],
        answersByStep: [],
        inFlightByStep: [],
        servingByStep: [],
        requests: 0,
        authorized: 0,
        expired: 0,
        forged: 0,
        connections: 0,
      },
      tokensIssued: 1,
      journal: { lines: 0, notSent: 0 },
    } as SoakResult;
  };
  const paceRowOf = (rows: ReturnType<typeof soakRows>) => rows.find((row) => row.figure.includes('pace'));

  it('judges the row against the reference when there is one, and keeps the nominal share in the notes', () => {
    const alone = paceRowOf(soakRows(result(0.7)));
    expect(alone?.ratio).toBeCloseTo(0.7);
    expect(alone?.met).toBe(false);
    const judged = paceRowOf(soakRows(result(0.7), result(0.8, 64)));
    expect(judged?.ratio).toBeCloseTo(0.875);
    expect(judged?.met).toBe(true);
    expect(judged?.notes?.join(' ')).toContain('0.70×');
    expect(judged?.notes?.join(' ')).toContain('--concurrency 64');
    expect(paceRowOf(soakRows(result(0.6), result(0.8, 64)))?.met).toBe(false);
    // A reference that did not finish judges nothing.
    expect(paceRowOf(soakRows(result(0.7), result(0.8, 64, 1)))?.met).toBe(false);
  });

  it('runs the reference at 10 ms a request, where the nominal is out of reach, unless told', () => {
    const config = soakConfig({});
    expect(wantsReference({ ...config, baseLatencyMs: 10 }, {})).toBe(true);
    expect(wantsReference({ ...config, baseLatencyMs: 20 }, {})).toBe(false);
    expect(wantsReference({ ...config, baseLatencyMs: 20 }, { BENCH_SOAK_REFERENCE: '1' })).toBe(true);
    expect(wantsReference({ ...config, baseLatencyMs: 10 }, { BENCH_SOAK_REFERENCE: '0' })).toBe(false);
    expect(soakConfig({ BENCH_SOAK_CONCURRENCY: '64' }).concurrency).toBe(64);
    expect(soakConfig({}).concurrency).toBeUndefined();
  });
});

describe('soakSchedule', () => {
  it('mixes the kinds, spreads the moments in order, and puts the suspend inside a later run', () => {
    for (const seed of [1, 2, 3, 4]) {
      const schedule = soakSchedule({ ids: 200_000, seed, interruptions: 5, suspendMs: 35_000 });
      expect(new Set(schedule.interruptions.map((i) => i.signal))).toEqual(new Set(['SIGKILL', 'SIGTERM', 'SIGINT']));
      const moments = schedule.interruptions.map((i) => i.atDeleted);
      expect(moments).toEqual([...moments].sort((a, b) => a - b));
      expect(moments[0]).toBeGreaterThan(0);
      expect(moments.at(-1)).toBeLessThan(200_000);
      const suspend = schedule.suspendAtDeleted ?? 0;
      expect(suspend).toBeGreaterThan(moments[0] ?? Infinity);
      expect(moments).not.toContain(suspend);
      expect(soakSchedule({ ids: 200_000, seed, interruptions: 5, suspendMs: 35_000 })).toEqual(schedule);
    }
    expect(soakSchedule({ ids: 100, seed: 1, interruptions: 2, suspendMs: 0 }).suspendAtDeleted).toBeUndefined();
  });
});

describe('kindsOf', () => {
  it('groups a run’s ✗ lines by what they say, the id taken out, most frequent first', () => {
    const lines = [
      '✗ plant 7: error 404: no such plant (HTTP 404)',
      '✗ plant 8: interrupted while waiting for the answer',
      '✗ plant 9: interrupted while waiting for the answer',
      'interrupted: 2 of 9 deleted before the interrupt',
    ];
    expect(kindsOf(lines)).toEqual([
      ['plant N: interrupted while waiting for the answer', 2],
      ['plant N: error 404: no such plant (HTTP 404)', 1],
    ]);
  });
});

describe('the soak server', () => {
  let server: SoakServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const plan = (over: Partial<SoakPlan> = {}): SoakPlan => ({
    ids: 10,
    baseLatencyMs: 30,
    capacities: [1],
    phaseMs: 60_000,
    tokenSecret: 'secret',
    missing: '404',
    ...over,
  });
  const del = async (url: string, id: string, token: string): Promise<{ status: number; body: string }> => {
    const res = await fetch(`${url}/plants/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.text() };
  };

  it('deletes on the first request, says "no such plant" after, and counts each id’s requests', async () => {
    server = await startSoakServer(plan());
    const token = signToken('secret', Date.now() + 60_000);
    expect(await del(server.url, '3', token)).toEqual({ status: 204, body: '' });
    expect(await del(server.url, '3', token)).toEqual({ status: 404, body: '{"error":404,"message":"no such plant"}' });
    expect(await del(server.url, '11', token)).toMatchObject({ status: 404 }); // never existed
    const stats = server.stats();
    expect(stats.deleted).toBe(1);
    expect(stats.requestsPerId).toEqual([9, 0, 1, 0]);
    expect(stats.maxRequestsPerId).toBe(2);
    expect(stats.notDeletedCount).toBe(9);
  });

  it('says "no such plant" as code 1 when asked to', async () => {
    server = await startSoakServer(plan({ missing: 'code1' }));
    const token = signToken('secret', Date.now() + 60_000);
    await del(server.url, '1', token);
    expect(await del(server.url, '1', token)).toEqual({ status: 400, body: '{"error":1,"message":"no such plant"}' });
  });

  it('refuses an expired token and one it never issued with 401, deleting nothing', async () => {
    server = await startSoakServer(plan());
    expect((await del(server.url, '1', signToken('secret', Date.now() - 1))).status).toBe(401);
    expect((await del(server.url, '1', signToken('other', Date.now() + 60_000))).status).toBe(401);
    const stats = server.stats();
    expect([stats.expired, stats.forged, stats.deleted]).toEqual([1, 1, 0]);
  });

  it('serves capacity at once and queues the rest in arrival order', async () => {
    server = await startSoakServer(plan({ ids: 3, baseLatencyMs: 200 }));
    const token = signToken('secret', Date.now() + 60_000);
    const url = server.url;
    const order: string[] = [];
    await Promise.all(['1', '2', '3'].map((id) => del(url, id, token).then(() => order.push(id))));
    const stats = server.stats();
    // One at a time for 200 ms each: the second waited about one latency, the third about two
    // (less the time between their arrivals); without the queue, none would wait.
    expect(stats.meanQueueingMs).toBeGreaterThanOrEqual(100);
    expect(Math.max(...stats.inFlightByStep)).toBe(3);
    expect(stats.answersByStep.reduce((a, b) => a + b, 0)).toBe(3);
    expect(order).toHaveLength(3);
    // Each was served for its 200 ms (a timer fires no earlier), queueing apart.
    expect(stats.meanServiceMs).toBeGreaterThanOrEqual(199);
    expect(stats.meanServiceMs).toBeLessThan(stats.meanQueueingMs + 200);
    // One in service at a time: the time-weighted requests in service add up to the three services.
    const requestMs = stats.servingByStep.reduce((a, b) => a + b, 0) * 100;
    expect(Math.abs(requestMs - 3 * stats.meanServiceMs)).toBeLessThan(1);
    expect(Math.max(...stats.servingByStep)).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('tells when it has deleted so many plants', async () => {
    server = await startSoakServer(plan({ baseLatencyMs: 1, capacities: [8] }));
    const token = signToken('secret', Date.now() + 60_000);
    const reached: number[] = [];
    server.whenDeleted(2, () => reached.push(2));
    await del(server.url, '1', token);
    expect(reached).toEqual([]);
    await del(server.url, '1', token); // "no such plant" deletes nothing
    expect(reached).toEqual([]);
    await del(server.url, '2', token);
    expect(reached).toEqual([2]);
    server.whenDeleted(1, () => reached.push(1));
    expect(reached).toEqual([2, 1]);
  });
});
