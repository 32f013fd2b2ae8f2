import { type IdState, type JournalSummary, summarizeJournals } from '../../batch/journal/summary.js';
import { learnTokensAtRest } from '../../config/tokens-at-rest.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { shown } from '../../text/shown.js';
import type { JournalOptions } from './flags.js';
import { statusLines, statusObject } from './status.js';
import { runJournalWatch } from './watch.js';

/** What `journal failed` lists: every id a re-run must send again (see docs/journal.md, Reading a journal). */
export const TO_REDO: readonly IdState[] = ['failed', 'inFlight', 'notSent'];

/** Lines written to stdout at once: a million ids are not a million writes. */
const LINES_PER_WRITE = 4096;

/** `plantstore journal status FILE…`: what the journals record, summed. */
export async function runJournalStatus(opts: JournalOptions, ctx: Context): Promise<ExitCode> {
  if (opts.watch) return runJournalWatch(opts, ctx);
  // A journal written before base URLs were stored masked may hold a token in its header's URL:
  // the tokens this machine keeps are masked in what is printed, as an error's words are.
  learnTokensAtRest(ctx.env, [], ctx.io.redact);
  const summary = await summarizeJournals(opts.files, ctx.signal);
  if (opts.json) ctx.io.outObject(statusObject(summary));
  else for (const line of statusLines(summary)) ctx.io.out(line);
  return Exit.ok;
}

/** `plantstore journal failed FILE…`: the ids still to do, in numeric order, one a line. */
export async function runJournalFailed(opts: JournalOptions, ctx: Context): Promise<ExitCode> {
  const summary = await summarizeJournals(opts.files, ctx.signal);
  const untold = idsNotListed(summary);
  if (untold !== undefined) ctx.io.err(`plantstore: ${untold}`);
  const ids = summary.idsIn(TO_REDO);
  for (let start = 0; start < ids.length; start += LINES_PER_WRITE) {
    const lines: string[] = [];
    for (const id of ids.subarray(start, start + LINES_PER_WRITE)) lines.push(opts.json ? failedJson(id, summary) : id.toString());
    ctx.io.outJson(lines.join('\n'));
    await ctx.io.backlog();
  }
  return Exit.ok;
}

/**
 * Why `journal failed` cannot list every id left: ids never sent have no line (a stop writes one
 * line for the run, not one per id), and a run with no end line may have left any number.
 */
function idsNotListed(summary: JournalSummary): string | undefined {
  const { job, files } = summary;
  if (job.finished) return undefined;
  const left = `plantstore journal left ${files.map((file) => shown(file.file)).join(' ')} < LIST prints every id of LIST left to do`;
  if (job.unrecorded !== undefined) {
    return job.unrecorded === 0
      ? undefined
      : `${job.unrecorded} ids were never sent (a run stopped before them), and no line names them, so they are not listed here; ${left}`;
  }
  if (job.missingShards.length > 0)
    return `shards ${job.missingShards.join(', ')} have no journal here, so their ids are not listed; ${left}`;
  return `the journal does not say how many ids its last run left unsent (it ended without a record, or is still running), so this list may lack some; ${left}`;
}

/** By hand: the id keeps its exact digits, past what a JSON number parsed by JavaScript holds. */
function failedJson(id: bigint, summary: JournalSummary): string {
  const { state, failure } = summary.describe(id);
  const exit = failure?.exit === undefined ? '' : `,"exit":${failure.exit}`;
  const error = failure?.error === undefined ? '' : `,"error":${failure.error}`;
  return `{"id":${id},"state":"${state}"${exit}${error}}`;
}
