// The one table of what an attempt's ending means: from an HTTP status, or from
// what the transport reported (an error code, which of our signals fired, whether
// an answer had begun), to its exit code, whether another attempt may end better,
// whether the request may have reached the server unanswered, and what it tells the
// throttle about the server's load. Everything else (the retry loop, the throttle's
// feedback, the exit code printed) asks here, so each fact is written down once.
//
// Kept free of undici and of node: modules: the throttle loads it on every run.

import { Exit, type ExitCode } from '../errors.js';
import type { FailedAttempt, NetworkFailure, NotSentReason, TimeoutPhase } from './outcome.js';

/**
 * What an answer tells the throttle: processed; refused for load ("not now"), either because
 * the run sends too fast (rate-limited: the throttle cuts its rate) or because the server has
 * too much in hand (overloaded: the throttle cuts the requests in flight); the service, or the
 * way to it, failing (a gateway's 502 or 504, a connection refused or reset: one is an id's bad
 * luck, many ids in a row an outage, throttle/outage.ts); or nothing about load.
 */
export type Load = LoadRefusal | 'failing' | 'ok' | 'neutral';
export type LoadRefusal = 'rate-limited' | 'overloaded';

/** A refusal for load: the request was not processed, and the throttle slows down. */
export function isLoadRefusal(load: Load): load is LoadRefusal {
  return load === 'rate-limited' || load === 'overloaded';
}

export interface Verdict {
  exit: ExitCode;
  /** Trying again may end better. */
  retryable: boolean;
  /** The request may have reached the server, though no complete answer came back. */
  answerLost: boolean;
  load: Load;
}

export type StatusKind = 'success' | 'redirect' | 'auth' | 'not-found' | 'refusal' | 'rejected' | 'server' | 'malformed';

export interface StatusVerdict extends Verdict {
  kind: StatusKind;
}

// Frozen: every caller gets the same row. An answer came, so as a rule nothing was lost: the
// server said what it did.
const row = (kind: StatusKind, exit: ExitCode, retryable: boolean, load: Load, answerLost = false): StatusVerdict =>
  Object.freeze({ kind, exit, retryable, answerLost, load });

/** The first range holding the status decides. */
const STATUSES: ReadonlyArray<readonly [from: number, to: number, verdict: StatusVerdict]> = [
  // The spec's success. Any other 2xx is proof of nothing until confirmed (the command's
  // second DELETE): it says nothing of load either, or a catch-all answering 200 would count
  // as the service working between the failures that make an outage.
  [204, 204, row('success', Exit.ok, false, 'ok')],
  [200, 299, row('success', Exit.ok, false, 'neutral')],
  // Never followed: the bearer token would go wherever the server points. A 304 lands here too.
  [300, 399, row('redirect', Exit.server, false, 'ok')],
  [401, 401, row('auth', Exit.auth, false, 'ok')],
  [403, 403, row('auth', Exit.auth, false, 'ok')],
  [404, 404, row('not-found', Exit.notFound, false, 'ok')],
  // "Not now" rather than "no": the request was not processed, and under a rate limit
  // refusals are how a run finds the server's pace.
  [429, 429, row('refusal', Exit.server, true, 'rate-limited')],
  [400, 499, row('rejected', Exit.apiRefused, false, 'ok')],
  // 500 usually means a bug, not load, so it is not retried; 502 and 504 are a gateway's
  // trouble, often passing: the service behind it failing. None of the three says we send too fast.
  // A 5xx says what failed, not what was done: an upstream that committed the deletion and
  // died before answering leaves its gateway answering 502, and a slow one 504, for plants it
  // then deleted. The request may have been carried out (answerLost), as after a timeout.
  [502, 502, row('server', Exit.server, true, 'failing', true)],
  [503, 503, row('refusal', Exit.server, true, 'overloaded', true)],
  [504, 504, row('server', Exit.server, true, 'failing', true)],
  [500, 599, row('server', Exit.server, false, 'neutral', true)],
];

/**
 * An answer that is not the API's (a page, a body no API sends, a 2xx twice): the service, or the
 * way to it, failing, as a gateway's 502 is. Retried, and counted towards an outage; whether the
 * request was carried out, nobody can tell. Final (not retried, nothing lost) when the request
 * said so: a base URL that has never answered as the API is more likely wrong than down.
 */
