import { runOrdered } from '../../batch/ordered-pool.js';
import { type Concurrency, Throttle, type ThrottleChange } from '../../batch/throttle/throttle.js';
import type { Target } from '../../config/resolve.js';
import type { TokenLeases } from '../../config/token-lease.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';
import type { NetworkOptions } from '../../http/transport.js';
import type { IdList } from '../../ids/list.js';
import { parsePlantIds } from '../../ids/parse.js';
import { readIdsFromStream } from '../../ids/stdin.js';
import { firstToken, resolveService } from '../../service/connect.js';
import { tokenRefusedLine } from '../../service/token-refused.js';
import { readerCaughtUp } from '../../ui/io.js';
import { NO_PROGRESS, type ProgressState, startProgress } from '../../ui/progress.js';
import { traceLines } from '../../ui/trace.js';
import { printDryRun } from './dry-run.js';
import type { DeleteOptions } from './flags.js';
import type { RunJournal } from './journal.js';
import { describeAttempt, explainOutcome, signalExit, whyNotSent } from './outcomes.js';
import { createReporter } from './report.js';
import { deletePlant } from './request.js';
import { type DeleteResult, isFailure, notSent, Tally } from './result.js';
import { describeChange, summaryLine } from './summary.js';

/**
 * A batch of at most this many ids goes out at once, as it did when a fixed 8 was the default:
 * the latency-based limit learns nothing from so few answers, and would only send them in two waves.
 */
export const HANDFUL = 8;

// A server that refuses every request for this many --max-retry-wait (but at least
// a second) is not coming back soon: the run stops trying, and ends with exit 6.
const STALL_RETRY_WAITS = 4;
const MIN_STALL_MS = 1000;

/** Deletes each plant; results come out in input order; the exit code is that of the first failing id. */
export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<ExitCode> {
  const { rate, output } = opts;
  // Every id is checked before anything is sent: a typo in the fifth id deletes nothing.
  const ids = await readIds(opts, ctx);
  const { target, network } = await resolveService(opts, ctx);
  if (opts.dryRun) {
    // The journal's code is loaded only when one is asked for: other runs skip it at start-up.
    const plan =
      opts.journal === undefined ? undefined : await (await import('./journal.js')).planFromJournal(opts.journal, target, ctx.signal);
    return printDryRun({ ids, target, rate, output, ...(plan ? { journal: plan } : {}) }, ctx);
  }
  // Refused here, before anything is sent, when it is another run's, not a journal, or in use.
  const journal =
    opts.journal === undefined ? undefined : await (await import('./journal.js')).openRunJournal(opts.journal, target, opts.verbose, ctx);
  let exit: ExitCode;
  try {
    // A finished job stays finished: nothing to send needs no token, and a token command that fails now does not matter.
    const token = journal?.allDone(ids) ? NO_TOKEN_NEEDED : await firstToken(target, network, opts.verbose, ctx);
    exit = await deleteAll(ids, target, token, network, journal, opts, ctx);
  } finally {
    const lost = journal?.close();
    if (lost !== undefined) ctx.io.err(`plantstore: ${lost}`);
  }
  // Results the journal lost outrank a failing id: a script cannot trust what the run said it recorded. A signal outranks both.
  if (journal?.stopReason() !== undefined && exit !== Exit.interrupted) return Exit.internal;
  return exit;
}

/** The token of a run that sends nothing: every id was done by the journal. Never sent. */
const NO_TOKEN_NEEDED = '';

