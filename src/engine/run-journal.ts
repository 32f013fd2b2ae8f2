// `--journal FILE`: a batch's side of a resumable batch. The journal itself (format,
// lock, durable writes) is batch/journal/; here is what a batch does with it: skip the ids an
// earlier run finished, record each id before its request leaves and each result as soon as
// it is decided, tell which ids an earlier run left in flight, and stop the run when the
// journal can no longer be written, rather than go on without a record. What is recorded is the
// engine's: each result's kind (operation.ts ResultKind) and the operation's details of it, under
// the operation's name, never a command's --json line.

import { type Journal, type JournalState, openJournal, readJournalForPlan } from '../batch/journal/index.js';
import type { JournalRecord } from '../batch/journal/records.js';
import { endLine, idPrint, outstanding, type RunEnding, startLine } from '../batch/journal/run-record.js';
import type { Target } from '../config/resolve.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode } from '../errors.js';
import type { IdList } from '../ids/list.js';
import type { Mask } from '../text/secret-mask.js';
import { shown } from '../text/shown.js';
import type { JournalPlan } from './dry-run.js';
import { headerMask, journalIdentity, type RunJournalOptions } from './journal-identity.js';
import { checkNotRepeatable, notRepeated } from './not-repeated.js';
import type { Operation, Results } from './operation.js';

export type { RunJournalOptions } from './journal-identity.js';

/**
 * The run's journal. Where the operation's ids carry values (a rename's names), each id is asked
 * with its own (the run's map): done only with the value it was done with, in flight only for it.
 */
export interface RunJournal<R> {
  /**
   * The result the journal gives `id` without sending it, undefined when it is to be sent: `skipped`
   * for an id an earlier run decided (done, or absent); in flight for one an earlier run left in
   * flight, when the operation is not repeatable (not-repeated.ts). Asked once per id of the run.
   */
  fromJournal(id: string): R | undefined;
  /** Of the ids skipped, those the journal records as `done` (not absent): a stop's line counts them with the run's own. */
  skippedDone(): number;
  /** Whether an earlier run decided `id` (done, or absent): it is not sent again. */
  isDone(id: string): boolean;
  /** Whether the journal records every one of `ids` as done: then nothing is to be sent. */
  allDone(ids: IdList): boolean;
  /** Whether an earlier run's request for `id` was in flight when that run stopped (it may have been carried out). */
  wasInFlight(id: string): boolean;
  /** Writes that `id` is being sent, before its request leaves; false when the journal cannot be written (then it must not be sent). */
  recordSent(id: string): boolean;
  /** Appends this run's result for `id`, in the order results are decided. */
  record(id: string, result: R): void;
  /** The run begins sending `ids` (read to the end, its shard's part): its start line (run-record.ts). */
  begin(ids: IdList): void;
  /** `id` is not sent by this run (a stop): counted for the end line, never a line of its own. */
  notSent(id: string): void;
  /** How the run ended: its end line, with what it did not send. */
  end(ending: RunEnding): void;
  /** Why the run must stop: the journal could not be written. Undefined while it can. */
  stopReason(): { message: string; exit: ExitCode } | undefined;
  /** Flushes and closes; the failure, if writing failed at any point, as the run's closing line (what next, and the exit code). */
  close(): string | undefined;
}

/**
 * Opens (or starts) the journal for `op`'s run against `target`; refuses, before anything is sent,
 * one that is not this run's (another operation's, another target's, ids with values or without...).
 * `values`: each id's, when the operation's ids carry one.
 */
