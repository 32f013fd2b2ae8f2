// How `plantstore delete` words what the transport reports. The HTTP layer hands back
// data (http/outcome.ts) and knows nothing of the command line; the sentences any command
// would say are in ui/transport-words.ts, and those only a deletion can say are here.

import { Exit, type ExitCode, exitForSignal } from '../../errors.js';
import { exitOfNotSent, verdictOf } from '../../http/classify.js';
import type { FailedAttempt, NotSentReason } from '../../http/outcome.js';
import { describeFailed, describeNotSent, describeTransportFailure } from '../../ui/transport-words.js';
import type { PlantOutcome } from './request.js';
import { type Deleted, type DeleteResult, type Failed, type NotDeleted, type NotSent, notSent } from './result.js';

/** How the user said "no such plant" looks (--missing-error), and whether it counts as done (--ignore-missing). */
export interface MissingRule {
  codes: readonly number[];
  ignore: boolean;
}

const LOST_ANSWER_NOTE = 'it may already have been deleted by an earlier attempt whose answer was lost';

const CHECK_BASE_URL = 'nothing says the plant was deleted: check the base URL (plantstore auth status)';

/** One attempt's failure in a sentence: the line printed for an id, and the --verbose trace of each attempt. */
export function describeAttempt(attempt: FailedAttempt): string {
  switch (attempt.kind) {
    case 'api-error':
      return attempt.message;
    case 'web-page':
      return attempt.title
        ? `the server answered ${attempt.status} with a web page ("${attempt.title}"), not the API; ${CHECK_BASE_URL}`
        : `the server answered ${attempt.status} with a web page, not the API; ${CHECK_BASE_URL}`;
    case 'redirect':
      // A conditional answer to a request that had no condition: nothing was deleted.
      if (attempt.status === 304) return 'the server answered 304 Not Modified, which makes no sense for a DELETE';
      return describeTransportFailure(attempt);
    case 'interrupted':
      return attempt.status === undefined
        ? 'interrupted while waiting for the answer; the server may or may not have deleted it'
        : `interrupted while the server was sending a ${attempt.status} answer`;
    default:
      return describeTransportFailure(attempt);
  }
}

/** An id that was never sent: its message and exit code, also for ids the command itself stopped before sending. */
export function whyNotSent(reason: NotSentReason): { message: string; exit: ExitCode } {
  return { message: describeNotSent(reason), exit: exitOfNotSent(reason) };
}

/**
 * An id interrupted by a signal says the code the process ends with (130, 143 or 129), not
 * Ctrl-C's for all three: a script reading --json sees one code for one event.
 */
export function signalExit<Result extends DeleteResult>(result: Result, interrupt: AbortSignal): Result {
  if (!interrupt.aborted || !('exit' in result) || result.exit !== Exit.interrupted) return result;
  return { ...result, exit: exitForSignal(interrupt.reason) };
}

/** What became of an id, as printed, before --missing-error and --ignore-missing are applied. */
export function describeOutcome(outcome: PlantOutcome): Deleted | NotDeleted {
  switch (outcome.kind) {
    case 'deleted':
      return { id: outcome.id, deleted: true, status: outcome.status };
    case 'not-sent': {
      const { message, exit } = whyNotSent(outcome.reason);
      return notSent(outcome.id, message, exit) satisfies NotSent;
    }
    case 'failed': {
      const { last } = outcome;
      return {
        id: outcome.id,
        deleted: false,
        status: last.status ?? null,
        error: last.kind === 'api-error' ? last.code : null,
        message: describeFailed(outcome, describeAttempt),
        // Interrupted before its next attempt: that answer was not final, and the id says the signal's code (signalExit).
        exit: outcome.stopped?.kind === 'interrupted-awaiting-token' ? Exit.interrupted : verdictOf(last).exit,
        attempted: true,
      } satisfies Failed;
    }
  }
}

/**
 * "No such plant" only when the API says so: a 404 with the spec's Error object, or
 * a 400 Error object whose code the user declared (--missing-error). A 404 with any
 * other body is a route the server does not have, most likely a wrong base URL.
 * An answer cut short is not the API's word either way: it is a network failure, and says so.
 *
 * `inFlightEarlier`: the --journal says an earlier run's request for this id was in flight
 * when that run stopped. "No such plant" then means that request deleted it: done, said apart
 * from a deletion of this run's, whether or not the run ignores missing plants.
 */
export function explainOutcome(outcome: PlantOutcome, missing: MissingRule, inFlightEarlier = false): DeleteResult {
  const result = describeOutcome(outcome);
  if (outcome.kind !== 'failed' || outcome.last.kind !== 'api-error' || result.deleted) return result;
  const { last } = outcome;
  const saidMissing = last.code !== null && (last.status === 404 || (last.status === 400 && missing.codes.includes(last.code)));
  if (saidMissing && inFlightEarlier) return { id: outcome.id, deleted: true, status: last.status, earlierRun: true };
  if (saidMissing) {
    if (missing.ignore) {
      return {
        id: outcome.id,
        deleted: false,
        absent: true,
        status: last.status,
        ...(outcome.earlierAnswerLost ? { note: LOST_ANSWER_NOTE } : {}),
      };
    }
    return outcome.earlierAnswerLost ? { ...result, message: `${result.message}; ${LOST_ANSWER_NOTE}` } : result;
  }
  if (last.status === 404) {
    return {
      ...result,
      message: `${result.message}; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status)`,
    };
  }
  if (inFlightEarlier && last.status === 400 && last.code !== null) {
    // The one answer that could settle it is a code nobody declared: say how to declare it.
    return {
      ...result,
      message: `${result.message}; its request was in flight when the earlier run stopped: if error ${last.code} means "no such plant", run again with --missing-error ${last.code}`,
    };
  }
  return result;
}
