// The bench's soak (test/bench/soak.ts) at a size the suite can afford: 5,000 ids, two
// interruptions of the seeded kinds, no suspend (one past the default --timeout takes 35 s), so
// that the harness behind the `npm run bench` soak rows keeps working between bench runs. It checks
// the harness, not the client: each scheduled signal ended its run as that signal does, the
// server saw every plant deleted, and each figure was measured. Whether the client keeps the
// soak's promises (interruptions + 1 runs, every id sent at most twice, exit 0) is for the bench
// rows and the journal crash test (journal-crash.e2e.test.ts). It runs the 10 ms rows' reference
// too (the same plan at a fixed --concurrency 64) and checks it ran as one, through the same plan.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSoak, type SoakResult, soakConfig } from '../bench/soak.js';
import { soakRows } from '../bench/soak-rows.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A hang guard: up to five runs of the CLI over 5,000 ids, on two busy cores. */
const SOAK_TIMEOUT_MS = 180_000;
/** How each signal ends the CLI: kill -9 by the signal, SIGTERM and SIGINT by their own exit codes. */
const ENDS: Record<string, { code: number | null; signal: string | null }> = {
  SIGKILL: { code: null, signal: 'SIGKILL' },
  SIGTERM: { code: 143, signal: null },
  SIGINT: { code: 130, signal: null },
};

describe('the soak harness, 5,000 ids and two interruptions', () => {
  let tmp: string;
  let result: SoakResult;
  /** The bench's 10 ms reference: the same plan through a fixed --concurrency 64. */
  let reference: SoakResult;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-soak-e2e-'));
    const config = {
      ...soakConfig({ BENCH_SOAK_IDS: '5000', BENCH_SOAK_INTERRUPTIONS: '2', BENCH_SOAK_SUSPEND_MS: '0', BENCH_SOAK_SEED: '3' }),
    };
    result = await runSoak({ runs: 1, warmups: 0, tmp, pkg: ROOT }, config, 'this process');
    reference = await runSoak({ runs: 1, warmups: 0, tmp, pkg: ROOT }, { ...config, concurrency: 64 }, 'this process');
  }, 2 * SOAK_TIMEOUT_MS);

  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('ends each of the first runs with its scheduled signal, once the server has deleted its share', () => {
    const { interruptions } = result.schedule;
    expect(interruptions.map((i) => i.signal)).toHaveLength(2);
    interruptions.forEach((planned, i) => {
      const run = result.runs[i];
      expect(run?.interruption).toMatchObject({ signal: planned.signal, atDeleted: planned.atDeleted });
      expect({ code: run?.code, signal: run?.signal }).toEqual(ENDS[planned.signal]);
      expect(run?.deletedAfter).toBeGreaterThanOrEqual(planned.atDeleted);
    });
  });

  it('runs the command again until it exits 0 or the runs allowed are spent, and the server deletes every plant', () => {
    const last = result.runs.at(-1);
    expect(last?.code === 0 || result.runs.length === result.config.maxRuns).toBe(true);
    expect(result.stats.deleted).toBe(5000);
    expect(result.stats.requestsPerId[0]).toBe(0);
    expect(result.tokensIssued).toBeGreaterThanOrEqual(result.runs.length);
    expect(result.stats.expired + result.stats.forged).toBe(result.stats.byStatus['401'] ?? 0);
  });

  it('measures every figure of the rows', () => {
    for (const run of result.runs) expect(run.peakKiB).toBeGreaterThan(10 * 1024);
    const rows = soakRows(result);
    expect(rows.map((row) => row.value)).not.toContain('error');
    const pace = rows.find((row) => row.figure.includes('pace'));
    expect(pace?.ratio).toBeGreaterThan(0);
    expect(rows.filter((row) => row.met !== undefined)).toHaveLength(5);
  });

  it('runs the reference through the same plan at a fixed 64, and judges the pace against it', () => {
    // The same interruptions, at the same numbers deleted; the CLI told --concurrency 64 (only
    // auto's summary names where its concurrency settled).
    expect(reference.schedule).toEqual(result.schedule);
    expect(reference.runs.map((run) => run.interruption?.atDeleted)).toEqual(result.runs.map((run) => run.interruption?.atDeleted));
    expect(reference.stats.deleted).toBe(5000);
    const summaries = (of: SoakResult) => of.runs.flatMap((run) => (run.summary ? [run.summary] : []));
    expect(summaries(reference).length).toBeGreaterThan(0);
    for (const summary of summaries(reference)) expect(summary).not.toContain('concurrency settled');
    expect(summaries(result).some((summary) => summary.includes('concurrency settled'))).toBe(true);
    const pace = soakRows(result, reference).find((row) => row.figure.includes('pace'));
    expect(pace?.figure).toContain('--concurrency 64');
    expect(pace?.ratio).toBeGreaterThan(0);
  });
});
