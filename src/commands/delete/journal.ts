// `delete --journal FILE`: the run's side of a resumable batch. The journal itself (format,
// lock, durable writes) is batch/journal/; here is what delete does with it: skip the ids an
// earlier run finished, record each result of this one as soon as it is decided, and stop
// the run when the journal can no longer be written, rather than go on without a record.

import { type Journal, type JournalState, openJournal, readJournalForPlan } from '../../batch/journal/index.js';
import type { Target } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { shown } from '../../text/shown.js';
import { resultJson } from './report.js';
import { type DeleteResult, type DoneEarlier, doneEarlier } from './result.js';

export interface RunJournal {
  /** The result for an id an earlier run finished (deleted, or absent under --ignore-missing); undefined when it is to be sent. */
  doneEarlier(id: string): DoneEarlier | undefined;
  /** Appends this run's result for an id, in the order results are decided. */
  record(result: DeleteResult): void;
  /** Why the run must stop: the journal could not be written. Undefined while it can. */
  stopReason(): { message: string; exit: ExitCode } | undefined;
  /** Flushes and closes; the failure, if writing failed at any point, as a sentence. */
  close(): string | undefined;
}

/** Opens (or starts) the journal for a run against `target`; refuses, before anything is sent, one that is not this run's. */
export async function openRunJournal(file: string, target: Target, ignoreMissing: boolean, ctx: Context): Promise<RunJournal> {
  const journal = await openJournal(file, { baseUrl: target.baseUrl, profile: target.profile, signal: ctx.signal });
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
  return {
    doneEarlier: (id) => (journal.isDone(id, { ignoreMissing }) ? doneEarlier(id) : undefined),
    record(result) {
      if (journal.failure === undefined) journal.record(result.id, resultJson(result, ctx.io.mask));
    },
    stopReason: () =>
      journal.failure === undefined
        ? undefined
        : { message: `not sent: ${failureSentence(journal)}, so nothing more is sent`, exit: Exit.internal },
    close() {
      ctx.signal.removeEventListener('abort', flushOnSignal);
      try {
        journal.close();
      } catch {
        // journal.failure says what went wrong.
      }
      return journal.failure === undefined ? undefined : failureSentence(journal);
    },
  };
}

function failureSentence(journal: Journal): string {
  return `the journal ${shown(journal.file)} could not be written (${journal.failure?.code ?? 'unknown error'})`;
}

/** For --dry-run: what the journal would skip, read without locking or writing anything. */
export function planFromJournal(file: string, target: Target, signal: AbortSignal): Promise<JournalState> {
  return readJournalForPlan(file, { baseUrl: target.baseUrl, profile: target.profile }, signal);
}