const NOT_API: Verdict = Object.freeze({ exit: Exit.server, retryable: true, answerLost: true, load: 'failing' });
const NOT_API_FINAL: Verdict = Object.freeze({ exit: Exit.server, retryable: false, answerLost: false, load: 'failing' });
const TOO_LARGE: Verdict = Object.freeze({ exit: Exit.server, retryable: false, answerLost: false, load: 'ok' });

/** A final 1xx, or a number outside HTTP's range: the answer is malformed, and says nothing about load. */
const MALFORMED_STATUS = row('malformed', Exit.server, false, 'neutral');

export function classifyStatus(status: number): StatusVerdict {
  // Indexed, not destructured: this runs for every answer of a batch.
  for (const row of STATUSES) if (status >= row[0] && status <= row[1]) return row[2];
  return MALFORMED_STATUS;
}

/**
 * The statuses the table names on their own rows or as the start of a range, from 400 up, by
 * whether they are retried: what --retries' help and the README list (a test holds the README to it).
 */
export const RETRIED_STATUSES: readonly number[] = namedFailures((verdict) => verdict.retryable);
export const UNRETRIED_STATUSES: readonly number[] = namedFailures((verdict) => !verdict.retryable);
/** The statuses that refuse for load, as the summary line names them. */
export const LOAD_REFUSAL_STATUSES: readonly number[] = namedFailures((verdict) => isLoadRefusal(verdict.load));

function namedFailures(which: (verdict: StatusVerdict) => boolean): number[] {
  const named = STATUSES.filter(([from, , verdict]) => from >= 400 && which(verdict)).map(([from]) => from);
  return [...new Set(named)].sort((a, b) => a - b);
}

/** The codes request-errors.ts gives HTTP/2 failures, which Node and undici report only in words. */
export const H2_STREAM_REFUSED = 'PLANTSTORE_H2_STREAM_REFUSED';
export const H2_STREAM_RESET = 'PLANTSTORE_H2_STREAM_RESET';
export const H2_SESSION_CLOSED = 'PLANTSTORE_H2_SESSION_CLOSED';
/** ENHANCE_YOUR_CALM (0xb) on the stream or in a GOAWAY: the request refused as excessive (nginx: a header too large). */
export const H2_ENHANCE_YOUR_CALM = 'PLANTSTORE_H2_ENHANCE_YOUR_CALM';

interface NetworkRow {
  codes: readonly string[];
  retryable: boolean;
  /** False when the failure came before the request could leave this machine. */
  sent: boolean;
  /** Can end a body that had begun: the connection's doing, not the server's words. */
  endsBody?: true;
  /** Before any answer, says the service (or the gateway before it) is not taking requests: load 'failing'. */
  failing?: true;
}

// Retried: failures where the request may not have been processed and trying again can help.
const NETWORK: Readonly<Record<NetworkFailure, NetworkRow>> = {
  refused: { codes: ['ECONNREFUSED'], retryable: true, sent: false, failing: true },
  reset: { codes: ['ECONNRESET'], retryable: true, sent: true, endsBody: true, failing: true },
  'closed-while-sending': { codes: ['EPIPE'], retryable: true, sent: true, failing: true },
  'host-not-found': { codes: ['ENOTFOUND'], retryable: false, sent: false },
  'lookup-failed': { codes: ['EAI_AGAIN'], retryable: false, sent: false },
  'host-unreachable': { codes: ['EHOSTUNREACH'], retryable: false, sent: false },
  'network-unreachable': { codes: ['ENETUNREACH'], retryable: false, sent: false },
  closed: { codes: ['UND_ERR_SOCKET', 'UND_ERR_CLOSED'], retryable: true, sent: true, endsBody: true, failing: true },
  'proxy-closed': { codes: ['UND_ERR_PRX_CONN'], retryable: false, sent: true },
  'short-body': { codes: ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH'], retryable: false, sent: true },
  // HTTP/2 (request-errors.ts names them). REFUSED_STREAM, or a GOAWAY that left the stream
  // out, guarantees the server did not process it (RFC 9113 §8.7), whatever the method.
  'stream-refused': { codes: [H2_STREAM_REFUSED], retryable: true, sent: false },
  // Any other RST_STREAM (INTERNAL_ERROR, CANCEL...) or a GOAWAY with an error code: it may have been.
  'stream-reset': { codes: [H2_STREAM_RESET], retryable: true, sent: true, endsBody: true },
  'session-closed': { codes: [H2_SESSION_CLOSED], retryable: true, sent: true, endsBody: true },
};

const NETWORK_BY_CODE = new Map<string, NetworkFailure>(
  Object.entries(NETWORK).flatMap(([what, entry]) => entry.codes.map((code) => [code, what as NetworkFailure] as const)),
);

/** Where a timeout reported by the lower layers struck, when no answer had begun. */
const TIMEOUT_CODES: Readonly<Record<string, TimeoutPhase>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'answer',
  UND_ERR_BODY_TIMEOUT: 'answer',
  ETIMEDOUT: 'answer',
};

