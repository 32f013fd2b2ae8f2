// How `plantstore delete` words what the transport reports. The HTTP layer hands back
// data (http/outcome.ts) and knows nothing of the command line; the sentences, and the
// flags they point to (--timeout, --cacert, --max-retry-wait), are written here.

import { type Deleted, type DeleteResult, type Failed, type NotDeleted, type NotSent, notAttempted } from '../../batch/result.js';
import { Exit, type ExitCode } from '../../errors.js';
import { verdictOf } from '../../http/classify.js';
import { statusText } from '../../http/error-body.js';
import type { FailedAttempt, NetworkFailure, PlantOutcome, Route, Stop } from '../../http/outcome.js';
import { formatSeconds } from '../../http/retry.js';

/** How the user said "no such plant" looks (--missing-error), and whether it counts as done (--ignore-missing). */
export interface MissingRule {
  codes: readonly number[];
  ignore: boolean;
}

type NotSentReason = Extract<PlantOutcome, { kind: 'not-sent' }>['reason'];

const NETWORK_WORDS: Readonly<Record<NetworkFailure, string>> = {
  refused: 'connection refused',
  reset: 'connection reset before a complete answer',
  'closed-while-sending': 'connection closed while sending',
  'host-not-found': 'host not found (DNS)',
  'lookup-failed': 'host lookup failed (DNS), try again',
  'host-unreachable': 'host unreachable',
  'network-unreachable': 'network unreachable',
  closed: 'connection closed before a complete answer',
  'proxy-closed': 'the proxy closed the connection',
  'short-body': 'the answer was shorter than announced',
  'stream-refused': 'the server refused the HTTP/2 stream before processing it',
  'stream-reset': 'the server reset the HTTP/2 stream before a complete answer',
  'session-closed': 'the server closed the HTTP/2 connection with an error before a complete answer',
};

// One wording for every body cut short: whether it shows as a reset or a close depends on
// the Node version and on timing, not on anything the user could act on differently.
const BODY_CUT = 'connection reset or closed';

const LOST_ANSWER_NOTE = 'it may already have been deleted by an earlier attempt whose answer was lost';

/** One attempt's failure in a sentence: the line printed for an id, and the --verbose trace of each attempt. */
export function describeAttempt(attempt: FailedAttempt): string {
  switch (attempt.kind) {
    case 'api-error':
      return attempt.message;
    case 'redirect':
      return describeRedirect(attempt.status, attempt.location);
    case 'web-page':
      return attempt.title
        ? `the server answered ${attempt.status} with a web page ("${attempt.title}"), not the API; nothing says the plant was deleted: check the base URL (plantstore auth status)`
        : `the server answered ${attempt.status} with a web page, not the API; nothing says the plant was deleted: check the base URL (plantstore auth status)`;
    case 'timeout': {
      const what =
        attempt.phase === 'body'
          ? `the ${attempt.status} answer from ${where(attempt)} was not complete`
          : attempt.phase === 'connect'
            ? `could not connect to ${where(attempt)}`
            : `no complete answer from ${where(attempt)}`;
      return `${what} within ${formatSeconds(attempt.ms)} (timeout; raise it with --timeout)`;
    }
    case 'body-cut':
      return `${BODY_CUT} while the server was sending a ${attempt.status} answer (${where(attempt)})`;
    case 'network':
      return `${NETWORK_WORDS[attempt.what]} (${where(attempt)})`;
    case 'proxy-unreachable':
      return `${NETWORK_WORDS[attempt.what]} by proxy ${attempt.via} (while reaching ${attempt.host})`;
    case 'proxy-refused':
      return `proxy ${attempt.via} refused to connect to ${attempt.host} (HTTP ${attempt.connectStatus} to CONNECT)`;
    case 'tls': {
      // Node's own advice (--use-system-ca) is about Node's flags; ours is --cacert.
      const reason = said(attempt.reason).replace(/;\s*if the root CA is installed locally.*$/i, '');
      return `TLS failure talking to ${where(attempt)}: ${reason} (trust a private CA with --cacert)`;
    }
    case 'malformed':
      return `malformed HTTP answer from ${where(attempt)}${attempt.headersTooLarge ? ': headers too large' : ''}`;
    case 'not-loopback':
      return `refusing to send the token over plain http: ${said(attempt.reason)}`;
    case 'interrupted':
      return attempt.status === undefined
        ? 'interrupted while waiting for the answer; the server may or may not have deleted it'
        : `interrupted while the server was sending a ${attempt.status} answer`;
    case 'failed':
      return `request to ${where(attempt)} failed: ${said(attempt.reason)}`;
  }
}

function describeRedirect(status: number, location: string | undefined): string {
  // A conditional answer to a request that had no condition: nothing was deleted.
  if (status === 304) return 'the server answered 304 Not Modified, which makes no sense for a DELETE';
  if (location !== undefined) {
    // Following it would hand the bearer token to wherever the server points.
    return `the server redirected to ${location}; redirects are not followed so the token stays with the base URL you chose, so fix the base URL`;
  }
  const known = statusText(status);
  const named = known === `HTTP status ${status}` ? `HTTP ${status}` : `${status} ${known}`;
  return `the server answered ${named} without a Location`;
}

function where(route: Route): string {
  return route.via === undefined ? route.host : `${route.host} via proxy ${route.via}`;
}

/** A lower layer's words, or a stand-in when it had none. */
function said(reason: string): string {
  return reason || 'unknown error';
}

/** Why attempts ended before --retries ran out, said after the last attempt's failure. */
function stopNote(stop: Stop): string {
  return stop.kind === 'retry-after-too-long'
    ? `; the server asked to retry after ${formatSeconds(stop.retryAfterMs)}, longer than --max-retry-wait ${formatSeconds(stop.maxRetryWaitMs)}`
    : `; ${stop.reason}, so it was not tried again`;
}

/** An id that was never sent: its message and exit code, also for ids the command itself stopped before sending. */
export function whyNotSent(reason: NotSentReason): { message: string; exit: ExitCode } {
  return reason.kind === 'interrupted'
    ? { message: 'not sent: interrupted before its turn', exit: Exit.interrupted }
    : // A server that refuses everything for that long is failing, as a 503 is.
      { message: `not sent: ${reason.reason}`, exit: Exit.server };
}

/** What became of an id, as printed, before --missing-error and --ignore-missing are applied. */
export function describeOutcome(outcome: PlantOutcome): Deleted | NotDeleted {
  switch (outcome.kind) {
    case 'deleted':
      return { id: outcome.id, deleted: true, status: outcome.status };
    case 'not-sent': {
      const { message, exit } = whyNotSent(outcome.reason);
      return notAttempted(outcome.id, message, exit) satisfies NotSent;
    }
    case 'failed': {
      const { last } = outcome;
      const stop = outcome.stopped === undefined ? '' : stopNote(outcome.stopped);
      const attempts = outcome.attempts > 1 ? ` (after ${outcome.attempts} attempts)` : '';
      return {
        id: outcome.id,
        deleted: false,
        status: last.status ?? null,
        error: last.kind === 'api-error' ? last.code : null,
        message: `${describeAttempt(last)}${stop}${attempts}`,
        exit: verdictOf(last).exit,
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
 */
export function explainOutcome(outcome: PlantOutcome, missing: MissingRule): DeleteResult {
  const result = describeOutcome(outcome);
  if (outcome.kind !== 'failed' || outcome.last.kind !== 'api-error' || result.deleted) return result;
  const { last } = outcome;
  const saidMissing = last.code !== null && (last.status === 404 || (last.status === 400 && missing.codes.includes(last.code)));
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
  return result;
}
