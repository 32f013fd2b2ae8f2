// The soak's rows for the bench table (soak.ts runs it; soak-figures.ts computes the pace and
// the climb). Each bound is checked here, in the same run: a figure over its bound is marked
// OVER, as every other row is, and never changes the exit code.

import type { SoakResult, SoakRunRecord } from './soak.js';
import { againstReference, climbOf, inServiceOf, measuredServiceRatio, type Pace, paceOf, running } from './soak-figures.js';
import { formatMiB, formatRatio, type Row } from './table.js';

/** docs/reference.md: with no --concurrency, auto up to 64 in flight. */
export const DEFAULT_CEILING = 64;
const RSS_BOUND_KIB = 200 * 1024;
const PACE_BOUND = 0.8;
const MAX_REQUESTS_PER_ID = 2;

const n = (x: number): string => x.toLocaleString('en-US');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const round2 = (x: number): number => Math.round(x * 100) / 100;

function howEnded(run: SoakRunRecord): string {
  if (run.hung) return 'hung (killed by the harness)';
  return run.signal ? `ended by ${run.signal}` : `exit ${run.code}`;
}

const formatPercent = (share: number): string => `${(share * 100).toFixed(0)}%`;
const runningMs = (run: SoakRunRecord): number => running(run).reduce((sum, part) => sum + part.to - part.from, 0);

function describeRun(run: SoakRunRecord): string {
  const stopped = run.stopped.reduce((sum, stop) => sum + stop.to - stop.from, 0);
  const parts = [
    `run ${run.index + 1}: ${seconds(run.to - run.from)}${stopped ? ` (${seconds(stopped)} of it stopped by SIGSTOP)` : ''}`,
    `${n(run.deletedAfter - run.deletedBefore)} deleted (${n(run.deletedAfter)} in all)`,
    run.interruption
      ? `${run.interruption.signal} at ${n(run.interruption.atDeleted)} deleted, ${howEnded(run)} ${seconds(run.to - run.interruption.at)} later`
      : howEnded(run),
    `peak RSS ${formatMiB(run.peakKiB)}${run.rssExact ? '' : ' (VmHWM polled: a lower bound)'}`,
    ...(run.cpuMs === undefined ? [] : [`CPU ${seconds(run.cpuMs)} (${formatPercent(run.cpuMs / runningMs(run))} of its running time)`]),
    `journal ${(run.journalBytes / 1e6).toFixed(1)} MB after it`,
  ];
  const said = run.summary ? `; it said "${run.summary}"` : '';
  // The ✗ lines by kind (each plant's id taken out); any other line as it came.
  const kinds = run.failureKinds.map(([kind, count]) => `${n(count)} × "${kind}"`).join(', ');
  const stderr = run.stderrLines ? `; stderr: ${kinds || run.stderrSample.map((l) => `"${l}"`).join(', ')}` : '';
  return `${parts.join(', ')}${said}${stderr}`;
}

/** The pace a soak result had over its runs' running time, of min(capacity, the default ceiling). */
export const soakPace = (result: SoakResult): Pace =>
  paceOf(result.plan, result.stats.startedAt, result.runs, result.stats.deleted, DEFAULT_CEILING);

/** How full the run kept the server's slots, and how long the server took a request: where the nominal pace went. */
function slots(result: SoakResult): string {
  const { plan, stats, runs } = result;
  const inService = inServiceOf(plan, stats.startedAt, stats.servingByStep, runs, DEFAULT_CEILING);
  const low = Math.min(...plan.capacities);
  return (
    `in service at the server ${formatPercent(inService.atCeiling)} of ${DEFAULT_CEILING} where capacity ≥ ${DEFAULT_CEILING}, ` +
    `${formatPercent(inService.belowCeiling)} of ${low} where below (time-weighted, start-ups included), ` +
    `a ${plan.baseLatencyMs} ms request served in ${stats.meanServiceMs.toFixed(1)} ms (its timer's lateness included)`
  );
}

/**
 * The pace row. Judged against the reference run when there is one (the same plan with a fixed
 * --concurrency 64 in the same bench run: what a client at the default ceiling got here), else
 * against min(capacity, 64) / base latency, which at 20 ms a client at the ceiling reaches and at
 * 10 ms none does on a 2-core machine (the server's timer and both processes' HTTP work). Both
 * figures are in the notes either way.
 */
