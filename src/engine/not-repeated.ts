// An operation that is not repeatable (operation.ts `repeatable`: a request whose answer was lost
// may not go again) is not sent again by a later run of its --journal for an id an earlier run left
// in flight: that request may have been carried out. The rule is the engine's, read from the
// operation's own word, as the transport reads it for a retry within a run: one meaning of
// `repeatable`, and no operation has to remember it in its `send`.

import { EXIT_CODE_HELP, Exit, type ExitCode } from '../errors.js';
import type { Operation, Results } from './operation.js';

const CODES: ReadonlySet<number> = new Set(EXIT_CODE_HELP.map(([code]) => code));
/** 128 + a signal's number: the codes of a run a signal ended (errors.ts exitForSignal). */
const SIGNAL_CODES = 128;

/** Refuses, before a run begins, an operation that is not repeatable and cannot say an id is held back (a bug of the operation's). */
export function checkNotRepeatable(op: Pick<Operation<unknown>, 'repeatable' | 'results' | 'words'>): void {
  if (!op.repeatable && op.results.notRepeated === undefined) {
    throw new Error(`operation ${op.words.command} is not repeatable, and its results give no notRepeated: it cannot run with a --journal`);
  }
}

/**
 * The result for such an id: in flight, as the journal counts it. Its exit code is the one the
 * earlier run's record of it carries when that names what happened to the request (a timeout's 8,
 * a reset's 7). A signal's code (129, 130, 143) names what happened to that run, and this run was
 * not signalled: a script reading 143 would think it was. Then, or with no record (a sent line with
 * no result after it: the run was killed), 7, the code of a request whose answer was lost on the way.
 */
export function notRepeated<R>(results: Results<R>, id: string, verb: string, earlierExit: number | undefined): R {
  if (results.notRepeated === undefined) throw new Error(`${verb}: not repeatable, and no Results.notRepeated`);
  const ofRequest = earlierExit !== undefined && CODES.has(earlierExit) && earlierExit !== Exit.ok && earlierExit < SIGNAL_CODES;
  const exit = ofRequest ? (earlierExit as ExitCode) : Exit.network;
  const message = `not sent again: an earlier run's request may have been carried out, and ${verb} is not repeatable (check plant ${id}; to send it anyway, run it without this journal)`;
  return results.notRepeated(id, message, exit);
}