const HEADERS_TOO_LARGE_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'HPE_HEADER_OVERFLOW']);

// OpenSSL verification codes do not all mention CERT (UNABLE_TO_VERIFY_LEAF_SIGNATURE, for one).
const TLS_CODE = /CERT|TLS|SSL|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|UNABLE_TO_GET_CRL|HOSTNAME_MISMATCH|ALTNAME/i;

/** The code of the error a connection gets when a loopback name resolves elsewhere (loopback-lookup.ts). */
export const NOT_LOOPBACK = 'PLANTSTORE_NOT_LOOPBACK';

/** What the transport knows about an attempt that threw, before any wording. */
export interface TransportFailure {
  /** The error's code, or its cause's; '' when there is none. */
  code: string;
  /** Which of our own signals fired, since an abort looks the same from inside. */
  aborted: 'interrupted' | 'timeout' | undefined;
  /** The status of an answer whose head had arrived when the failure came: its body was cut short. */
  answerBegun: number | undefined;
  viaProxy: boolean;
  /** The status the proxy answered CONNECT with, when it refused the tunnel. */
  proxyStatus: number | undefined;
  /** undici's parser, or undici itself, rejected the answer's form. */
  parserError: boolean;
}

export type FailureClass =
  | { kind: 'interrupted' }
  | { kind: 'timeout'; phase: TimeoutPhase }
  | { kind: 'proxy-refused'; connectStatus: number }
  | { kind: 'not-loopback' }
  | { kind: 'request-too-large' }
  | { kind: 'malformed'; headersTooLarge: boolean }
  | { kind: 'body-cut'; what: NetworkFailure; status: number }
  | { kind: 'proxy-unreachable'; what: NetworkFailure }
  | { kind: 'network'; what: NetworkFailure }
  | { kind: 'tls' }
  | { kind: 'failed' };

/** Which kind of failure a transport error is. Order matters: our own signals first, then the most specific codes. */
export function classifyFailure(failure: TransportFailure): FailureClass {
  const { code, answerBegun } = failure;
  if (failure.aborted === 'interrupted') return { kind: 'interrupted' };
  const timeoutPhase = TIMEOUT_CODES[code];
  if (failure.aborted === 'timeout' || timeoutPhase !== undefined) {
    return { kind: 'timeout', phase: answerBegun !== undefined ? 'body' : (timeoutPhase ?? 'answer') };
  }
  if (failure.viaProxy && failure.proxyStatus !== undefined) return { kind: 'proxy-refused', connectStatus: failure.proxyStatus };
  if (code === NOT_LOOPBACK) return { kind: 'not-loopback' };
  if (code === H2_ENHANCE_YOUR_CALM) return { kind: 'request-too-large' };
  if (HEADERS_TOO_LARGE_CODES.has(code)) return { kind: 'malformed', headersTooLarge: true };
  // Before the socket codes: undici drops the connection over what it rejected, and says so as a socket error.
  if (code.startsWith('HPE_') || failure.parserError) return { kind: 'malformed', headersTooLarge: false };
  const what = NETWORK_BY_CODE.get(code);
  if (what !== undefined) {
    if (answerBegun !== undefined && NETWORK[what].endsBody) return { kind: 'body-cut', what, status: answerBegun };
    // Through a proxy, the only socket undici opens is to the proxy: a failure before sending is the proxy's.
    if (failure.viaProxy && !NETWORK[what].sent) return { kind: 'proxy-unreachable', what };
    return { kind: 'network', what };
  }
  if (TLS_CODE.test(code)) return { kind: 'tls' };
  return { kind: 'failed' };
}

