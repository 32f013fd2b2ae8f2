// How `plantstore delete` words what the transport reports. The HTTP layer hands back
// data (http/outcome.ts) and knows nothing of the command line; the sentences any command
// would say are in ui/transport-words.ts, and those only a deletion can say are here.

import { whyNotSent } from '../../engine/not-sent.js';
import { classifyStatus, verdictOf } from '../../http/classify.js';
import type { FailedAttempt } from '../../http/outcome.js';
import {
  describeAttempt as describeAnyAttempt,
  describeFailed,
  describeNotProof,
  describeTransportFailure,
} from '../../ui/transport-words.js';
import { plantFailure } from '../plants/shared/failure.js';
import { saidMissing } from '../plants/shared/missing.js';
import { isFinalNotApi, type MissingRule, type PlantOutcome } from './request.js';
import { type Deleted, type DeleteResult, type Failed, type NotDeleted, type NotSent, notSent, type UncertainEarlier } from './result.js';

export type { MissingRule } from '../plants/shared/missing.js';

const SERVICE_AWAY = 'the service, which had answered as the API in this run, may be down behind a maintenance page or a catch-all';
const CHECK_BASE_URL = 'nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status)';

/** One attempt's failure in a sentence: the line printed for an id, and the --verbose trace of each attempt. */
export function describeAttempt(attempt: FailedAttempt): string {
  switch (attempt.kind) {
    case 'web-page':
    case 'not-api':
    case 'success-again':
      // Final: the base URL has never answered as the API in this run. Otherwise the service is away, as after a 502.
      return `${describeNotProof(attempt)}; ${attempt.final ? CHECK_BASE_URL : SERVICE_AWAY}`;
    case 'redirect':
      // A conditional answer to a request that had no condition: nothing was deleted.
      if (attempt.status === 304) return 'the server answered 304 Not Modified, which makes no sense for a DELETE';
      return describeTransportFailure(attempt);
    case 'interrupted':
      return attempt.status === undefined
        ? 'interrupted while waiting for the answer; the server may or may not have deleted it'
        : `interrupted while the server was sending a ${attempt.status} answer`;
    default:
      return describeAnyAttempt(attempt);
  }
}

/** What became of an id, as printed, before --missing-error and --ignore-missing are applied. */
export function describeOutcome(outcome: PlantOutcome): Deleted | NotDeleted {
  switch (outcome.kind) {
    case 'deleted':
      return { id: outcome.id, deleted: true, status: outcome.status, ...(outcome.confirmed ? { confirmed: true } : {}) };
    case 'not-sent': {
      const { message, exit } = whyNotSent(outcome.reason);
      return notSent(outcome.id, message, exit) satisfies NotSent;
    }
    case 'unconfirmed': {
      const { message, exit } = whyNotSent(outcome.reason);
      return {
        id: outcome.id,
        deleted: false,
        status: outcome.status,
        error: null,
        message: `${unconfirmed(outcome.status)}, and the DELETE that would confirm it was ${message}; ${UNCERTAIN_NOTE}`,
        exit,
        attempted: true,
        uncertain: true,
      } satisfies Failed;
    }
    case 'failed': {
      const { last } = outcome;
      const uncertain = isUncertain(outcome);
      const failure = describeFailed(outcome, describeAttempt);
      // The same 2xx twice says both answers at once.
      const message =
        outcome.confirming === undefined || last.kind === 'success-again'
          ? failure
          : `${unconfirmed(outcome.confirming)}; the DELETE sent again to confirm it: ${failure}`;
      return {
        // Said once: the words for a signal while waiting already say it.
        ...plantFailure(outcome.id, outcome, uncertain && !message.includes(MAY_OR_MAY_NOT) ? `${message}; ${UNCERTAIN_NOTE}` : message),
        deleted: false,
        ...(uncertain ? { uncertain: true } : {}),
        ...(isFinalNotApi(last) ? { stopsRun: wrongTargetStop(outcome.id, last) } : {}),
      } satisfies Failed;
    }
  }
}

/** A 2xx other than the spec's 204, before the DELETE sent again says whether it deleted the plant. */
function unconfirmed(status: number): string {
  return `the server answered ${status}, not the spec's 204, which proves nothing until the same DELETE sent again answers "no such plant"`;
}

/** Why the ids after a wrong target's answer are not sent: the same answer would come to each. */
function wrongTargetStop(id: string, last: Parameters<typeof describeNotProof>[0]): string {
  return `not sent: the base URL has not answered as the Plant Store API in this run (plant ${id}: ${describeNotProof(last)}); check the base URL with plantstore auth status`;
}

const MAY_OR_MAY_NOT = 'may or may not have deleted it';
const UNCERTAIN_NOTE = `the server ${MAY_OR_MAY_NOT}`;

/**
 * Whether the plant may have been deleted though no answer says so: an attempt reached the
 * server (or may have) and its answer was lost, and no later answer decided the matter. An API
 * Error object for a client error (a protected plant, say) is the API's word on this plant;
 * a 401, a 429 or a 5xx after a lost answer says nothing of what that lost attempt did.
 */
function isUncertain(outcome: Extract<PlantOutcome, { kind: 'failed' }>): boolean {
  const { last } = outcome;
  if (!outcome.earlierAnswerLost && !verdictOf(last).answerLost) return false;
  return !(last.kind === 'api-error' && last.code !== null && API_DECIDED.has(classifyStatus(last.status).kind));
}

/** The kinds of 4xx whose Error object is the API's answer about the plant, not about us or the load. */
const API_DECIDED: ReadonlySet<string> = new Set(['rejected', 'not-found']);

/**
 * "No such plant" only when the API says so: a 404 with the spec's Error object, or
 * a 400 Error object whose code the user declared (--missing-error). A 404 with any
 * other body is a route the server does not have, most likely a wrong base URL.
 * An answer cut short is not the API's word either way: it is a network failure, and says so.
 *
 * "No such plant" is never "deleted": only a 204, or a 2xx confirmed, to this run's own request proves that. It is
 * done (absent) under --ignore-missing, and always after an uncertain request of ours, which
 * may have deleted it: an attempt of this run whose answer was lost (`outcome.earlierAnswerLost`),
 * or, with `earlierRun`, a request of an earlier run that the --journal records as in flight,
 * interrupted or unanswered. Whether that request deleted it, or the plant never existed,
 * nobody can tell, and the result says so.
 */
export function explainOutcome(outcome: PlantOutcome, missing: MissingRule, earlierRun = false): DeleteResult {
  const result = describeOutcome(outcome);
  if (outcome.kind !== 'failed' || outcome.last.kind !== 'api-error' || result.deleted) return result;
  const { last } = outcome;
  if (saidMissing(last, missing.codes)) {
    const after: UncertainEarlier | undefined = earlierRun ? 'run' : outcome.earlierAnswerLost ? 'attempt' : undefined;
    if (after !== undefined || missing.ignore) {
      return { id: outcome.id, deleted: false, absent: true, status: last.status, ...(after === undefined ? {} : { after }) };
    }
    return result;
  }
  if (last.status === 404) {
    return {
      ...result,
      message: `${result.message}; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status)`,
    };
  }
  if ((earlierRun || outcome.earlierAnswerLost) && last.status === 400 && last.code !== null) {
    // The one answer that could settle it is a code nobody declared: say how to declare it.
    const whose = earlierRun ? 'its request was in flight when the earlier run stopped' : "an earlier attempt's answer was lost";
    return {
      ...result,
      message: `${result.message}; ${whose}: if error ${last.code} means "no such plant", run again with --missing-error ${last.code}`,
    };
  }
  return result;
}
