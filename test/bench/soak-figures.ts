// The soak's figures (soak.ts), from what the server recorded and when each run was alive:
// pure functions of the records, so that they can be checked apart from a three-minute run.
import { capacityAt, type SoakPlan, STEP_MS, servable } from './soak-server.js';

export type CapacityPlan = Pick<SoakPlan, 'capacities' | 'phaseMs' | 'baseLatencyMs'>;

/** A span a run was alive: spawn to exit, with the time it was stopped (SIGSTOP to SIGCONT) taken out. */
export interface AliveSpan {
  from: number;
  to: number;
  /** Spans inside [from, to) when the process was stopped. */
  stopped: ReadonlyArray<{ from: number; to: number }>;
}

/** The parts of a span when the process could run. */
export function running(span: AliveSpan): Array<{ from: number; to: number }> {
  const parts: Array<{ from: number; to: number }> = [];
  let t = span.from;
  for (const stop of [...span.stopped].sort((a, b) => a.from - b.from)) {
    if (stop.from > t) parts.push({ from: t, to: Math.min(stop.from, span.to) });
    t = Math.max(t, stop.to);
  }
  if (span.to > t) parts.push({ from: t, to: span.to });
  return parts;
}

export interface Pace {
  /** Plants deleted per second of running time. */
  perSecond: number;
  /** What the server could have answered per second over the same time (capacity / base latency). */
  servablePerSecond: number;
  ratio: number;
  /** The same against min(capacity, ceiling): what a client held to `ceiling` in flight could have had. */
  ceilingRatio: number;
  /** The best ratio a client held to `ceiling` in flight can reach here: servable at min(capacity, ceiling) / servable. */
  ceilingShare: number;
  runningMs: number;
}

/** `deleted` plants over the spans' running time, against what the server could have served then. */
export function paceOf(plan: CapacityPlan, startedAt: number, spans: readonly AliveSpan[], deleted: number, ceiling: number): Pace {
  const parts = spans.flatMap(running);
  const runningMs = parts.reduce((sum, part) => sum + part.to - part.from, 0);
  const could = parts.reduce((sum, part) => sum + servable(plan, startedAt, part.from, part.to), 0);
  const couldCapped = parts.reduce((sum, part) => sum + servable(plan, startedAt, part.from, part.to, ceiling), 0);
  return {
    perSecond: runningMs === 0 ? 0 : (deleted / runningMs) * 1000,
    servablePerSecond: runningMs === 0 ? 0 : (could / runningMs) * 1000,
    ratio: could === 0 ? 0 : deleted / could,
    ceilingRatio: couldCapped === 0 ? 0 : deleted / couldCapped,
    ceilingShare: could === 0 ? 0 : couldCapped / could,
    runningMs,
  };
}

/**
 * A run's pace against a reference run's (issue 41): the fixed `--concurrency 64` client through
 * the same soak plan in the same bench run, "a run at the default ceiling" as this machine serves it.
 * The two runs meet the capacity cycle at different moments (a run that spent more of its time in
 * the 16 phase deletes fewer per second for no fault of its own), so each is first taken as its
 * share of what min(capacity, ceiling) / base latency allowed over its own running time
 * (Pace.ceilingRatio), and the shares are compared. `floorPerSecond` is the reference's share
 * applied to this run's own servable: what the reference client would have deleted per second here.
 */
export interface AgainstReference {
  ratio: number;
  floorPerSecond: number;
}

export function againstReference(pace: Pace, reference: Pace): AgainstReference {
  const servableAtCeiling = pace.servablePerSecond * pace.ceilingShare;
  return {
    ratio: reference.ceilingRatio === 0 ? 0 : pace.ceilingRatio / reference.ceilingRatio,
    floorPerSecond: servableAtCeiling * reference.ceilingRatio,
  };
}

/**
 * What the server could have served at its measured service time rather than its nominal one:
 * a pace's share of the ceiling's servable scaled by the time a request really took
 * (`meanServiceMs`, its timer's lateness included) over the base latency.
 */
export function measuredServiceRatio(pace: Pace, baseLatencyMs: number, meanServiceMs: number): number {
  return meanServiceMs <= 0 ? 0 : (pace.ceilingRatio * meanServiceMs) / baseLatencyMs;
}

export interface InService {
  /** Mean requests in service at the server over the running steps where capacity ≥ ceiling, of the ceiling. */
  atCeiling: number;
  /** The same where capacity < ceiling, of the capacity. */
  belowCeiling: number;
}

/**
 * How full a client kept the server's slots while it ran (from the server's time-weighted
 * `servingByStep`, over the 100 ms steps wholly inside a running part): by Little's law a pace is
 * this share times base latency / measured service time, so the two say where the nominal went,
 * to slots left empty between an answer and the next request, or to the server's slower timer.
 */
