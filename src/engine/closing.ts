// The lines a batch ends with, after its last result: the summary, the advice after a signal or
// a time stop, and the exit code they come to. Apart from the loop, which they only read.

import type { ThrottleStats } from '../batch/throttle/throttle.js';
import { Exit, type ExitCode } from '../errors.js';
import type { IO } from '../ui/io.js';
import type { OperationWords } from './operation.js';
import type { RunStop } from './run-end.js';
import { summaryLine } from './summary.js';
import type { Tally } from './tally.js';

export interface RunClosing<R> {
  tally: Tally<R>;
  /** How many ids the run had (after its shard). */
  size: number;
  elapsedMs: number;
  stats: ThrottleStats;
  ceiling: number;
  words: OperationWords;
  /** Whether the run kept a journal: its advice is then to run the same command again. */
  journal: boolean;
  /** With a journal: the run's ids the journal records as done by an earlier run, counted with this run's in a stop's line. */
  skippedDone?: number | undefined;
  profile: string;
  /** The run's --shard, as typed; undefined without one. */
  shard: string | undefined;
  /** --max-duration as typed back (`3s`), when the run had one. */
  maxDuration: string | undefined;
  /** The run's first stop, if any; with `signal`, how the run ended. */
  stop: RunStop;
  /** The run's interrupt: aborted by a signal, the run was interrupted, whatever stopped it before. */
  signal: AbortSignal;
  quiet: boolean;
  /** A line said after the summary, before the advice (the token was refused: log in again). */
  afterSummary: string | undefined;
  /** --json: the summary is also written as one JSON object, the last line on stderr. */
  json: boolean;
}

/** Writes the closing lines; returns the run's exit code. */
export function closeRun<R>(run: RunClosing<R>, io: IO): ExitCode {
  // A shard's run says what it left to the others, even for the one id it took.
  const summarized = (run.size > 1 || run.tally.otherShards > 0) && !(run.quiet && run.tally.firstFailure === undefined);
  const exit = closingLines(run, summarized, io);
  // Last, after the advice: what a script reads with `tail -n 1`, the counts the journal's readers give.
  if (run.json && summarized) io.err(JSON.stringify(summaryObject(run)));
  return exit;
}

/**
 * The summary as data, in the words `journal status --json` uses for the same states: `inFlight`
 * is not `failed`, and a count is never guessed (every one here is the run's own, known exactly).
 */
export function summaryObject<R>(run: RunClosing<R>): { summary: Record<string, number | string | null> } {
  const { tally } = run;
  const { states } = tally;
  // Each state the operation declares, under its key, in this order; no other.
  const counts: Record<string, number> = { [states.done.key]: tally.done };
  if (states.absent !== undefined) counts[states.absent.key] = tally.absent;
  counts[states.failed.key] = tally.failed;
  if (states['in-flight'] !== undefined) counts[states['in-flight'].key] = tally.inFlight;
  counts[states['not-sent'].key] = tally.notSent;
  counts[states.skipped.key] = tally.skipped;
  return {
    summary: {
      ...counts,
      otherShards: tally.otherShards,
      shard: run.shard ?? null,
      // How the run ended, in the journal's word (`finished`, `SIGINT`, `max-duration`…).
      ended: run.stop.ending(run.signal),
      seconds: Math.round(run.elapsedMs / 100) / 10,
    },
  };
}

function closingLines<R>(run: RunClosing<R>, summarized: boolean, io: IO): ExitCode {
  const { tally, words } = run;
  if (summarized) io.err(summaryLine(tally, run.elapsedMs, run.stats, run.journal, run.ceiling, run.shard));
  if (run.afterSummary !== undefined) io.err(run.afterSummary);
  if (run.signal.aborted) {
    const again = run.journal ? 'run the same command again to resume' : words.finishWithoutJournal(run.profile);
    io.err(`interrupted: ${doneOf(run)} before the interrupt; the rest were not, or may not have been: ${again}`);
    return Exit.interrupted;
  }
  // Stopped at the time set, with ids left: exit 10 says "go on", over a failing id's code, which the next run retries.
  if (run.stop.kind === 'max-duration' && tally.notSent + tally.failed + tally.inFlight > 0 && run.maxDuration !== undefined) {
    const again = run.journal ? 'run the same command again to go on' : words.finishWithoutJournal(run.profile);
    const { states } = tally;
    const failed = tally.failed > 0 ? `${tally.failed} ${states.failed.word}, ` : '';
    const inFlightWord = states['in-flight']?.word;
    const inFlight = tally.inFlight > 0 && inFlightWord !== undefined ? `${tally.inFlight} ${inFlightWord}, ` : '';
    io.err(
      `stopped at --max-duration ${run.maxDuration}: ${doneOf(run)}, ${failed}${inFlight}${tally.notSent} ${states['not-sent'].word}: ${again}`,
    );
    return Exit.stoppedAtTime;
  }
  // A journal that stopped recording is a lost result, as a full disk on stdout is.
  return tally.firstFailure ?? Exit.ok;
}

/**
 * `399 of 5000 deleted`; a resumed run whose earlier runs deleted some says both, as the journal
 * knows them: `399 deleted by this run, 811 of 5000 in all` (a resumed run's own count alone reads
 * as the job's, and understates it).
 */
function doneOf<R>(run: RunClosing<R>): string {
  const { tally } = run;
  const done = tally.states.done.word;
  const earlier = run.skippedDone ?? 0;
  if (earlier === 0) return `${tally.done} of ${run.size} ${done}`;
  return `${tally.done} ${done} by this run, ${tally.done + earlier} of ${run.size} in all`;
}
