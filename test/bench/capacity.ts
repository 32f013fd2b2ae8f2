// Batches against servers with a capacity nobody told the user (net-server.ts `slots`): the
// server serves K requests at once and queues the rest in arrival order, so past K more in
// flight buys nothing but a queue. For each server, plantstore runs at each --concurrency in
// the scenario's list, and each row is judged against the best of them in the same run:
//   k48       K = 48, 50 ms answers, 4,000 ids: 8, 16, 32, 48, 64, 128, no flag
//   k6        K = 6, 50 ms answers, 1,000 ids: 8, 16, 32, 64, no flag
//   k2, k4    K = 2 and 4, 50 ms answers, 1,000 ids: 8 (the old default), no flag
//   k200-tls  K = 200, 20 ms answers, 10,000 ids over TLS (h2 offered): 16, 32, 64, 128, 200, 256, auto:256
// The fixed settings are the reference (target n/a). 'default' runs with no --concurrency (auto up
// to 64, issue 28), 'auto:256' with the ceiling raised; such a row is judged by the scenario's
// `autoTarget`: ≥ 0.85× the best fixed setting and what each server adds (little queueing at
// K = 48, at most 2 K in flight after 1 s at K = 6); at K = 2 and 4, no more queueing than fixed 8
// and ≥ 0.9× its throughput; at K = 200, ≥ 0.9× the best in every one of its runs.
// A setting the CLI refuses (over its --concurrency maximum) reads "exit 2" and is left out
// of the best.
//
// A scenario with `rounds` > 1 runs its contenders again, interleaved (auto, and each fixed
// setting that reached half the best of the first round), and reports each one's median run:
// at K = 200 a whole batch takes about 1.4 s, and single runs of the same setting ranged
// 0.62-0.92x of the best. The slow settings, far from the best, run once. Each auto row's
// notes show how many requests the server held in each 100 ms: the limit's path, seen from
// the server, at no cost to the client.
//
// BENCH_CAPACITY=0 skips them; BENCH_CAPACITY=k48,k6 picks some.
// Standalone: `npx tsx test/bench/capacity.ts` (the built package, or BENCH_PACKAGE).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCa, issue, OPENSSL } from '../helpers/certificates.js';
import {
  type Batch,
  failureNote,
  failureValue,
  formatCount,
  formatCpuShare,
  formatPercent,
  formatSeconds,
  pick,
  refused,
  runBatch,
  succeeded,
} from './net-batch.js';
import { type Behaviour, IN_FLIGHT_STEP_MS } from './net-server.js';
import { type NetServerProcess, startNetServerProcess } from './net-server-process.js';
import { benchEnv, binOf, type Command, NODE, type Options, snapshotPackage } from './proc.js';
import { failedRow, type Row, renderTable } from './table.js';

const TOKEN = 'bench-token-capacity-0123456789';
export const CAPACITY_SCENARIOS = ['k48', 'k6', 'k2', 'k4', 'k200-tls'] as const;
type ScenarioName = (typeof CAPACITY_SCENARIOS)[number];
/** A fixed --concurrency, no flag at all ('default'), or the auto limit with its ceiling raised. */
export type Setting = number | 'default' | 'auto:256';
const adaptive = (setting: Setting): boolean => typeof setting !== 'number';

interface Scenario {
  slots: number;
  latencyMs: number;
  ids: number;
  tls: boolean;
  settings: Setting[];
  /** How many times the contenders run (see above); 1 when absent. */
  rounds?: number;
  /** With `slots`: 503 once this many wait (none of the scenarios yet). */
  shedPastQueue?: number;
  /** The target an adaptive row is judged by, and whether it is met (`fixed`: the fixed settings' runs). */
  autoTarget: { text: string; met(run: Measured, best: number, fixed: ReadonlyMap<Setting, Measured>): boolean };
}

interface Measured {
  /** The run reported: the median of `runs` by time, or the first that failed. */
  batch: Batch;
  /** Distinct ids deleted per second of wall-clock (spawn to exit). */
  perSecond: number;
  runs: number;
  /** The same, of each run. */
  each: number[];
}

/** A run's distinct deletions per second; 0 for one that failed or deleted fewer than all. */
const perSecondOf = (batch: Batch | undefined, ids: number): number =>
  batch && succeeded(batch) && batch.stats.distinctDeleted === ids ? (batch.stats.distinctDeleted / batch.ran.ms) * 1000 : 0;

const atLeast85 = (run: Measured, best: number): boolean => round2(run.perSecond / best) >= 0.85;

/** Issue 28 at a small server: no more queueing than fixed 8, and ≥ 0.9× its throughput. */
const gentlerThan8 = {
  text: 'queueing ≤ fixed 8’s, ≥ 0.9× fixed 8',
  met: (run: Measured, _best: number, fixed: ReadonlyMap<Setting, Measured>): boolean => {
    const eight = fixed.get(8);
    return (
      eight !== undefined &&
      run.batch.stats.meanQueueingMs <= eight.batch.stats.meanQueueingMs &&
      round2(run.perSecond / eight.perSecond) >= 0.9
    );
  },
};

