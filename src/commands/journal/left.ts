import { type JournalSummary, summarizeJournals } from '../../batch/journal/summary.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';
import { readIdsFromStream } from '../../ids/stdin.js';
import type { JournalOptions } from './flags.js';

/** Lines written to stdout at once: a million ids are not a million writes. */
const LINES_PER_WRITE = 4096;

/**
 * `plantstore journal left FILE… < LIST`: the ids of LIST the journals do not record as done
 * (done, or absent), in LIST's order: what is left of the job after any stop, including the
 * ids a stop left without a line (never sent), which `journal failed` cannot name.
 */
export async function runJournalLeft(opts: JournalOptions, ctx: Context): Promise<ExitCode> {
  // The journals first: one refused (not a journal, not to be trusted) needs no list.
  const summary = await summarizeJournals(opts.files, ctx.signal);
  if (ctx.stdin.isDirectory?.()) {
    throw new UsageError(
      "standard input is a directory, not a list of plant ids: redirect the job's list, as in plantstore journal left FILE < ids.txt",
    );
  }
  if (ctx.io.stdinIsTTY) ctx.io.err('Reading plant ids from standard input; end with Ctrl-D.');
  const ids = await readIdsFromStream(ctx.stdin, ctx.signal);
  // No list is a forgotten `< LIST`, never a job with nothing left: printing nothing would say "done".
  if (ids.size === 0) {
    throw new UsageError("no plant ids on standard input: give the job's list, as in plantstore journal left FILE < ids.txt");
  }
  const { missingShards } = summary.job;
  if (missingShards.length > 0) {
    ctx.io.err(
      `plantstore: no journal given for shard${missingShards.length > 1 ? 's' : ''} ${missingShards.join(', ')}: ${missingShards.length > 1 ? 'their' : 'its'} ids are listed as left`,
    );
  }
  let lines: string[] = [];
  for (const id of ids.values()) {
    if (summary.isDone(id)) continue;
    lines.push(opts.json ? leftJson(id, summary) : id.toString());
    if (lines.length === LINES_PER_WRITE) {
      ctx.io.outJson(lines.join('\n'));
      lines = [];
      await ctx.io.backlog();
    }
  }
  if (lines.length > 0) ctx.io.outJson(lines.join('\n'));
  return Exit.ok;
}

/** `{"id":42,"state":"failed","exit":1,"error":1}`; `"state":"unrecorded"` for an id no line names (never sent). */
function leftJson(id: bigint, summary: JournalSummary): string {
  const { state, failure } = summary.describe(id);
  const exit = failure?.exit === undefined ? '' : `,"exit":${failure.exit}`;
  const error = failure?.error === undefined ? '' : `,"error":${failure.error}`;
  return `{"id":${id},"state":"${state ?? 'unrecorded'}"${exit}${error}}`;
}