export async function openRunJournal<R>(
  file: string,
  target: Target,
  opts: RunJournalOptions,
  ctx: Context,
  op: Pick<Operation<R>, 'results' | 'words' | 'value' | 'repeatable'>,
  values?: ReadonlyMap<string, string>,
): Promise<RunJournal<R>> {
  const { verbose } = opts;
  const { results } = op;
  checkNotRepeatable(op);
  const journal = await openJournal(file, { ...journalIdentity(target, opts, op, headerMask(ctx)), signal: ctx.signal });
  const valueFor = (id: string): string | undefined => values?.get(id);
  if (journal.note) ctx.io.err(journal.note);
  // A signal ends the run within a second; what was decided before it reaches the disk first.
  const flushOnSignal = (): void => {
    try {
      journal.flush();
    } catch {
      // Reported by close(), with the rest.
    }
  };
  ctx.signal.addEventListener('abort', flushOnSignal, { once: true });
  const run = new RunCounts();
  // A run line is only written while the journal can be: after a failure (a full disk, a lost lock) the journal ends without one.
  const writeRun = (line: string): void => {
    if (journal.failure !== undefined) return;
    try {
      journal.recordRun(line);
    } catch {
      // journal.failure says why; close() reports it.
    }
  };
  return {
    begin(ids) {
      run.ids = ids.size;
      run.carry(journal, ids);
      writeRun(startLine({ started: new Date().toISOString(), ids: ids.size }));
    },
    notSent(id) {
      run.notSent++;
      if (journal.recorded(id) !== undefined) return;
      run.unrecorded++;
      run.sum = (run.sum + idPrint(id)) >>> 0;
    },
    end(ending) {
      if (run.ids === undefined || run.ended) return;
      run.ended = true;
      writeRun(endLine({ ending, ids: run.ids, notSent: run.notSent, ...run.left(), readAll: true }));
    },
    fromJournal(id) {
      const kind = journal.recorded(id);
      if (kind === undefined) return undefined;
      const value = valueFor(id);
      // Ids alone (delete's million-id resume): the kind says it all, with no second look-up.
      if ((kind === 'done' || kind === 'absent') && (values === undefined || journal.isDone(id, value))) {
        if (kind === 'done') run.skippedDone++;
        return results.skipped(id, kind);
      }
      if (op.repeatable || !journal.wasInFlight(id, value)) return undefined;
      return notRepeated(results, id, op.words.verb, journal.earlierExit(id));
    },
    skippedDone: () => run.skippedDone,
    isDone: (id) => journal.isDone(id, valueFor(id)),
    allDone(ids) {
      const { done, absent } = journal.counts();
      // Counted first: a run with ids left to send is not slowed by asking about each.
      if (done + absent < ids.size) return false;
      for (const id of ids) if (!journal.isDone(id, valueFor(id))) return false;
      return true;
    },
    wasInFlight: (id) => journal.wasInFlight(id, valueFor(id)),
    recordSent(id) {
      if (journal.failure !== undefined) return false;
      try {
        journal.recordSent(id, valueFor(id));
        return true;
      } catch {
        return false; // journal.failure says why; stopReason() words it
      }
    },
    record(id, result) {
      const record = journalRecord(results, result, ctx.io.mask);
      if (record === undefined) return;
      // Its sent line was written, then the stop kept its request from leaving: a not-sent line names it.
      if (record.state === 'not-sent') run.notSent++;
      if (journal.failure === undefined) journal.record(id, record, valueFor(id));
    },
    stopReason: () =>
      journal.failure === undefined
        ? undefined
        : { message: `not sent: ${failureSentence(journal, verbose)}, so nothing more is sent`, exit: Exit.internal },
    close() {
      ctx.signal.removeEventListener('abort', flushOnSignal);
      // Begun and never ended: the batch threw. Its counts cannot be vouched for.
      if (run.ids !== undefined && !run.ended) writeRun(endLine({ ending: 'error' }));
      try {
        journal.close();
      } catch {
        // journal.failure says what went wrong.
      }
      const { failure } = journal;
      return failure === undefined
        ? undefined
        : `${failureSentence(journal, verbose)}; results after that are not recorded in it; ${failure.advice} (exit ${Exit.internal})`;
    },
  };
}