export function inServiceOf(
  plan: CapacityPlan,
  startedAt: number,
  servingByStep: readonly number[],
  spans: readonly AliveSpan[],
  ceiling: number,
): InService {
  const sums = { at: [0, 0], below: [0, 0] };
  for (const part of spans.flatMap(running)) {
    for (let step = Math.ceil((part.from - startedAt) / STEP_MS); startedAt + (step + 1) * STEP_MS <= part.to; step++) {
      const capacity = capacityAt(plan, startedAt, startedAt + step * STEP_MS);
      const sum = capacity >= ceiling ? sums.at : sums.below;
      sum[0] = (sum[0] ?? 0) + (servingByStep[step] ?? 0);
      sum[1] = (sum[1] ?? 0) + Math.min(capacity, ceiling);
    }
  }
  const share = ([serving, could]: number[]): number => (could ? (serving ?? 0) / could : 0);
  return { atCeiling: share(sums.at), belowCeiling: share(sums.below) };
}

/** Plants deleted in [from, to), from the server's per-step counts (whole steps whose start lies in it). */
export function deletedIn(deletesByStep: readonly number[], startedAt: number, from: number, to: number): number {
  let sum = 0;
  const first = Math.max(0, Math.ceil((from - startedAt) / STEP_MS));
  for (let step = first; startedAt + step * STEP_MS < to && step < deletesByStep.length; step++) sum += deletesByStep[step] ?? 0;
  return sum;
}

export interface Climb {
  /** From spawn to the first 100 ms step with a plant deleted (start-up, reading the ids and the journal). */
  msToFirstDelete: number | undefined;
  /**
   * From that first deletion on: deleted / servable at min(capacity, ceiling) over its first 1 s and
   * 3 s, and after its first 5 s (running time only); undefined when the run deleted nothing.
   */
  firstSecond: number | undefined;
  firstThree: number | undefined;
  after5: number | undefined;
  /** From the first deletion until a 500 ms window first deleted ≥ 0.8 of what the ceiling allowed in it; undefined if never. */
  msTo80: number | undefined;
  /** The most requests in flight at the server in the 100 ms steps 0.5 s, 1 s and 2 s after the first deletion. */
  inFlightAfter: [number, number, number] | undefined;
}

/**
 * How a run climbed once it sent: the share of what a client held to `ceiling` in flight could
 * have deleted, from its first deletion on, early and once settled; and how long it took to get
 * there (start-up, and a re-run's reading of its journal).
 */
export function climbOf(
  plan: CapacityPlan,
  startedAt: number,
  steps: { deletesByStep: readonly number[]; inFlightByStep: readonly number[] },
  span: AliveSpan,
  ceiling: number,
): Climb {
  const { deletesByStep, inFlightByStep } = steps;
  const share = (parts: ReadonlyArray<{ from: number; to: number }>): number => {
    const could = parts.reduce((sum, part) => sum + servable(plan, startedAt, part.from, part.to, ceiling), 0);
    const did = parts.reduce((sum, part) => sum + deletedIn(deletesByStep, startedAt, part.from, part.to), 0);
    return could === 0 ? 0 : did / could;
  };
  const end = span.to;
  const firstStep = Math.max(0, Math.ceil((span.from - startedAt) / STEP_MS));
  let first: number | undefined;
  for (let step = firstStep; startedAt + step * STEP_MS < end && step < deletesByStep.length; step++) {
    if ((deletesByStep[step] ?? 0) > 0) {
      first = step;
      break;
    }
  }
  if (first === undefined)
    return {
      msToFirstDelete: undefined,
      firstSecond: undefined,
      firstThree: undefined,
      after5: undefined,
      msTo80: undefined,
      inFlightAfter: undefined,
    };
  const t0 = startedAt + first * STEP_MS;
  const within = (from: number, to: number): number => share(running({ ...span, from, to: Math.min(end, to) }));
  let msTo80: number | undefined;
  for (let t = t0; t + 500 <= end; t += STEP_MS) {
    if (within(t, t + 500) >= 0.8) {
      msTo80 = t + 500 - t0;
      break;
    }
  }
  const inFlightAt = (ms: number): number => inFlightByStep[first + ms / STEP_MS] ?? 0;
  return {
    msToFirstDelete: Math.max(0, t0 - span.from),
    firstSecond: within(t0, t0 + 1000),
    firstThree: within(t0, t0 + 3000),
    after5: end - t0 > 6000 ? within(t0 + 5000, end) : undefined,
    msTo80,
    inFlightAfter: [inFlightAt(500), inFlightAt(1000), inFlightAt(2000)],
  };
}
