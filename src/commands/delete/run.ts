import { runOrdered } from '../../batch/ordered-pool.js';
import { NO_PROGRESS, startProgress } from '../../batch/progress.js';
import { describeRate, type Rate } from '../../batch/rate-limit.js';
import { type DeleteResult, isFailure, notAttempted, Tally } from '../../batch/result.js';
import { Throttle, type ThrottleChange, type ThrottleStats } from '../../batch/throttle/throttle.js';
import { plantUrl } from '../../config/base-url.js';
import { readCaBundle } from '../../config/ca-bundle.js';
import { resolveTarget, type Target } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';
import { CACERT, JSON_OUTPUT, MAX_RETRY_WAIT, QUIET, RETRIES, TIMEOUT, VERBOSE } from '../../flags/global.js';
import { LOAD_REFUSAL_STATUSES } from '../../http/classify.js';
import type { NetworkOptions } from '../../http/client.js';
import type { IdList } from '../../ids/list.js';
import { parsePlantIds } from '../../ids/parse.js';
import { readIdsFromStream } from '../../ids/stdin.js';
import { createReporter, type OutputMode } from '../../ui/report.js';
import { CONCURRENCY, type DeleteFlags, DRY_RUN, FAIL_FAST, IGNORE_MISSING, MISSING_ERROR, RATE, STDIN } from './flags.js';
import { describeAttempt, explainOutcome, whyNotSent } from './outcomes.js';

export interface DeleteOptions {
  /** The ids as given on the command line; `-` alone reads stdin, as --stdin does. */
  ids: string[];
  flags: DeleteFlags;
}
// A server that refuses every request for this many --max-retry-wait (but at least
// a second) is not coming back soon: the run stops trying, and ends with exit 6.
const STALL_RETRY_WAITS = 4;
const MIN_STALL_MS = 1000;

/** Deletes each plant; results come out in input order; the exit code is that of the first failing id. */
export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<ExitCode> {
  const { flags } = opts;
  const concurrency = flags.value(CONCURRENCY);
  const rate = flags.value(RATE);
  // Every id is checked before anything is sent: a typo in the fifth id deletes nothing.
  const ids = await readIds(opts, ctx);
  const target = await resolveTarget(flags, ctx.env, ctx.config, ctx.io.redact, ctx.signal);
  const network = await networkOptions(flags, ctx.signal);
  const missingCodes = flags.value(MISSING_ERROR) ?? [];
  const output: OutputMode = { json: flags.value(JSON_OUTPUT), quiet: flags.value(QUIET) };
  if (flags.value(DRY_RUN)) return printDryRun(ids, target, rate, output, ctx);
  const verbose = flags.value(VERBOSE);
  const failFast = flags.value(FAIL_FAST);

  const started = Date.now();
  const reporter = createReporter(ctx.io, output);
  const tally = new Tally();
  // A line per id on the screen is progress enough; the counter is for when stdout goes elsewhere.
  const linesOnScreen = ctx.io.stdoutIsTTY && (output.json || !output.quiet);
  const progress = linesOnScreen ? NO_PROGRESS : startProgress(ctx.io, ids.size, () => tally.total);
  // One throttle for the whole run: a refusal for load is about the server, not about one id.
  const throttle = new Throttle({
    ceiling: concurrency,
    ...(rate ? { rate } : {}),
    maxPauseMs: network.maxRetryWaitMs,
    stallMs: Math.max(MIN_STALL_MS, STALL_RETRY_WAITS * network.maxRetryWaitMs),
    ...(verbose ? { onChange: (change: ThrottleChange) => ctx.io.err(`* ${describeChange(change)}`) } : {}),
  });
  const api = await ctx.api({
    target,
    network: { ...network, connections: concurrency },
    verbose,
    gate: throttle,
    describe: describeAttempt,
  });
  const missing = { codes: missingCodes, ignore: flags.value(IGNORE_MISSING) };
  const deleteOne = (id: string) => api.deletePlant(id, ctx.signal).then((outcome) => explainOutcome(outcome, missing));
  let stopReason: { message: string; exit: ExitCode } | undefined;
  try {
    await runOrdered<string, DeleteResult>({
      items: ids,
      // No concurrency here: the throttle bounds the requests in flight (at most --concurrency)
      // through hold; the pool only bounds the results held for ordering (its window), so an
      // id waiting out a Retry-After or one slow answer holds back nothing but its own line.
      signal: ctx.signal,
      hold(resume) {
        // A reader slower than the deletions (`| less`) holds new starts back instead of growing the queue.
        const backlog = ctx.io.backlog();
        if (backlog === undefined) return throttle.hold(resume);
        void backlog.then(resume);
        return true;
      },
      run: deleteOne,
      emit(result) {
        // Only a failure line shares stderr with the counter: clearing on every result would hide it.
        if (isFailure(result)) progress.clear();
        tally.add(result);
        reporter.result(result);
      },
      shouldStop(result) {
        const gaveUp = throttle.gaveUp();
        if (gaveUp !== undefined) stopReason ??= whyNotSent({ kind: 'gave-up', reason: gaveUp });
        if (failFast && isFailure(result)) {
          stopReason ??= { message: `not sent: --fail-fast stopped after plant ${result.id} failed`, exit: result.exit };
        }
        return stopReason !== undefined;
      },
      notStarted(id) {
        const why = ctx.signal.aborted ? whyNotSent({ kind: 'interrupted' }) : stopReason;
        return notAttempted(id, why?.message ?? 'not sent', why?.exit ?? Exit.internal);
      },
    });
  } finally {
    throttle.close();
    progress.stop();
    reporter.finish();
    await api.close();
  }
  if (ids.size > 1 && !(output.quiet && tally.firstFailure === undefined)) {
    ctx.io.err(summaryLine(tally, Date.now() - started, throttle.stats()));
  }
  if (ctx.signal.aborted) {
    ctx.io.err(`interrupted: ${tally.deleted} of ${ids.size} deleted before the interrupt; the rest were not, or may not have been`);
    return Exit.interrupted;
  }
  return tally.firstFailure ?? Exit.ok;
}

