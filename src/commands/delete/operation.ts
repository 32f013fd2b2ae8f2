// `delete` as the batch engine sees it: the request, how its outcome becomes a result, how a
// result is printed and journaled, and the words of its summary.

import { journalWordsFrom } from '../../engine/journal-words.js';
import type { Operation, Results } from '../../engine/operation.js';
import { Exit } from '../../errors.js';
import { plantPath } from '../plants/shared/path.js';
import { ApiWitness } from './api-witness.js';
import { DESTRUCTIVE } from './flags.js';
import { describeAttempt, explainOutcome, type MissingRule } from './outcomes.js';
import { resultJson, resultLine } from './report.js';
import { type DeleteRun, deletePlant } from './request.js';
import { ResendWatch } from './resend-watch.js';
import { type DeleteResult, notSent, skippedEarlier } from './result.js';

export const DELETE_RESULTS: Results<DeleteResult> = {
  // Every state there is, in the words delete's summary has always used (scripts match them).
  states: {
    done: { word: 'deleted', key: 'deleted' },
    absent: {
      word: 'already absent',
      key: 'absent',
      afterUncertain: (count) => `${count} after a request whose answer was lost: it may have deleted them`,
    },
    failed: { word: 'failed', key: 'failed' },
    'in-flight': { word: 'in flight', key: 'inFlight', note: 'sent with no decided answer: they may be deleted' },
    'not-sent': { word: 'not sent', key: 'notSent' },
    skipped: { word: 'skipped (journal)', key: 'skipped' },
  },
  kindOf(result) {
    if (result.journal) return 'skipped';
    if (result.deleted) return 'done';
    if (result.absent) return 'absent';
    return result.attempted ? (result.uncertain ? 'in-flight' : 'failed') : 'not-sent';
  },
  asInFlight: (result) => ('attempted' in result && result.attempted ? { ...result, uncertain: true } : result),
  exitOf: (result) => ('exit' in result ? result.exit : undefined),
  withExit: (result, exit) => ('exit' in result ? { ...result, exit } : result),
  afterUncertain: (result) => 'after' in result && result.after !== undefined,
  tokenRefused: (result) => 'attempted' in result && result.attempted === true && result.exit === Exit.auth,
  // A base URL that has never answered as the API, answering with a page or the same 2xx twice: the rest would meet the same.
  stopsRun: (result) =>
    'stopsRun' in result && result.stopsRun !== undefined ? { message: result.stopsRun, exit: Exit.server } : undefined,
  notSent,
  skipped: skippedEarlier,
  journalDetails: (result) =>
    'message' in result ? { status: result.status, error: result.error, message: result.message } : { status: result.status },
  json: resultJson,
  line: resultLine,
};

/** The command that runs it, and the name its journals' headers give (format 1 and 2 headers give none: delete's). */
const DELETE_COMMAND = 'delete';

/** `journal status` words delete's journals as it always has: a row `absent` (not `already absent`), and what an id in flight may be. */
export const DELETE_JOURNAL_WORDS = journalWordsFrom(DELETE_RESULTS.states, {
  absent: { word: 'absent', key: 'absent' },
  inFlight: { word: 'in flight', key: 'inFlight', note: 'sent with no decided answer: the plant may be deleted' },
});

/** The delete operation, with what the user said "no such plant" looks like: one per run (what the run has seen of the base URL). */
export function deleteOperation(missing: MissingRule): Operation<DeleteResult> {
  const run: DeleteRun = { missing, witness: new ApiWitness() };
  const resends = new ResendWatch(missing);
  return {
    destructive: DESTRUCTIVE,
    // HTTP's idempotent DELETE: sent again after a lost answer, the plant is as deleted as once (outcomes.ts says what "no such plant" then means).
    repeatable: true,
    request: (id) => ({ method: 'DELETE', path: plantPath(id) }),
    send: async (transport, id, interrupt, uncertainEarlier) => {
      const started = performance.now();
      const outcome = await deletePlant(transport, id, interrupt, run);
      const result = explainOutcome(outcome, missing, uncertainEarlier);
      // Said where it happens, on the failure line of the id that makes it likely.
      const resent = resends.note(outcome, result, performance.now() - started);
      return resent === undefined || !('message' in result) ? result : { ...result, message: `${result.message}; ${resent}` };
    },
    results: DELETE_RESULTS,
    describeAttempt,
    words: {
      verb: 'delete',
      command: DELETE_COMMAND,
      doing: 'deleting',
      finishWithoutJournal: (profile) => finishWithoutJournal(missing, profile),
    },
  };
}

/**
 * How to finish a batch run without a journal: again, with the plants already deleted counted
 * done. Said in this target's own words for "no such plant" (the code declared for it, which a
 * 404 Error object joins), or how to declare it, never a status the target may not use; and
 * --journal for next time, which needs none of this.
 */
function finishWithoutJournal(missing: MissingRule, profile: string): string {
  const profileFlag = profile === 'default' ? '' : `--profile ${profile} `;
  const run =
    missing.codes.length > 0
      ? `run it again with --ignore-missing to finish (the plants deleted already answer error ${missing.codes.join(' or ')}, this target's "no such plant")`
      : `run it again with --ignore-missing --missing-error CODE to finish, CODE being the API's error code for "no such plant" (a 404 Error object counts without it)`;
  return `${run}; next time, give it a --journal FILE (plantstore ${profileFlag}delete --journal FILE …) to resume with the same command`;
}
