// The batch engine: a list of ids through one operation. Reads and checks every id first, then
// the journal, the throttle, progress and signals, and the summary; the operation supplies only
// its request, how an answer becomes a result, and its words (operation.ts).

import { runOrdered } from '../batch/ordered-pool.js';
import type { Target } from '../config/resolve.js';
import type { TokenLeases } from '../config/token-lease.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode } from '../errors.js';
import type { NetworkOptions } from '../http/transport.js';
import type { IdList } from '../ids/list.js';
import { firstToken, resolveService } from '../service/connect.js';
import type { ServiceSettings } from '../service/settings.js';
import { tokenRefusedLine } from '../service/token-refused.js';
import { describeDuration } from '../ui/duration.js';
import { readerCaughtUp } from '../ui/io.js';
import { startProgress } from '../ui/progress.js';
import { traceLines } from '../ui/trace.js';
import type { BatchOptions } from './batch-flags.js';
import { describeMaxFailures, FailureBudget, startDeadline } from './budgets.js';
import { closeRun } from './closing.js';
import { printDryRun } from './dry-run.js';
import { guardBatch, idsToSend, overLimit } from './guard.js';
import { inFlightStill, signalExit, whyNotSent } from './not-sent.js';
import { transportFor } from './op-transport.js';
import { isFailure, type Operation } from './operation.js';
import { idsOfRun } from './read-ids.js';
import { createReporter } from './report.js';
import { RunStop } from './run-end.js';
import { openRunJournal, planFromJournal, type RunJournal } from './run-journal.js';
import { progressState, throttleFor, waitsOf } from './run-throttle.js';
import { describeShard } from './shard.js';
import { Tally } from './tally.js';

/** How one operation's batch runs: its flags, where and how its requests go. */
export type BatchRun = BatchOptions & ServiceSettings;

