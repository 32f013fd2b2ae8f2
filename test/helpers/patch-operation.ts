// A third operation, in the test suite only (issue 42 item 6): a rename, PATCH /plants/{id} with
// a JSON body, each id carrying its new name (`42 Fern` on the command line, `42<TAB>Fern` on
// stdin). Whether an attempt whose answer was lost may go again is its own word (`repeatable`),
// not PATCH's: the engine puts it on every request it sends. Its results are the read
// operation's, in a rename's words, and one more: `in flight`, a PATCH whose answer was lost (it may
// have been done), which an operation that is not repeatable needs (the engine does not send such
// an id again in a later run of its --journal: Results.notRepeated).

import { notSentFor } from '../../src/commands/plants/shared/failure.js';
import { saidMissing } from '../../src/commands/plants/shared/missing.js';
import { plantPath } from '../../src/commands/plants/shared/path.js';
import type { Operation, Results } from '../../src/engine/operation.js';
import type { ExitCode } from '../../src/errors.js';
import { verdictOf } from '../../src/http/classify.js';
import { ERROR_BODY_BYTES } from '../../src/http/outcome.js';
import { describeFailed } from '../../src/ui/transport-words.js';
import { READ_OPERATION, READ_RESULTS, type ReadResult } from './read-operation.js';

/** A rename's result: a read's, or in flight (sent, its answer lost: the plant may be renamed). */
export type RenameResult = ReadResult | { id: string; kind: 'in-flight'; status: number | null; message: string; exit: ExitCode };

export const RENAME_RESULTS: Results<RenameResult> = {
  ...(READ_RESULTS as Results<RenameResult>),
  states: {
    ...READ_RESULTS.states,
    done: { word: 'renamed', key: 'renamed' },
    skipped: { word: 'renamed before (journal)', key: 'renamedBefore' },
    'in-flight': { word: 'in flight', key: 'inFlight', note: 'sent with no decided answer: they may be renamed' },
  },
  kindOf: (result) => (result.kind === 'in-flight' ? 'in-flight' : READ_RESULTS.kindOf(result)),
  asInFlight: (result) => (result.kind === 'failed' ? { ...result, kind: 'in-flight' } : result),
  notRepeated: (id, message, exit) => ({ id, kind: 'in-flight', status: null, message, exit }),
};

/** The body of a rename: the spec's plant fields, the name alone. */
const bodyOf = (name: string | undefined): string => JSON.stringify({ name });

/** The rename operation; `repeatable` says whether a PATCH whose answer was lost may be sent again. */
export function renameOperation(repeatable: boolean): Operation<RenameResult> {
  return {
    ...(READ_OPERATION as unknown as Operation<RenameResult>),
    destructive: false,
    repeatable,
    value: { name: 'name' },
    request: (id, name) => ({ method: 'PATCH', path: plantPath(id), body: bodyOf(name) }),
    async send(transport, id, interrupt, _uncertainEarlier, name) {
      // No `repeatable` here: the engine's transport adds the operation's.
      const outcome = await transport.send(
        { method: 'PATCH', path: plantPath(id), body: bodyOf(name), label: id, successBody: 'read', bodyLimitBytes: ERROR_BODY_BYTES },
        interrupt,
      );
      if (outcome.kind === 'ok') return { id, kind: 'read', status: outcome.status };
      if (outcome.kind === 'not-sent') {
        const { message, exit } = notSentFor(id, outcome.reason);
        return { id, kind: 'not-sent', message, exit };
      }
      if (saidMissing(outcome.last, [])) return { id, kind: 'not-found', status: 404 };
      const message = describeFailed(outcome, READ_OPERATION.describeAttempt);
      // Its answer lost (now, or an attempt before): the plant may be renamed.
      const kind = outcome.earlierAnswerLost || verdictOf(outcome.last).answerLost ? 'in-flight' : 'failed';
      return { id, kind, status: outcome.last.status ?? null, message, exit: verdictOf(outcome.last).exit };
    },
    results: RENAME_RESULTS,
    words: { verb: 'rename', command: 'rename', doing: 'renaming', finishWithoutJournal: () => 'run it again to rename the rest' },
  };
}
