import { plantUrl } from '../base-url.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode, UsageError } from '../errors.js';
import { type GlobalOptions, isVerbose, resolveNetwork } from '../global-options.js';
import { parsePlantIds } from '../id.js';
import { readIdsFromStream } from '../id-input.js';
import type { IdList } from '../id-list.js';
import { MAX_CONCURRENCY, runOrdered } from '../ordered-pool.js';
import { createReporter } from '../output.js';
import { NO_PROGRESS, startProgress } from '../progress.js';
import { type DeleteResult, isFailure, notAttempted, Tally } from '../result.js';
import { resolveTarget, type Target } from '../settings.js';

export interface DeleteOptions {
  ids: string[];
  /** Read ids from standard input (also: `-` as the only id). */
  stdin: boolean;
  concurrency?: string;
  /** A 404 counts as success: the plant is gone either way. */
  ignoreMissing: boolean;
  /** Start no new request after the first failure. */
  failFast: boolean;
  /** Print what would be sent; send nothing. */
  dryRun: boolean;
  global: GlobalOptions;
}

const DEFAULT_CONCURRENCY = 8;

/** Deletes each plant; results come out in input order; the exit code is that of the first failing id. */
export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<ExitCode> {
  const concurrency = parseConcurrency(opts.concurrency);
  // Every id is checked before anything is sent: a typo in the fifth id deletes nothing.
  const ids = await readIds(opts, ctx);
  const target = resolveTarget(opts.global, ctx.env, ctx.config, ctx.io.redact);
  const network = resolveNetwork(opts.global, ctx.env);
  if (opts.dryRun) return printDryRun(ids, target, opts, ctx);

  const started = Date.now();
  const reporter = createReporter(ctx.io, opts.global);
  const tally = new Tally();
  // A line per id on the screen is progress enough; the counter is for when stdout goes elsewhere.
  const linesOnScreen = ctx.io.stdoutIsTTY && (opts.global.json || !opts.global.quiet);
  const progress = linesOnScreen ? NO_PROGRESS : startProgress(ctx.io, ids.size, () => tally.total);
  const api = await ctx.api({ target, network: { ...network, connections: concurrency }, verbose: isVerbose(opts.global, ctx.env) });
  let stopReason: { message: string; exit: ExitCode } | undefined;
  try {
    await runOrdered<string, DeleteResult>({
      items: ids,
      concurrency,
      signal: ctx.signal,
      // No async wrapper unless there is something to add: a batch runs this a million times.
      run: opts.ignoreMissing
        ? (id) =>
            api
              .deletePlant(id, ctx.signal)
              .then((result): DeleteResult => (result.status === 404 ? { id, deleted: false, absent: true, status: 404 } : result))
        : (id) => api.deletePlant(id, ctx.signal),
      emit(result) {
        // Only a failure line shares stderr with the counter: clearing on every result would hide it.
        if (isFailure(result)) progress.clear();
        tally.add(result);
        reporter.result(result);
      },
      ...(opts.failFast
        ? {
            shouldStop: (result: DeleteResult) => {
              if (isFailure(result))
                stopReason ??= { message: `not sent: --fail-fast stopped after plant ${result.id} failed`, exit: result.exit };
              return isFailure(result);
            },
          }
        : {}),
      notStarted(id) {
        if (ctx.signal.aborted) return notAttempted(id, 'not sent: interrupted before its turn', Exit.interrupted);
        return notAttempted(id, stopReason?.message ?? 'not sent', stopReason?.exit ?? Exit.internal);
      },
    });
  } finally {
    progress.stop();
    reporter.finish();
    await api.close();
  }
  if (ids.size > 1 && !(opts.global.quiet && tally.firstFailure === undefined)) ctx.io.err(summaryLine(tally, Date.now() - started));
  if (ctx.signal.aborted) {
    ctx.io.err(`interrupted: ${tally.deleted} of ${ids.size} deleted before the interrupt; the rest were not, or may not have been`);
    return Exit.interrupted;
  }
  return tally.firstFailure ?? Exit.ok;
}

async function readIds(opts: DeleteOptions, ctx: Context): Promise<IdList> {
  const dash = opts.ids.length === 1 && opts.ids[0] === '-';
  if (opts.stdin || dash) {
    if (opts.ids.length > 0 && !dash) throw new UsageError('give ids as arguments or with --stdin, not both');
    if (ctx.io.stdinIsTTY) ctx.io.err('Reading plant ids from standard input; end with Ctrl-D.');
    return readIdsFromStream(ctx.stdin);
  }
  if (opts.ids.length === 0) throw new UsageError('no plant id given: try plantstore delete 42, or pipe ids to plantstore delete --stdin');
  return parsePlantIds(opts.ids);
}

function parseConcurrency(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CONCURRENCY;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= MAX_CONCURRENCY)) {
    throw new UsageError(`invalid --concurrency '${raw}': give a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return value;
}

/** What would be sent, exactly, with the token masked. */
function printDryRun(ids: IdList, target: Target, opts: DeleteOptions, ctx: Context): ExitCode {
  for (const id of ids) {
    const url = plantUrl(target.baseUrl, id);
    if (opts.global.json) ctx.io.outJson(`{"id":${id},"dryRun":true,"method":"DELETE","url":${JSON.stringify(ctx.io.mask(url))}}`);
    else ctx.io.out(`DELETE ${url}  (Authorization: Bearer ***)`);
  }
  ctx.io.err(`dry run: ${ids.size} request${ids.size === 1 ? '' : 's'} not sent (profile '${target.profile}')`);
  return Exit.ok;
}

function summaryLine(tally: Tally, elapsedMs: number): string {
  return `${tally.deleted} deleted, ${tally.absent} already absent, ${tally.failed} failed, ${tally.notAttempted} not attempted in ${(elapsedMs / 1000).toFixed(1)}s`;
}