export const SCENARIOS: Record<ScenarioName, Scenario> = {
  k48: {
    slots: 48,
    latencyMs: 50,
    ids: 4000,
    tls: false,
    settings: [8, 16, 32, 48, 64, 128, 'default'],
    autoTarget: {
      text: '≥ 0.85× best, queueing ≤ 50 ms',
      met: (run, best) => atLeast85(run, best) && run.batch.stats.meanQueueingMs <= 50,
    },
  },
  k6: {
    slots: 6,
    latencyMs: 50,
    ids: 1000,
    tls: false,
    settings: [8, 16, 32, 64, 'default'],
    autoTarget: {
      text: '≥ 0.85× best, ≤ 12 in flight after 1 s',
      met: (run, best) => atLeast85(run, best) && run.batch.stats.peakInFlightAfterFirstSecond <= 12,
    },
  },
  k2: { slots: 2, latencyMs: 50, ids: 1000, tls: false, settings: [8, 'default'], autoTarget: gentlerThan8 },
  k4: { slots: 4, latencyMs: 50, ids: 1000, tls: false, settings: [8, 'default'], autoTarget: gentlerThan8 },
  'k200-tls': {
    slots: 200,
    latencyMs: 20,
    ids: 10_000,
    tls: true,
    settings: [16, 32, 64, 128, 200, 256, 'auto:256'],
    // Issue 28: at least 0.9× the best in each of 5 runs.
    rounds: 5,
    autoTarget: {
      text: '≥ 0.9× best, every run',
      met: (run, best) => run.each.length > 0 && run.each.every((perSecond) => round2(perSecond / best) >= 0.9),
    },
  },
};

/** Judged as printed (two decimals), as the other benchmarks do. */
const round2 = (x: number): number => Math.round(x * 100) / 100;
/** `4, 16, 64, 256 ×9, 180`: the peak in flight of each step, a repeated value written once with its count. */
function formatSteps(steps: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < steps.length; ) {
    let j = i;
    while (steps[j + 1] === steps[i]) j++;
    parts.push(j > i ? `${steps[i]} ×${j - i + 1}` : String(steps[i]));
    i = j + 1;
  }
  return parts.join(', ');
}

const idsText = (n: number): string => `${Array.from({ length: n }, (_, i) => String(i + 1)).join('\n')}\n`;

/** Which scenarios BENCH_CAPACITY asks for: all by default, none for 0, else a comma-separated list. */
export function selectedCapacityScenarios(value: string | undefined): ScenarioName[] {
  if (value === undefined || value.trim() === '' || value.trim() === '1') return [...CAPACITY_SCENARIOS];
  if (value.trim() === '0') return [];
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(CAPACITY_SCENARIOS as readonly string[]).includes(name));
  if (unknown.length)
    throw new Error(`BENCH_CAPACITY: unknown scenario ${unknown.join(', ')} (known: ${CAPACITY_SCENARIOS.join(', ')}, or 0)`);
  return CAPACITY_SCENARIOS.filter((name) => names.includes(name));
}

function plantstore(options: Options, server: NetServerProcess, setting: Setting, ids: number, env: Record<string, string>): Command {
  return {
    file: NODE,
    args: [binOf(options.pkg), 'delete', '--stdin', ...(setting === 'default' ? [] : ['--concurrency', String(setting)])],
    env: benchEnv(options.tmp, {
      PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-capacity-unused'), // never created: nothing to read
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_BASE_URL: server.url,
      ...env,
    }),
    input: idsText(ids),
  };
}

const describeServer = (s: Scenario): string =>
  `K = ${s.slots}, ${s.latencyMs} ms${s.tls ? ', TLS' : ''}: ${formatCount(s.ids)} ids, --concurrency`;