type TransportKind = Exclude<FailureClass['kind'], 'body-cut' | 'proxy-unreachable' | 'network'>;

const TRANSPORT: Readonly<Record<TransportKind, Pick<Verdict, 'exit' | 'retryable' | 'answerLost'>>> = {
  // Ctrl-C while waiting: the server may or may not have acted on it.
  interrupted: { exit: Exit.interrupted, retryable: false, answerLost: true },
  // A connect timeout sent nothing; see verdictOf.
  timeout: { exit: Exit.timeout, retryable: true, answerLost: true },
  // A proxy that refuses the tunnel (407, 403) will refuse it again.
  'proxy-refused': { exit: Exit.network, retryable: false, answerLost: false },
  'not-loopback': { exit: Exit.config, retryable: false, answerLost: false },
  // Refused for its size, as a 431 or 413 is (exit 1, the 4xx row): sent again, it is refused again. A GOAWAY
  // also ends the other streams on its connection, one of which may have been done: the answer may be lost.
  'request-too-large': { exit: Exit.apiRefused, retryable: false, answerLost: true },
  malformed: { exit: Exit.server, retryable: false, answerLost: true },
  // A certificate does not change between attempts.
  tls: { exit: Exit.network, retryable: false, answerLost: false },
  failed: { exit: Exit.network, retryable: false, answerLost: true },
};

/**
 * The verdict on a failed attempt, from the table: what the retry loop, the throttle and the
 * exit code go by. A request that may not be repeated (a POST, or any request its caller says so
 * of: HttpRequest.repeatable) is never sent again once it may have reached the server: a second
 * one could do the thing twice.
 */
export function verdictOf(attempt: FailedAttempt, request: { idempotent: boolean } = { idempotent: true }): Verdict {
  const verdict = verdictOfAny(attempt);
  return verdict.retryable && verdict.answerLost && !request.idempotent ? { ...verdict, retryable: false } : verdict;
}

function verdictOfAny(attempt: FailedAttempt): Verdict {
  switch (attempt.kind) {
    case 'api-error':
    case 'redirect':
      return classifyStatus(attempt.status);
    case 'web-page':
    case 'not-api':
    case 'success-again':
      // A success status from something that is not the API (a web front end, a gateway's catch-all): nothing says it did what was asked.
      return attempt.final ? NOT_API_FINAL : NOT_API;
    case 'too-large':
      // The whole answer came, and would come again as large: not retried.
      return TOO_LARGE;
    case 'body-cut':
    case 'proxy-unreachable':
    case 'network': {
      const entry = NETWORK[attempt.what];
      const answerLost = attempt.kind === 'body-cut' || entry.sent;
      // An answer that had begun speaks for the server; before one, the connection's failure does.
      const load = attempt.status === undefined && entry.failing ? 'failing' : loadOf(attempt.status);
      return { exit: Exit.network, retryable: entry.retryable, answerLost, load };
    }
    case 'timeout':
      return { ...TRANSPORT.timeout, answerLost: attempt.phase !== 'connect', load: loadOf(attempt.status) };
    default:
      return { ...TRANSPORT[attempt.kind], load: loadOf(attempt.status) };
  }
}

/** A failure after the head of a refusal for load still refused: the status had said so. */
function loadOf(answerBegun: number | undefined): Load {
  return answerBegun === undefined ? 'neutral' : classifyStatus(answerBegun).load;
}

/** The exit code of a request that was never sent, by why. */
export function exitOfNotSent(reason: NotSentReason): ExitCode {
  switch (reason.kind) {
    case 'interrupted':
      return Exit.interrupted;
    case 'gave-up':
      // A server that refuses everything for that long is failing, as a 503 is.
      return Exit.server;
    case 'no-token':
      return Exit.auth;
  }
}