/** Everything that shapes how requests travel: deadline, retries, trust. */
async function networkOptions(flags: DeleteFlags, signal: AbortSignal): Promise<NetworkOptions> {
  const network: NetworkOptions = {
    timeoutMs: flags.value(TIMEOUT),
    retries: flags.value(RETRIES),
    maxRetryWaitMs: flags.value(MAX_RETRY_WAIT),
  };
  const caFile = flags.sourced(CACERT);
  return caFile === undefined ? network : { ...network, caPem: await readCaBundle(caFile.value, caFile.source, signal) };
}

async function readIds(opts: DeleteOptions, ctx: Context): Promise<IdList> {
  const dash = opts.ids.length === 1 && opts.ids[0] === '-';
  if (opts.flags.value(STDIN) || dash) {
    if (opts.ids.length > 0 && !dash) throw new UsageError('give ids as arguments or with --stdin, not both');
    if (ctx.stdin.isDirectory?.()) {
      throw new UsageError(
        'standard input is a directory, not a list of plant ids: redirect a file, as in plantstore delete --stdin < ids.txt',
      );
    }
    if (ctx.io.stdinIsTTY) ctx.io.err('Reading plant ids from standard input; end with Ctrl-D.');
    return readIdsFromStream(ctx.stdin, ctx.signal);
  }
  if (opts.ids.length === 0) throw new UsageError('no plant id given: try plantstore delete 42, or pipe ids to plantstore delete --stdin');
  return parsePlantIds(opts.ids);
}

/** What would be sent, exactly, with the token masked. */
async function printDryRun(ids: IdList, target: Target, rate: Rate | undefined, output: OutputMode, ctx: Context): Promise<ExitCode> {
  let written = 0;
  for (const id of ids) {
    // A million lines into a slow reader: wait for it now and then instead of queuing them all.
    if (++written % 512 === 0) await ctx.io.backlog();
    const url = plantUrl(target.baseUrl, id);
    if (output.json) ctx.io.outJson(`{"id":${id},"dryRun":true,"method":"DELETE","url":${JSON.stringify(ctx.io.mask(url))}}`);
    else ctx.io.out(`DELETE ${url}  (Authorization: Bearer ***)`);
  }
  const pace = rate ? `; at most ${describeRate(rate)}` : '';
  ctx.io.err(`dry run: ${ids.size} request${ids.size === 1 ? '' : 's'} not sent (profile '${target.profile}'${pace})`);
  return Exit.ok;
}

function summaryLine(tally: Tally, elapsedMs: number, throttled: ThrottleStats): string {
  const counts = `${tally.deleted} deleted, ${tally.absent} already absent, ${tally.failed} failed, ${tally.notAttempted} not attempted`;
  return `${counts} in ${seconds(elapsedMs)}${throttleNote(throttled)}`;
}

/** Why a run went slower than it could have: once in the summary, never per request. */
function throttleNote(stats: ThrottleStats): string {
  if (stats.refusals === 0) return '';
  const parts = [
    `throttled: the server refused ${stats.refusals} request${stats.refusals === 1 ? '' : 's'} (${LOAD_REFUSAL_STATUSES.join('/')})`,
  ];
  if (stats.rateCuts > 0)
    parts.push(stats.ratePerSecond === undefined ? 'sending at full speed again' : `sending at ~${Math.round(stats.ratePerSecond)}/s`);
  if (stats.concurrencyCuts > 0) parts.push(`${stats.concurrencyLimit} in flight`);
  if (stats.pauses > 0) parts.push(`paused ${stats.pauses} time${stats.pauses === 1 ? '' : 's'}, ${seconds(stats.pausedMs)} in all`);
  return `; ${parts.join(', ')}`;
}

/** A --verbose line for each change of pace. */
function describeChange(change: ThrottleChange): string {
  switch (change.kind) {
    case 'slowed':
      return `throttled: the server refused a request (${change.status}); sending at ~${Math.round(change.ratePerSecond)}/s`;
    case 'concurrency':
      return `throttled: the server is overloaded (${change.status}); at most ${change.limit} request${change.limit === 1 ? '' : 's'} in flight`;
    case 'paused':
      return change.reason === 'retry-after'
        ? `throttled: the server asked to wait ${seconds(change.forMs)}; nothing is sent until then`
        : `throttled: the server keeps refusing although we slowed down; nothing is sent for ${seconds(change.forMs)}`;
    case 'recovered':
      return 'no longer throttled: sending at full speed';
    case 'gave-up':
      return `giving up: ${change.reason}`;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