async function runScenario(name: ScenarioName, options: Options): Promise<Row[]> {
  const scenario = SCENARIOS[name];
  let server: NetServerProcess;
  const env: Record<string, string> = {};
  if (scenario.tls) {
    if (!OPENSSL)
      return [
        { figure: describeServer(scenario), value: 'skipped', floor: '—', target: '—', notes: ['not measured: openssl is not installed'] },
      ];
    const dir = mkdtempSync(path.join(options.tmp, 'capacity-tls-'));
    const ca = createCa(dir);
    const issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);
    server = await startNetServerProcess(TOKEN, { cert: issued.cert, key: issued.key });
    env['PLANTSTORE_CA_CERT'] = ca.certFile;
  } else {
    server = await startNetServerProcess(TOKEN);
  }
  const behaviour: Behaviour = {
    latencyMs: scenario.latencyMs,
    slots: scenario.slots,
    ...(scenario.shedPastQueue === undefined ? {} : { shedPastQueue: scenario.shedPastQueue }),
  };
  const runs = new Map<Setting, Batch[]>(scenario.settings.map((setting) => [setting, []]));
  const runAt = async (setting: Setting): Promise<void> => {
    runs.get(setting)?.push(await runBatch(server, behaviour, plantstore(options, server, setting, scenario.ids, env)));
  };
  try {
    for (const setting of scenario.settings) await runAt(setting);
    const firstBest = Math.max(
      0,
      ...scenario.settings.filter((s) => !adaptive(s)).map((s) => perSecondOf((runs.get(s) ?? [])[0], scenario.ids)),
    );
    const contenders = scenario.settings.filter((s) => adaptive(s) || perSecondOf((runs.get(s) ?? [])[0], scenario.ids) >= firstBest / 2);
    for (let round = 1; round < (scenario.rounds ?? 1); round++) for (const setting of contenders) await runAt(setting);
  } finally {
    await server.close();
  }
  const measured = new Map<Setting, Measured>(
    [...runs].map(([setting, all]) => {
      const batch = pick(all);
      const each = all.map((b) => perSecondOf(b, scenario.ids));
      return [setting, { batch, perSecond: (batch.stats.distinctDeleted / batch.ran.ms) * 1000, runs: all.length, each }];
    }),
  );
  const fixed = [...measured].filter(
    ([setting, run]) => !adaptive(setting) && succeeded(run.batch) && run.batch.stats.distinctDeleted === scenario.ids,
  );
  const fixedRuns = new Map(fixed);
  const [bestSetting, best] = fixed.reduce<[Setting | undefined, number]>(
    (top, [setting, run]) => (run.perSecond > top[1] ? [setting, run.perSecond] : top),
    [undefined, 0],
  );
  return [...measured].map(([setting, run]) => {
    const { batch } = run;
    const failure = failureValue(batch);
    const auto = adaptive(setting);
    const { count, share } = refused(batch.stats, 503);
    return {
      figure: `${describeServer(scenario)} ${setting === 'default' ? 'none (auto up to 64)' : setting}`,
      value: failure ?? `${run.perSecond.toFixed(0)} /s`,
      floor: bestSetting === undefined ? '—' : `${best.toFixed(0)} /s (${bestSetting})`,
      ratio: failure || best === 0 ? undefined : run.perSecond / best,
      target: auto ? scenario.autoTarget.text : 'reference',
      met: auto ? !failure && best > 0 && scenario.autoTarget.met(run, best, fixedRuns) : undefined,
      notes: [
        `${formatCount(batch.stats.distinctDeleted)} of ${formatCount(scenario.ids)} ids deleted in ${formatSeconds(batch.ran.ms)} (spawn to exit` +
          `${run.runs > 1 ? `; the median of ${run.runs} runs, ${(runs.get(setting) ?? []).map((b) => formatSeconds(b.ran.ms)).join(', ')}` : ''}); ` +
          `mean queueing at the server ${batch.stats.meanQueueingMs.toFixed(1)} ms; at most ${batch.stats.peakInFlight} in flight ` +
          `(${batch.stats.peakInFlightAfterFirstSecond} after the first second); ${formatCount(batch.stats.total)} requests, ` +
          `${formatCount(count)} answered 503 (${formatPercent(share)}); HTTP versions ${Object.keys(batch.stats.byHttpVersion).join(', ') || 'none'}; ` +
          `the server used ${formatCpuShare(batch)} of one CPU`,
        ...(auto && run.runs > 1 && best > 0
          ? [`each run against the best: ${run.each.map((x) => `${(x / best).toFixed(2)}×`).join(', ')}`]
          : []),
        ...(auto ? [`in flight at the server, the most in each ${IN_FLIGHT_STEP_MS} ms: ${formatSteps(batch.stats.inFlightByStep)}`] : []),
        ...failureNote(batch),
      ],
    };
  });
}

export async function benchCapacity(options: Options): Promise<Row[]> {
  let names: ScenarioName[];
  try {
    names = selectedCapacityScenarios(process.env['BENCH_CAPACITY']);
  } catch (error) {
    return [failedRow('capacity batches', '—', error)];
  }
  const rows: Row[] = [];
  for (const name of names) {
    try {
      rows.push(...(await runScenario(name, options)));
    } catch (error) {
      rows.push(failedRow(`capacity: ${describeServer(SCENARIOS[name])}`, '—', error));
    }
  }
  return rows;
}

// Standalone: only these rows, against a snapshot of the built package.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = process.hrtime.bigint();
  const tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-bench-capacity-'));
  try {
    const pkg = process.env['BENCH_PACKAGE'] ? path.resolve(process.env['BENCH_PACKAGE']) : snapshotPackage(tmp);
    const rows = await benchCapacity({ runs: 1, warmups: 0, tmp, pkg });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(renderTable(`plantstore capacity bench: ${cpus().length} CPUs, package ${pkg}; ${seconds.toFixed(1)} s`, rows));
    if (rows.some((row) => row.value === 'error')) process.exitCode = 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