/** The batch itself: every id through the throttle and the transport, results in input order. */
async function deleteAll(
  ids: IdList,
  target: Target,
  token: string | TokenLeases,
  network: NetworkOptions,
  journal: RunJournal | undefined,
  opts: DeleteOptions,
  ctx: Context,
): Promise<ExitCode> {
  const { concurrency, rate, output, verbose, failFast, missing } = opts;

  const started = Date.now();
  const reporter = createReporter(ctx.io, output);
  const tally = new Tally();
  // One throttle for the whole run: a refusal for load is about the server, not about one id.
  const throttle = new Throttle({
    ceiling: typeof concurrency === 'object' && ids.size <= HANDFUL ? Math.min(HANDFUL, concurrency.auto) : concurrency,
    ...(rate ? { rate } : {}),
    maxPauseMs: network.maxRetryWaitMs,
    stallMs: Math.max(MIN_STALL_MS, STALL_RETRY_WAITS * network.maxRetryWaitMs),
    ...(verbose ? { onChange: (change: ThrottleChange) => ctx.io.err(`* ${describeChange(change)}`) } : {}),
  });
  // A line per id on the screen is progress enough; the counter is for when stdout goes elsewhere.
  const linesOnScreen = ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY && (output.json || !output.quiet);
  const progress = linesOnScreen
    ? NO_PROGRESS
    : startProgress(ctx.io, ids.size, () => progressState(tally, throttle, concurrency), { plain: opts.progress });
  const transport = await ctx.transport({
    endpoint: { baseUrl: target.baseUrl, token },
    network: { ...network, connections: throttle.maxInFlight },
    gate: throttle,
    ...(verbose ? { onEvent: (event) => ctx.io.err(traceLines(event, describeAttempt).join('\n')) } : {}),
  });
  const send = async (id: string, inFlightEarlier: boolean): Promise<DeleteResult> => {
    const result = signalExit(explainOutcome(await deletePlant(transport, id, ctx.signal), missing, inFlightEarlier), ctx.signal);
    // As soon as it is decided, not in input order: a result held behind a slow id would be lost to a kill.
    journal?.record(result);
    return result;
  };
  // An id the journal skips is a result at once, not a promise: a resume skipping a million of them stays one pass.
  const deleteOne = (id: string): Promise<DeleteResult> | DeleteResult => {
    if (journal === undefined) return send(id, false);
    const earlier = journal.doneEarlier(id);
    if (earlier) return earlier;
    const inFlightEarlier = journal.wasInFlight(id);
    // Written ahead of the request (a write-ahead record): after a kill, the journal knows every id that may have left.
    if (!journal.recordSent(id)) return notSentNow(id);
    return send(id, inFlightEarlier);
  };
  let stopReason: { message: string; exit: ExitCode } | undefined;
  let tokenRefused = false;
  /** After a signal, stdout's reader stopped taking the ids left: they are counted, not written. */
  let readerGone = false;
  /**
   * An id this run will not send: interrupted, stopped, or its journal line could not be written.
   * Not journaled: an id never sent needs no record (the next run sends it as it would any id, and
   * one an earlier run left in flight stays so), and a stop in a million ids must not write a million lines.
   */
  const notSentNow = (id: string): DeleteResult => {
    stopReason ??= journal?.stopReason();
    const why = ctx.signal.aborted ? whyNotSent({ kind: 'interrupted' }) : stopReason;
    return signalExit(notSent(id, why?.message ?? 'not sent', why?.exit ?? Exit.internal), ctx.signal);
  };
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
        if (isFailure(result) && result.attempted && result.exit === Exit.auth) tokenRefused = true;
        reporter.result(result);
      },
      shouldStop(result) {
        stopReason ??= journal?.stopReason();
        const gaveUp = throttle.gaveUp();
        if (gaveUp !== undefined) stopReason ??= whyNotSent({ kind: 'gave-up', reason: gaveUp });
        if (failFast && isFailure(result)) {
          stopReason ??= { message: `not sent: --fail-fast stopped after plant ${result.id} failed`, exit: result.exit };
        }
        return stopReason !== undefined;
      },
      notStarted(id) {
        const earlier = journal?.doneEarlier(id);
        if (earlier) return earlier;
        return notSentNow(id);
      },
      // The ids left after a stop go out as a stream, at the pace stdout is read; after a signal,
      // to a reader that stopped taking them, they are only counted (the summary stays whole).
      paceNotStarted: () =>
        readerGone
          ? undefined
          : readerCaughtUp(ctx.io, ctx.signal)?.then((goOn) => {
              readerGone = !goOn;
              if (readerGone) reporter.mute();
            }),
    });
  } finally {
    throttle.close();
    progress.stop();
    reporter.finish();
    await transport.close();
  }
  if (ids.size > 1 && !(output.quiet && tally.firstFailure === undefined)) {
    ctx.io.err(summaryLine(tally, Date.now() - started, throttle.stats(), journal !== undefined));
  }
  if (tokenRefused) ctx.io.err(tokenRefusedLine(target.token, opts.target));
  if (ctx.signal.aborted) {
    // A plant deleted already answers 404: --ignore-missing counts it done, where the journal skips it.
    const again = journal
      ? 'run the same command again to resume'
      : 'run it again with --ignore-missing to finish (the plants deleted already answer 404)';
    ctx.io.err(
      `interrupted: ${tally.deleted} of ${ids.size} deleted before the interrupt; the rest were not, or may not have been: ${again}`,
    );
    return Exit.interrupted;
  }
  // A journal that stopped recording is a lost result, as a full disk on stdout is.
  return tally.firstFailure ?? Exit.ok;
}

/** Where the run is, for the progress line: the limit only when it adapts. */
function progressState(tally: Tally, throttle: Throttle, concurrency: Concurrency): ProgressState {
  const stats = throttle.stats();
  const adapts = typeof concurrency !== 'number' || stats.concurrencyCuts > 0;
  return { done: tally.total, failed: tally.failed, limit: adapts ? stats.concurrencyLimit : undefined };
}

async function readIds(opts: DeleteOptions, ctx: Context): Promise<IdList> {
  const dash = opts.ids.length === 1 && opts.ids[0] === '-';
  if (opts.stdin || dash) {
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