function paceRow(label: string, result: SoakResult, reference: SoakResult | undefined): Row {
  const { config, runs, stats, plan } = result;
  const pace = soakPace(result);
  const withStops = paceOf(
    plan,
    stats.startedAt,
    runs.map((run) => ({ ...run, stopped: [] })),
    stats.deleted,
    DEFAULT_CEILING,
  );
  // The runs up to the one that deleted the last plant: what a finishing soak would have been.
  const lastDeleting = runs.findIndex((run) => run.deletedAfter === config.ids);
  const untilDone =
    lastDeleting < 0 ? undefined : paceOf(plan, stats.startedAt, runs.slice(0, lastDeleting + 1), stats.deleted, DEFAULT_CEILING);
  const nominal =
    `against min(capacity, ${DEFAULT_CEILING}) / base latency over the cycle (${(pace.servablePerSecond * pace.ceilingShare).toFixed(0)} /s): ${formatRatio(pace.ceilingRatio)}; ` +
    `at the server's measured service time: ${formatRatio(measuredServiceRatio(pace, plan.baseLatencyMs, stats.meanServiceMs))}; ${slots(result)}; ` +
    `against capacity / base latency itself (${pace.servablePerSecond.toFixed(0)} /s): ${formatRatio(pace.ratio)}, of at most ${formatRatio(pace.ceilingShare)} at the default ceiling; ` +
    `with the stopped time counted as alive: ${formatRatio(withStops.ceilingRatio)}; ` +
    `${untilDone && lastDeleting < runs.length - 1 ? `over runs 1-${lastDeleting + 1} alone (until the last plant was deleted): ${formatRatio(untilDone.ceilingRatio)}; ` : ''}` +
    `mean queueing at the server ${stats.meanQueueingMs.toFixed(1)} ms; the server used ${seconds(stats.cpuMs)} of CPU`;
  const clientOf = (of: SoakResult): string => (of.config.concurrency ? `--concurrency ${of.config.concurrency}` : 'the default (auto)');
  const measured = `plants deleted per second of the runs' running time (${seconds(pace.runningMs)}: spawn to exit, stopped time out), ${clientOf(result)}`;
  if (!reference) {
    return {
      figure: `${label}: pace while a run was alive, of min(capacity, ${DEFAULT_CEILING}) / latency`,
      value: `${pace.perSecond.toFixed(0)} /s`,
      floor: `${(pace.servablePerSecond * pace.ceilingShare).toFixed(0)} /s`,
      ratio: pace.ceilingRatio,
      target: `≥ ${PACE_BOUND.toFixed(2)}×`,
      met: round2(pace.ceilingRatio) >= PACE_BOUND,
      notes: [`${measured}; ${nominal}`],
    };
  }
  const refPace = soakPace(reference);
  const against = againstReference(pace, refPace);
  // A reference that did not finish the same work is no measure of what the ceiling gets.
  const refDone = reference.runs.at(-1)?.code === 0 && reference.stats.deleted === reference.config.ids;
  return {
    figure: `${label}: pace while a run was alive, of a --concurrency ${DEFAULT_CEILING} run's through the same soak`,
    value: `${pace.perSecond.toFixed(0)} /s`,
    floor: `${against.floorPerSecond.toFixed(0)} /s`,
    ratio: against.ratio,
    target: `≥ ${PACE_BOUND.toFixed(2)}×`,
    met: refDone && round2(against.ratio) >= PACE_BOUND,
    notes: [
      `${measured}; each run's share of min(capacity, ${DEFAULT_CEILING}) / base latency over its own running time, against the reference's: ` +
        `${formatRatio(pace.ceilingRatio)} / ${formatRatio(refPace.ceilingRatio)}; the floor column is the reference's share of this run's servable`,
      `the reference, just before it (the same seed, interruptions and suspend at the same numbers deleted, ${clientOf(reference)}): ` +
        `${reference.runs.length} runs, ${n(reference.stats.deleted)} deleted, ${reference.runs.at(-1) ? howEnded(reference.runs.at(-1) as SoakRunRecord) : 'no run'}, ` +
        `${refPace.perSecond.toFixed(0)} /s over ${seconds(refPace.runningMs)}, ${formatRatio(refPace.ceilingRatio)} of min(capacity, ${DEFAULT_CEILING}) / latency; ` +
        `${slots(reference)}, mean queueing ${reference.stats.meanQueueingMs.toFixed(1)} ms` +
        `${refDone ? '' : '; it did not finish, so it judges nothing'}`,
      `this run: ${nominal}`,
    ],
  };
}

