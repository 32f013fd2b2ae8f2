import type { FileRun } from '../../batch/journal/job-state.js';
import type { JournalFileSummary, JournalSummary } from '../../batch/journal/summary.js';
import { journalWordsOf, keyedCounts } from '../../engine/journal-words.js';
import { shown } from '../../text/shown.js';

/** Missing shards named one by one on the human status, at most; the rest are counted. */
const SHARDS_NAMED = 10;

/** `journal status --json`: one object. A count nobody knows is null, never 0. */
export function statusObject(summary: JournalSummary): Record<string, unknown> {
  const { job } = summary;
  return {
    files: summary.files.map((file) => ({
      path: file.file,
      started: file.started ?? null,
      ...(file.shard === undefined ? {} : { shard: file.shard }),
      running: file.running,
      tornBytes: file.tornBytes,
      lastRun: {
        ended: file.run.ended ?? null,
        ids: file.run.ids ?? null,
        notSent: file.run.notSent ?? null,
        unrecorded: file.run.unrecorded ?? null,
        earlier: file.run.earlier ?? null,
        readAll: file.run.readAll ?? null,
      },
    })),
    missingShards: job.missingShards,
    baseUrl: summary.baseUrl ?? null,
    profile: summary.profile ?? null,
    finished: job.finished,
    ended: job.ended ?? null,
    // Under the operation's keys (delete's: deleted, absent, failed, inFlight, notSent).
    ...keyedCounts(journalWordsOf(summary.operation), summary.counts, job.notSent ?? null),
    unrecorded: job.unrecorded ?? null,
    failedByExit: summary.failedByExit,
    failedByError: summary.failedByError,
  };
}

/** A short aligned block: one row per file and its last run, the missing shards, the run, the counts, then the job. */
export function statusLines(summary: JournalSummary): string[] {
  const rows: Array<[string, string]> = [];
  for (const file of summary.files) {
    const parts = [shown(file.file)];
    if (file.shard !== undefined) parts.push(`shard ${file.shard}`);
    parts.push(file.started === undefined ? 'empty (a run stopped before writing its header)' : `started ${file.started}`);
    if (file.running) parts.push('(a run holds it now: the counts are still changing)');
    rows.push(['journal', parts.join('  ')], ['last run', lastRunWords(file.run)]);
  }
  const { missingShards } = summary.job;
  for (const shard of missingShards.slice(0, SHARDS_NAMED)) rows.push(['journal', `shard ${shard}: no journal`]);
  if (missingShards.length > SHARDS_NAMED) rows.push(['journal', `and ${missingShards.length - SHARDS_NAMED} more shards: no journal`]);
  const { counts } = summary;
  // In the words of the operation that wrote the journals ("deleted 142" of delete's, "read 142" of a read's).
  const words = journalWordsOf(summary.operation);
  rows.push(
    ['base URL', summary.baseUrl ?? '(none recorded)'],
    ['profile', summary.profile === undefined ? '(none recorded)' : shown(summary.profile)],
    [words.done.word, String(counts.done)],
    [words.absent.word, String(counts.absent)],
    [words.failed.word, `${counts.failed}${breakdown(summary)}`],
    [words.inFlight.word, `${counts.inFlight}${counts.inFlight > 0 ? `  (${words.inFlight.note})` : ''}`],
    [words.notSent.word, notSentWords(summary)],
    ['job', jobWords(summary)],
  );
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => `${label.padEnd(width)}${value}`);
}

const ENDINGS: Record<string, string> = {
  SIGINT: 'stopped by SIGINT (Ctrl-C)',
  SIGTERM: 'stopped by SIGTERM',
  SIGHUP: 'stopped by SIGHUP',
  interrupted: 'interrupted',
  'max-duration': 'stopped at --max-duration',
  'max-failures': 'stopped by --max-failures',
  'fail-fast': 'stopped by --fail-fast',
  'gave-up': 'gave up: the service kept refusing',
  error: 'ended in an error',
};

/** "stopped at --max-duration: 2105 of its 3000 ids not sent". */
export function lastRunWords(run: FileRun): string {
  if (run.unknown === 'running') return 'running now';
  if (run.unknown === 'unrecorded') return 'not recorded (plantstore 2.0 did not record how a run ended)';
  const of = run.ids === undefined ? '' : ` of its ${ids(run.ids)}`;
  if (run.unknown === 'no-end') return `ended without a record (killed?): how many${of} it did not send is unknown`;
  const ended = run.ended ?? 'unknown';
  const earlier =
    run.earlier === null
      ? '; an earlier run left ids unsent, which its list may not have held'
      : run.earlier
        ? `; ${ids(run.earlier)} an earlier run left unsent ${run.earlier === 1 ? 'was' : 'were'} not in its list`
        : '';
  if (ended === 'finished' && run.notSent === 0) return `finished: its ${ids(run.ids ?? 0)} read to the end, each decided${earlier}`;
  const how = ENDINGS[ended] ?? `ended: ${shown(ended)}`;
  if (run.notSent === undefined) return `${how}: how many${of} it did not send is unknown`;
  const unread = run.readAll === false ? '; the rest of its input was never read' : '';
  return `${how}: ${run.notSent}${of} not sent${unread}${earlier}`;
}

const ids = (n: number): string => `${n} id${n === 1 ? '' : 's'}`;

function notSentWords(summary: JournalSummary): string {
  const { job, files } = summary;
  if (job.notSent !== undefined) {
    if (!job.unrecorded) return String(job.notSent);
    const which = job.unrecorded === job.notSent ? 'no line names them' : `no line names ${job.unrecorded} of them`;
    return `${job.notSent}  (${which}: plantstore journal left lists them)`;
  }
  if (job.missingShards.length > 0) return 'unknown  (shards are missing from the set)';
  const unknown = files.find((file) => file.run.notSent === undefined || file.run.readAll !== true) as JournalFileSummary;
  return `unknown  (${unknownWhy(unknown)})`;
}

function unknownWhy(file: JournalFileSummary): string {
  const name = shown(file.file);
  switch (file.run.unknown) {
    case 'running':
      return `a run holds ${name} now`;
    case 'unrecorded':
      return `${name} does not record how its runs ended`;
    case 'no-end':
      return `the last run of ${name} ended without a record`;
    default:
      if (file.run.readAll === false) return `the last run of ${name} did not read all its input`;
      if (file.run.earlier === null) return `an earlier run of ${name} left ids unsent, and the last run's list may not have held them`;
      return `the last run of ${name} could not count`;
  }
}

function jobWords(summary: JournalSummary): string {
  const { job, files } = summary;
  if (job.finished) return 'finished: the last run went through every id';
  if (files.length > 0 && files.every((file) => file.run.unknown === 'running')) return 'unfinished: a run is under way';
  const left = `plantstore journal left ${files.map((file) => shown(file.file)).join(' ')} < LIST prints the ids left`;
  return job.missingShards.length > 0 ? `unfinished: shards are missing from the set; ${left}` : `unfinished: ${left}`;
}

/** "  (exit 1: 2, exit 5: 1; API error 1: 2)", or nothing when no id failed. */
function breakdown(summary: JournalSummary): string {
  const byExit = Object.entries(summary.failedByExit).map(([code, n]) => `exit ${code}: ${n}`);
  const byError = Object.entries(summary.failedByError).map(([code, n]) => `API error ${code}: ${n}`);
  const parts = [byExit.join(', '), byError.join(', ')].filter((part) => part !== '');
  return parts.length === 0 ? '' : `  (${parts.join('; ')})`;
}
