// Why a run is slow, in a few words for the progress line and the --progress line: the throttle
// says what cut the pace as data (batch/throttle/slowdown.ts), and only this says it in words.
// Said only while the pace is cut, and only for what the answers of the last seconds showed, so a
// cause that has passed is not named; an outage has its own words (`service down for 0:45`).

import { formatSeconds } from './duration.js';

/** What the throttle knows of a cut pace (its PaceState, read here by shape: the UI imports nothing of the batch). */
export interface SlowPace {
  /** The pace is cut now (a capped rate, a cut limit, a pause, an outage). */
  cut: boolean;
  /** Answers of the last seconds, and of them those refused or failing, by kind. */
  answers: number;
  overloaded: number;
  overloadedStatus: number | undefined;
  rateLimited: number;
  rateLimitedStatus: number | undefined;
  failing: number;
  /** The latest Retry-After those refusals asked for. */
  retryAfterMs: number | undefined;
  /** Cuts of the latency-based limit for a queue at the server, of late. */
  latencyCuts: number;
  pause: { leftMs: number; reason: 'retry-after' | 'refusing' | 'failing' } | undefined;
  downForMs: number | undefined;
}

/** What cut the pace, as kinds: a line outside a terminal is written when they change (progress.ts). */
export type SlowCause = 'overloaded' | 'rate-limited' | 'failing' | 'paused' | 'latency';

export function slowCauses(pace: SlowPace | undefined): SlowCause[] {
  if (pace === undefined || !pace.cut || pace.downForMs !== undefined) return [];
  const causes: SlowCause[] = [];
  if (pace.overloaded > 0) causes.push('overloaded');
  if (pace.rateLimited > 0) causes.push('rate-limited');
  if (pace.failing > 0) causes.push('failing');
  // A long Retry-After that pauses the whole run; the second-long pauses of refusals that go on are
  // the refusals' own business, already named by their share.
  if (pace.pause?.reason === 'retry-after') causes.push('paused');
  if (pace.latencyCuts > 0) causes.push('latency');
  return causes;
}

/**
 * `503 on 30% of requests (Retry-After 1s)`, `429 on 12% of requests`, `latency rising`,
 * `paused for Retry-After, 25s left`; undefined when the pace is not cut, or nothing of late says why.
 */
export function whySlow(pace: SlowPace | undefined): string | undefined {
  const causes = slowCauses(pace);
  if (pace === undefined || causes.length === 0) return undefined;
  const share = (count: number): string => {
    const percent = Math.round((count * 100) / Math.max(1, pace.answers));
    return percent === 0 ? '<1%' : `${percent}%`;
  };
  const shares: string[] = [];
  if (causes.includes('overloaded')) shares.push(`${pace.overloadedStatus ?? 503} on ${share(pace.overloaded)}`);
  if (causes.includes('rate-limited')) shares.push(`${pace.rateLimitedStatus ?? 429} on ${share(pace.rateLimited)}`);
  if (causes.includes('failing')) shares.push(`502/504 or no connection on ${share(pace.failing)}`);
  const words: string[] = [];
  if (shares.length > 0) {
    const asked = pace.retryAfterMs === undefined ? '' : ` (Retry-After ${formatSeconds(pace.retryAfterMs)})`;
    words.push(`${shares.join(' and ')} of requests${asked}`);
  }
  const pause = pace.pause;
  if (pause !== undefined && causes.includes('paused')) {
    const left = `${formatSeconds(Math.ceil(pause.leftMs / 1000) * 1000)} left`;
    words.push(`paused for Retry-After, ${left}`);
  }
  if (causes.includes('latency')) words.push('latency rising');
  return words.join('; ');
}