/** What the run's end line counts. */
class RunCounts {
  /** Its ids, once it began sending. */
  ids: number | undefined;
  notSent = 0;
  /** Ids the journal records as done, as skipped() met them. */
  skippedDone = 0;
  /** Of those not sent, the ids no line of the journal names, and their fingerprint (run-record.ts idPrint). */
  unrecorded = 0;
  sum = 0;
  /** Ids the last run left with no line that this run's list does not hold; null when it cannot tell. */
  earlier: number | null = 0;
  earlierSum: number | undefined = 0;
  ended = false;

  /**
   * What an earlier stop left with no line, carried on: a retry of `journal failed` into the same
   * journal must not make the job look finished. This run's ids that no line names are those
   * ids exactly when they are as many and have the same fingerprint; none of them, and it holds
   * none. Anything else it cannot tell. Asked only after such a stop: one pass over the ids.
   */
  carry(journal: JournalState, ids: IdList): void {
    const last = journal.lastRun;
    if (last.kind !== 'ended') return;
    const count = outstanding(last.end);
    if (count === 0) return;
    let fresh = 0;
    let sum = 0;
    for (const id of ids) {
      if (journal.recorded(id) !== undefined) continue;
      fresh++;
      sum = (sum + idPrint(id)) >>> 0;
    }
    const priorSum = last.end.sum === undefined ? undefined : Number.parseInt(last.end.sum, 16);
    if (fresh === 0) {
      this.earlier = count ?? null;
      this.earlierSum = priorSum;
    } else if (count === undefined) {
      // The earlier run could not tell either: this run's list is taken as the job's, as before runs counted.
      this.earlier = 0;
    } else {
      this.earlier = fresh === count && sum === priorSum ? 0 : null;
    }
  }

  /** The end line's counts of ids left with no line, and their fingerprint when known. */
  left(): { unrecorded: number; earlier: number | null; sum?: string } {
    const { unrecorded, earlier } = this;
    if (earlier === null) return { unrecorded, earlier };
    const total = (this.sum + (earlier === 0 ? 0 : (this.earlierSum ?? Number.NaN))) >>> 0;
    const known = earlier === 0 || this.earlierSum !== undefined;
    return unrecorded + earlier === 0 || !known
      ? { unrecorded, earlier }
      : { unrecorded, earlier, sum: total.toString(16).padStart(8, '0') };
  }
}

/**
 * The journal's record of a result: its kind, as the engine counts it, and the operation's details
 * of it, a failure's message masked (journals travel as CI artifacts). Undefined for `skipped`: an id
 * an earlier run decided is not recorded again.
 */
function journalRecord<R>(results: Results<R>, result: R, mask: Mask): JournalRecord | undefined {
  const state = results.kindOf(result);
  if (state === 'skipped') return undefined;
  const { status, error, message } = results.journalDetails(result);
  if (state === 'done' || state === 'absent') return { state, status };
  return { state, status, error: error ?? null, message: mask(message ?? ''), exit: results.exitOf(result) ?? Exit.internal };
}

/** What went wrong, in words; the errno (ENOSPC) only with --verbose, as for an error that ends a run. */
function failureSentence(journal: Journal, verbose: boolean): string {
  const failure = journal.failure;
  const code = verbose && failure?.detail !== undefined ? ` (${failure.detail})` : '';
  return `the journal ${shown(journal.file)} could not be written: ${failure?.why ?? 'unknown error'}${code}`;
}

/**
 * For --dry-run of `op`: what the journal would skip (an id with a value: done with that value) or
 * hold back (not-repeated.ts), read without locking or writing anything; refused as a run would refuse it.
 */
export async function planFromJournal(
  file: string,
  target: Target,
  opts: RunJournalOptions,
  op: Pick<Operation<unknown>, 'words' | 'value' | 'repeatable'>,
  values: ReadonlyMap<string, string> | undefined,
  signal: AbortSignal,
): Promise<JournalPlan> {
  const plan = await readJournalForPlan(file, journalIdentity(target, opts, op), signal);
  return {
    ...plan,
    isDone: (id) => plan.isDone(id, values?.get(id)),
    ...(op.repeatable ? {} : { heldBack: (id: string) => plan.wasInFlight(id, values?.get(id)) }),
  };
}
