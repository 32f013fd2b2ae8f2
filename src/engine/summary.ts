// The lines a batch ends with, and the --verbose lines for each change of pace: said once,
// never per request.

import type { ThrottleChange, ThrottleStats } from '../batch/throttle/throttle.js';
import { LOAD_REFUSAL_STATUSES } from '../http/classify.js';
import { formatRunSeconds } from '../ui/duration.js';
import type { Tally } from './tally.js';

/**
 * `998 deleted, 1 already absent, 1 failed, 0 not sent in 0.4s`: each state the operation
 * declares, in its words (operation.ts ResultStates), and no other; with --journal, the skipped
 * ids too; with --concurrency auto, the limit the run settled at, when it sent anything.
 */
export function summaryLine<R>(
  tally: Tally<R>,
  elapsedMs: number,
  throttled: ThrottleStats,
  journal = false,
  /** The most requests the run could have in flight: a limit settled there is said to be the ceiling. */
  ceiling?: number,
  /** The run's --shard, as `1/4`: the ids it left to other shards are counted. */
  shard?: string,
): string {
  const { states } = tally;
  const parts = [`${tally.done} ${states.done.word}`];
  if (journal) parts.push(`${tally.skipped} ${states.skipped.word}`);
  const { absent } = states;
  if (absent !== undefined) {
    const uncertain =
      tally.absentAfterUncertain > 0 && absent.afterUncertain !== undefined
        ? ` (${absent.afterUncertain(tally.absentAfterUncertain)})`
        : '';
    parts.push(`${tally.absent} ${absent.word}${uncertain}`);
  }
  parts.push(`${tally.failed} ${states.failed.word}`);
  // The journal's word and count (journal status: "in flight"): sent, no decided answer. Said when there are any.
  const inFlight = states['in-flight'];
  if (inFlight !== undefined && tally.inFlight > 0) parts.push(`${tally.inFlight} ${inFlight.word} (${inFlight.note})`);
  parts.push(`${tally.notSent} ${states['not-sent'].word}`);
  if (shard !== undefined) parts.push(otherShards(tally, shard));
  // A run that sent nothing (no token, or every id done already) found no pace to settle at.
  const sent = tally.done + tally.absent + tally.failed + tally.inFlight > 0;
  const atCeiling = throttled.settledConcurrency === ceiling ? ' (the ceiling)' : '';
  const settled =
    throttled.settledConcurrency === undefined || !sent ? '' : `; concurrency settled at ${throttled.settledConcurrency}${atCeiling}`;
  return `${parts.join(', ')} in ${formatRunSeconds(elapsedMs)}${throttleNote(throttled)}${settled}`;
}

/** `9 left to other shards (shard 1/4)`: ids of the input this run never had, said so a narrowed job is not read as whole. */
function otherShards<R>(tally: Tally<R>, shard: string): string {
  return `${tally.otherShards} left to other shards (shard ${shard})`;
}

/** Why a run went slower than it could have: once in the summary, never per request. */
function throttleNote(stats: ThrottleStats): string {
  const parts: string[] = [];
  if (stats.refusals > 0)
    parts.push(`the server refused ${stats.refusals} request${stats.refusals === 1 ? '' : 's'} (${LOAD_REFUSAL_STATUSES.join('/')})`);
  // A failure or two is not worth a word (each failing id says it); an outage the run waited out is.
  if (stats.outages > 0)
    parts.push(
      `the service was down ${stats.outages === 1 ? 'once' : `${stats.outages} times`} (502/503/504, failed connections or answers not from the API, for request after request)`,
    );
  if (parts.length === 0) return '';
  parts.push(...paceAtEnd(stats));
  // With auto, the limit is named once, as where the run settled.
  if (stats.concurrencyCuts > 0 && stats.settledConcurrency === undefined) parts.push(`${stats.concurrencyLimit} in flight`);
  if (stats.pauses > 0)
    parts.push(`paused ${stats.pauses} time${stats.pauses === 1 ? '' : 's'}, ${formatRunSeconds(stats.pausedMs)} in all`);
  return `; throttled: ${parts.join(', ')}`;
}

/**
 * The pace, in words true at the end of the run: what the server took once it pushed back, as
 * measured (the throttle's cap is no rate anyone saw: grown back past the server's ~200/s, it read
 * ~243/s), and "full speed again" only for a run that did come back to it, with an answer to show,
 * not one whose cap ran out while the service stayed down.
 */
function paceAtEnd(stats: ThrottleStats): string[] {
  const words: string[] = [];
  if (stats.servedPerSecond !== undefined) words.push(`the server took ~${Math.round(stats.servedPerSecond)}/s after its first refusal`);
  if (stats.downAtEnd) words.push('still down at the end');
  else if (stats.rateCuts > 0 && stats.ratePerSecond === undefined && stats.recovered) words.push('sending at full speed again');
  return words;
}

/** A --verbose line for each change of pace. */
export function describeChange(change: ThrottleChange): string {
  switch (change.kind) {
    case 'slowed':
      return `throttled: the server refused a request (${change.status}); sending at ~${Math.round(change.ratePerSecond)}/s`;
    case 'concurrency':
      return `throttled: the server is overloaded (${change.status}); at most ${change.limit} request${change.limit === 1 ? '' : 's'} in flight`;
    case 'paused':
      return change.reason === 'retry-after'
        ? `throttled: the server asked to wait ${formatRunSeconds(change.forMs)}; nothing is sent until then`
        : change.reason === 'failing'
          ? `throttled: the service is failing for request after request (502/503/504, failed connections or answers not from the API); one probe every ${formatRunSeconds(change.forMs)} until it answers`
          : `throttled: the server keeps refusing although we slowed down; nothing is sent for ${formatRunSeconds(change.forMs)}`;
    case 'limit':
      return `concurrency ${change.from} → ${change.to}: ${change.reason}`;
    case 'service-back':
      return `the service answers again after ${formatRunSeconds(change.afterMs)} of failing; sending slowly, then faster`;
    case 'recovered':
      return 'no longer throttled: sending at full speed';
    case 'gave-up':
      return `giving up: ${change.reason}`;
  }
}
