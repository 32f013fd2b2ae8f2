import { type IdState, type JournalSummary, summarizeJournals } from '../../batch/journal/summary.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { shown } from '../../text/shown.js';
import type { JournalOptions } from './flags.js';

/** What `journal failed` lists: every id a re-run must send again (see docs/journal.md, Reading a journal). */
export const TO_REDO: readonly IdState[] = ['failed', 'inFlight', 'notSent'];

/** Lines written to stdout at once: a million ids are not a million writes. */
const LINES_PER_WRITE = 4096;

/** `plantstore journal status FILE…`: what the journals record, summed. */
export async function runJournalStatus(opts: JournalOptions, ctx: Context): Promise<ExitCode> {
  const summary = await summarizeJournals(opts.files, ctx.signal);
  if (opts.json) ctx.io.outObject(statusObject(summary));
  else for (const line of statusLines(summary)) ctx.io.out(line);
  return Exit.ok;
}

/** `plantstore journal failed FILE…`: the ids still to do, in numeric order, one a line. */
export async function runJournalFailed(opts: JournalOptions, ctx: Context): Promise<ExitCode> {
  const summary = await summarizeJournals(opts.files, ctx.signal);
  const ids = summary.idsIn(TO_REDO);
  for (let start = 0; start < ids.length; start += LINES_PER_WRITE) {
    const lines: string[] = [];
    for (const id of ids.subarray(start, start + LINES_PER_WRITE)) lines.push(opts.json ? failedJson(id, summary) : id.toString());
    ctx.io.outJson(lines.join('\n'));
    await ctx.io.backlog();
  }
  return Exit.ok;
}

/** By hand: the id keeps its exact digits, past what a JSON number parsed by JavaScript holds. */
function failedJson(id: bigint, summary: JournalSummary): string {
  const { state, failure } = summary.describe(id);
  const exit = failure?.exit === undefined ? '' : `,"exit":${failure.exit}`;
  const error = failure?.error === undefined ? '' : `,"error":${failure.error}`;
  return `{"id":${id},"state":"${state}"${exit}${error}}`;
}

export function statusObject(summary: JournalSummary): Record<string, unknown> {
  return {
    files: summary.files.map((file) => ({
      path: file.file,
      started: file.started ?? null,
      ...(file.shard === undefined ? {} : { shard: file.shard }),
      running: file.running,
      tornBytes: file.tornBytes,
    })),
    baseUrl: summary.baseUrl ?? null,
    profile: summary.profile ?? null,
    ...summary.counts,
    failedByExit: summary.failedByExit,
    failedByError: summary.failedByError,
  };
}

/** A short aligned block: one row per file, then the run, then the counts. */
export function statusLines(summary: JournalSummary): string[] {
  const rows: Array<[string, string]> = summary.files.map((file) => {
    const parts = [shown(file.file)];
    if (file.shard !== undefined) parts.push(`shard ${file.shard}`);
    parts.push(file.started === undefined ? 'empty (a run stopped before writing its header)' : `started ${file.started}`);
    if (file.running) parts.push('(a run holds it now: the counts are still changing)');
    return ['journal', parts.join('  ')];
  });
  const { counts } = summary;
  rows.push(
    ['base URL', summary.baseUrl ?? '(none recorded)'],
    ['profile', summary.profile === undefined ? '(none recorded)' : shown(summary.profile)],
    ['deleted', String(counts.deleted)],
    ['absent', String(counts.absent)],
    ['failed', `${counts.failed}${breakdown(summary)}`],
    ['in flight', `${counts.inFlight}${counts.inFlight > 0 ? '  (sent with no decided answer: the plant may be deleted)' : ''}`],
    ['not sent', String(counts.notSent)],
  );
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => `${label.padEnd(width)}${value}`);
}

/** "  (exit 1: 2, exit 5: 1; API error 1: 2)", or nothing when no id failed. */
function breakdown(summary: JournalSummary): string {
  const byExit = Object.entries(summary.failedByExit).map(([code, n]) => `exit ${code}: ${n}`);
  const byError = Object.entries(summary.failedByError).map(([code, n]) => `API error ${code}: ${n}`);
  const parts = [byExit.join(', '), byError.join(', ')].filter((part) => part !== '');
  return parts.length === 0 ? '' : `  (${parts.join('; ')})`;
}