/** Runs `op` for each id; results come out in input order; the exit code is that of the first failing id. */
export async function runBatch<R extends { id: string }>(op: Operation<R>, opts: BatchRun, ctx: Context): Promise<ExitCode> {
  // --max-duration counts from here: reading a long list from a slow pipe is part of the job's time.
  const startedAt = Date.now();
  const { rate, output } = opts;
  // Every id is checked before anything is sent: a typo in the fifth id does nothing.
  const given = await idsOfRun(opts, op.words, ctx, op.value);
  if (given === undefined) return Exit.ok;
  const { ids } = given;
  const { target, network } = await resolveService(opts, ctx);
  if (opts.dryRun) {
    const plan = opts.journal === undefined ? undefined : await planFromJournal(opts.journal, target, opts, op, given.values, ctx.signal);
    await printDryRun({ ids, request: op.request, values: given.values, target, rate, output, ...(plan ? { journal: plan } : {}) }, ctx);
    const refused = op.destructive ? overLimit(idsToSend(ids, plan && ((id) => plan.isDone(id))), opts, target, op.words) : undefined;
    if (refused === undefined) return Exit.ok;
    ctx.io.err(`dry run: the real run would stop here: ${refused}`);
    return Exit.refused;
  }
  // Refused here, before anything is sent, when it is another run's, not a journal, or in use.
  const journal = opts.journal === undefined ? undefined : await openRunJournal(opts.journal, target, opts, ctx, op, given.values);
  let exit: ExitCode;
  try {
    // Asked, and refused, before the token: a list refused needs no credentials. Only what destroys is guarded.
    const refused = op.destructive
      ? await guardBatch(() => idsToSend(ids, journal && ((id) => journal.isDone(id))), opts, target, op.words, ctx)
      : undefined;
    if (refused !== undefined) return refused;
    // A finished job stays finished: nothing to send needs no token, and a token command that fails now does not matter.
    const token = journal?.allDone(ids) ? NO_TOKEN_NEEDED : await firstToken(target, network, opts.verbose, ctx);
    exit = await sendAll(op, { ...given, target, token, network, journal, startedAt }, opts, ctx);
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

/** What the batch sends, where, and what it records. */
interface Batch<R> {
  ids: IdList;
  /** Ids of the input its --shard left to other shards: counted in the summary. */
  otherShards: number;
  /** Each id's value, when the operation's ids carry one. */
  values?: ReadonlyMap<string, string> | undefined;
  target: Target;
  token: string | TokenLeases;
  network: NetworkOptions;
  journal: RunJournal<R> | undefined;
  /** When the run began, for --max-duration. */
  startedAt: number;
}

/** The batch itself: every id through the throttle and the transport, results in input order. */
async function sendAll<R extends { id: string }>(op: Operation<R>, batch: Batch<R>, opts: BatchRun, ctx: Context): Promise<ExitCode> {
  const { ids, target, token, network, journal } = batch;
  const { output, verbose, failFast, maxFailures, maxDuration } = opts;
  const { results } = op;

  const started = Date.now();
  const reporter = createReporter(ctx.io, output, results);
  const tally = new Tally(results);
  tally.otherShards = batch.otherShards;
  // One throttle for the whole run: a refusal for load is about the server, not about one id.
  const waits = waitsOf(opts, network.maxRetryWaitMs);
  /** Why the throttle gave up on the service, once it has: the run's stop names the flag that bounds it. */
  let serviceGaveUp: string | undefined;
  const throttle = throttleFor(ids.size, opts, waits, ctx, (reason) => {
    serviceGaveUp = `${reason}, more than --max-outage ${describeDuration(waits.outageMs)}`;
  });
  // At a terminal the status line is pinned below the result lines, wherever stdout goes: a
  // scroll of 50,000 lines says nothing of how far along the batch is, or how long it has left.
  const progress = startProgress(ctx.io, ids.size, () => progressState(tally, throttle), {
    plain: opts.progress,
    doing: op.words.doing,
    shard: opts.shard && describeShard(opts.shard),
  });
  // A result line on the screen the status line is on (a failure on stderr, or any line on a
  // stdout that is a terminal too): the status line is cleared for it and put back below it.
  const successOnScreen = ctx.io.stdoutIsTTY && (output.json || !output.quiet);
  const transport = await ctx.transport({
    endpoint: { baseUrl: target.baseUrl, token },
    network: { ...network, connections: throttle.maxInFlight },
    gate: throttle,
    ...(verbose ? { onEvent: (event) => ctx.io.err(traceLines(event, op.describeAttempt).join('\n')) } : {}),
  });
  const withSignalExit = (result: R): R => signalExit(results, result, ctx.signal);
  // Every request carries the operation's word on whether it may go again after a lost answer.
  const sender = transportFor(transport, op.repeatable);
  const send = async (id: string, uncertainEarlier: boolean): Promise<R> => {
    const sent = await op.send(sender, id, ctx.signal, uncertainEarlier, batch.values?.get(id));
    let result = inFlightStill(results, withSignalExit(sent), uncertainEarlier);
    // Held at the gate when the run stopped (--max-duration, a budget): not sent, for that reason.
    if (halted && !ctx.signal.aborted && results.kindOf(result) === 'not-sent') result = notSentNow(id);
    // As soon as it is decided, not in input order: a result held behind a slow id would be lost to a kill.
    journal?.record(id, result);
    return result;
  };
  // An id the journal skips is a result at once, not a promise: a resume skipping a million of them stays one pass.
  const runOne = (id: string): Promise<R> | R => {
    if (journal === undefined) return send(id, false);
    const earlier = journal.fromJournal(id);
    if (earlier) return earlier;
    const uncertainEarlier = journal.wasInFlight(id);
    // Written ahead of the request (a write-ahead record): after a kill, the journal knows every id that may have left.
    if (!journal.recordSent(id)) return notSentNow(id);
    return send(id, uncertainEarlier);
  };
  /** The run's first stop: why the ids left are not sent, and the journal's word for it. */
  const stop = new RunStop();
  /**
   * Once the run stops, no attempt starts, a retry's wait included (the throttle's stop ends it):
   * the ids in flight finish within --timeout, and one waiting to be retried ends with its last answer.
   */
  let halted = false;
  const halt = (why: { message: string }): void => {
    halted = true;
    throttle.stop(why.message.replace(/^not sent: /, ''));
  };
  let tokenRefused = false;
  /** After a signal, stdout's reader stopped taking the ids left: they are counted, not written. */
  let readerGone = false;
  /**
   * An id this run will not send: interrupted, stopped, or its journal line could not be written.
   * Not journaled: an id never sent needs no record (the next run sends it as it would any id, and
   * one an earlier run left in flight stays so), and a stop in a million ids must not write a million lines.
   */
  const notSentNow = (id: string): R => {
    journal?.notSent(id);
    stop.set(journal?.stopReason(), 'error');
    const why = ctx.signal.aborted ? whyNotSent({ kind: 'interrupted' }) : stop.reason;
    return withSignalExit(results.notSent(id, why?.message ?? 'not sent', why?.exit ?? Exit.internal));
  };
  const failures = maxFailures && new FailureBudget(maxFailures);
  let firstFailedExit: ExitCode | undefined;
  // --max-duration stops the pool as a signal would, without being one: the ids in flight finish, and the
  // rest are not sent, for this reason.
  const stopStarts = new AbortController();
  const timeUp =
    maxDuration === undefined
      ? undefined
      : { message: `not sent: --max-duration ${describeDuration(maxDuration)} reached`, exit: Exit.stoppedAtTime };
  const cancelDeadline =
    timeUp === undefined || maxDuration === undefined
      ? undefined
      : startDeadline(Math.max(0, batch.startedAt + maxDuration - Date.now()), () => {
          stop.set(timeUp, 'max-duration');
          stopStarts.abort();
          // Nor does any retry, pause or probe start: the run ends within --timeout of the deadline.
          halt(timeUp);
        });
  journal?.begin(ids);
  try {
    await runOrdered<string, R>({
      items: ids,
      // No concurrency here: the throttle bounds the requests in flight (at most --concurrency)
      // through hold; the pool only bounds the results held for ordering (its window), so an
      // id waiting out a Retry-After or one slow answer holds back nothing but its own line.
      signal: AbortSignal.any([ctx.signal, stopStarts.signal]),
      hold(resume) {
        // A reader slower than the batch (`| less`) holds new starts back instead of growing the queue.
        const backlog = ctx.io.backlog();
        if (backlog === undefined) return throttle.hold(resume);
        void backlog.then(resume);
        return true;
      },
      run: runOne,
      emit(result) {
        const kind = results.kindOf(result);
        // A failure line always shares the terminal with the status line; a success line when stdout is that terminal too.
        const onScreen = isFailure(kind) || successOnScreen;
        if (onScreen) progress.clear();
        tally.add(result, kind);
        if (results.tokenRefused(result)) tokenRefused = true;
        reporter.result(result, kind);
        if (onScreen) progress.restore();
      },
      shouldStop(result) {
        stop.set(journal?.stopReason(), 'error');
        if (serviceGaveUp !== undefined) stop.set(whyNotSent({ kind: 'gave-up', reason: serviceGaveUp }), 'gave-up');
        stop.set(results.stopsRun?.(result), 'not-the-api');
        const kind = failures === undefined ? undefined : results.kindOf(result);
        // The budget counts the ids this run decides, not those the journal skips.
        if (failures !== undefined && kind !== undefined && kind !== 'skipped') {
          const failed = isFailure(kind);
          if (failed) firstFailedExit ??= results.exitOf(result);
          if (failures.add(failed)) {
            const why = failFast
              ? `not sent: --fail-fast stopped after plant ${result.id} failed`
              : failures.why(`--max-failures ${describeMaxFailures(failures.budget)}`);
            // The first failure's code, as --fail-fast has always given: the ids not sent are that failure's consequence.
            stop.set({ message: why, exit: firstFailedExit ?? Exit.internal }, failFast ? 'fail-fast' : 'max-failures');
          }
        }
        if (stop.reason !== undefined && !halted) halt(stop.reason);
        return stop.reason !== undefined;
      },
      notStarted: (id) => journal?.fromJournal(id) ?? notSentNow(id),
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
    cancelDeadline?.();
    throttle.close();
    progress.stop();
    reporter.finish();
    await transport.close();
  }
  journal?.end(stop.ending(ctx.signal));
  return closeRun(
    {
      tally,
      size: ids.size,
      elapsedMs: Date.now() - started,
      stats: throttle.stats(),
      ceiling: throttle.maxInFlight,
      words: op.words,
      journal: journal !== undefined,
      skippedDone: journal?.skippedDone(),
      profile: target.profile,
      shard: opts.shard && describeShard(opts.shard),
      maxDuration: maxDuration === undefined ? undefined : describeDuration(maxDuration),
      stop,
      signal: ctx.signal,
      quiet: output.quiet,
      afterSummary: tokenRefused ? tokenRefusedLine(target.token, opts.target) : undefined,
      json: output.json,
    },
    ctx.io,
  );
}