export function soakRows(result: SoakResult, reference?: SoakResult): Row[] {
  const { config, runs, stats, plan } = result;
  const label = `soak: ${n(config.ids)} ids at ${config.baseLatencyMs} ms, ${config.interruptions} interruptions + ${result.schedule.suspendAtDeleted === undefined ? 'no' : 'a'} suspend`;
  const last = runs.at(-1);
  const finished = last?.code === 0;
  const target = config.interruptions + 1;
  const deletedOnce = stats.deleted === config.ids && stats.notDeletedCount === 0;
  const withinTwo = stats.maxRequestsPerId <= MAX_REQUESTS_PER_ID;
  const peak = Math.max(0, ...runs.map((run) => run.peakKiB));
  const [zero, one, two, more] = stats.requestsPerId;
  const climbs = runs.map((run) => ({ run, climb: climbOf(plan, stats.startedAt, stats, run, DEFAULT_CEILING) }));
  const restarts = climbs.flatMap(({ run, climb }) => (run.index > 0 && climb.firstThree !== undefined ? [climb.firstThree] : []));
  const medianOf = (xs: number[]): number => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted.length === 0 ? Number.NaN : ((sorted[(sorted.length - 1) >> 1] ?? 0) + (sorted[sorted.length >> 1] ?? 0)) / 2;
  };
  return [
    {
      figure: `${label}: runs of the README's journal command`,
      value: finished ? `${runs.length}` : `not done in ${runs.length}`,
      floor: '—',
      target: `${target} (interruptions + 1)`,
      met: finished && runs.length <= target,
      notes: [
        `capacity ${config.capacities.join(' → ')} in flight, ${plan.phaseMs / 1000} s each, ${plan.baseLatencyMs} ms per request, the rest queued; ` +
          `tokens from a token command, ${n(result.tokensIssued)} issued, each for 20 s; "no such plant" as ${plan.missing === '404' ? 'a 404 Error object' : 'a 400 with code 1 (PLANTSTORE_MISSING_ERROR=1)'}; seed ${config.seed}`,
        ...runs.map(describeRun),
        `the journal at the end: ${n(result.journal.lines)} lines, ${n(result.journal.notSent)} of them for ids not sent ("attempted":false)`,
      ],
    },
    {
      figure: `${label}: plants deleted on the server, requests per id`,
      value: `${n(stats.deleted)}, ≤ ${stats.maxRequestsPerId}`,
      floor: '—',
      target: `all ${n(config.ids)} once, ≤ ${MAX_REQUESTS_PER_ID}`,
      met: deletedOnce && withinTwo,
      notes: [
        `ids sent 0, 1, 2, 3+ times (authorized requests): ${n(zero)}, ${n(one)}, ${n(two)}, ${n(more)}` +
          `${stats.overTwice.length ? `; sent more than twice: ${stats.overTwice.join(', ')}` : ''}` +
          `${stats.notDeletedCount ? `; never deleted: ${n(stats.notDeletedCount)} (${stats.notDeleted.join(', ')}…)` : ''}; ` +
          `${n(stats.requests)} requests in all, ${n(stats.expired)} refused for an expired token (401), ${n(stats.forged)} for an unknown one; ` +
          `statuses ${Object.entries(stats.byStatus)
            .map(([status, count]) => `${status}: ${n(count)}`)
            .join(', ')}; ${n(stats.connections)} connections`,
      ],
    },
    {
      figure: `${label}: peak RSS, largest run`,
      value: formatMiB(peak),
      floor: '—',
      target: '< 200 MB',
      met: runs.length > 0 && peak < RSS_BOUND_KIB,
      notes: [`each run: ${runs.map((run) => `${formatMiB(run.peakKiB)} (${howEnded(run)})`).join(', ')}`],
    },
    paceRow(label, result, reference),
    {
      figure: `${label}: exit code of the last run`,
      value: last ? howEnded(last) : 'no run',
      floor: '—',
      target: 'exit 0',
      met: finished,
    },
    {
      figure: `${label}: each restart's first 3 s sending, of min(capacity, ${DEFAULT_CEILING})`,
      value: restarts.length ? formatRatio(medianOf(restarts)) : '—',
      floor: climbs[0]?.climb.firstThree === undefined ? '—' : formatRatio(climbs[0].climb.firstThree),
      target: 'n/a (informational)',
      notes: [
        `the median over the restarts that deleted anything; the floor column is the first run's. Per run: from spawn to its first ` +
          `deletion; from there, deleted / servable at min(capacity, ${DEFAULT_CEILING}) over 1 s and 3 s, when a 500 ms window first ` +
          `reached 0.8 of it, in flight at the server 0.5, 1 and 2 s in, and the share after 5 s: ` +
          climbs
            .map(({ run, climb }) =>
              climb.msToFirstDelete === undefined
                ? `run ${run.index + 1}: deleted nothing`
                : `run ${run.index + 1}: ${seconds(climb.msToFirstDelete)}; ${formatRatio(climb.firstSecond)}, ${formatRatio(climb.firstThree)}, ` +
                  `${climb.msTo80 === undefined ? '0.8 never' : `0.8 at ${seconds(climb.msTo80)}`}, ` +
                  `${(climb.inFlightAfter ?? []).join('/')} in flight, ${climb.after5 === undefined ? '—' : formatRatio(climb.after5)}`,
            )
            .join('; '),
      ],
    },
  ];
}
