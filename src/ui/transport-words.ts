// The words for what any command may meet on the way to the service: timeouts, DNS,
// refused and broken connections, proxies, TLS, malformed answers, redirects. The
// transport hands these back as data (http/outcome.ts); each kind owns a whole sentence
// here, so a rewording is one line and no sentence is glued from pieces. What only one
// command can say (that a plant may or may not have been deleted) is that command's.

import { statusText } from '../http/error-body.js';
import type { FailedAttempt, NetworkFailure, NotApiBody, NotSentReason, Outcome, Route, Stop } from '../http/outcome.js';
import { formatSeconds } from './duration.js';
import { describeTls } from './tls-words.js';

/** A socket or connection failure on the way to the service: `at` is where ("api.example.com:443 via proxy …"). */
const NETWORK: Readonly<Record<NetworkFailure, (at: string) => string>> = {
  // The usual cause: nothing listens there (a sandbox not started, a wrong port in the base URL).
  refused: (at) => `connection refused (${at}): is the server running at that address, and is the base URL right?`,
  reset: (at) => `connection reset before a complete answer (${at})`,
  'closed-while-sending': (at) => `connection closed while sending (${at})`,
  'host-not-found': (at) => `host not found (DNS) (${at}): check the host name in the base URL`,
  'lookup-failed': (at) => `host lookup failed (DNS), try again (${at})`,
  'host-unreachable': (at) => `host unreachable (${at}): check this machine's network, and the host in the base URL`,
  'network-unreachable': (at) => `network unreachable (${at}): is this machine connected to a network that reaches it?`,
  closed: (at) => `connection closed before a complete answer (${at})`,
  'proxy-closed': (at) => `the proxy closed the connection (${at})`,
  'short-body': (at) => `the answer was shorter than announced (${at})`,
  'stream-refused': (at) => `the server refused the HTTP/2 stream before processing it (${at})`,
  'stream-reset': (at) => `the server reset the HTTP/2 stream before a complete answer (${at})`,
  'session-closed': (at) => `the server closed the HTTP/2 connection with an error before a complete answer (${at})`,
};

/** The proxy itself could not be reached or kept: `via` is the proxy, `host` the service behind it. */
const PROXY_UNREACHABLE: Readonly<Record<NetworkFailure, (via: string, host: string) => string>> = {
  refused: (via, host) =>
    `connection refused by proxy ${via} (while reaching ${host}): is the proxy running there, and is the proxy variable right?`,
  reset: (via, host) => `connection to proxy ${via} reset (while reaching ${host})`,
  'closed-while-sending': (via, host) => `proxy ${via} closed the connection while sending (while reaching ${host})`,
  'host-not-found': (via, host) => `proxy host ${via} not found (DNS) (while reaching ${host}): check the host name in the proxy variable`,
  'lookup-failed': (via, host) => `lookup of proxy ${via} failed (DNS), try again (while reaching ${host})`,
  'host-unreachable': (via, host) => `proxy ${via} unreachable: host unreachable (while reaching ${host})`,
  'network-unreachable': (via, host) => `proxy ${via} unreachable: network unreachable (while reaching ${host})`,
  closed: (via, host) => `proxy ${via} closed the connection before a complete answer (while reaching ${host})`,
  'proxy-closed': (via, host) => `proxy ${via} closed the connection (while reaching ${host})`,
  'short-body': (via, host) => `the answer through proxy ${via} was shorter than announced (while reaching ${host})`,
  'stream-refused': (via, host) => `proxy ${via} refused the HTTP/2 stream (while reaching ${host})`,
  'stream-reset': (via, host) => `proxy ${via} reset the HTTP/2 stream (while reaching ${host})`,
  'session-closed': (via, host) => `proxy ${via} closed the HTTP/2 connection with an error (while reaching ${host})`,
};

/** What to do when a proxy answers CONNECT with `status`: its credentials, its rules, or the host behind it. */
function proxyRefusedFix(status: number): string {
  if (status === 407) return 'check the user and password in the proxy variable';
  if (status === 403) return 'ask whoever runs it to allow that host, or list it in NO_PROXY';
  return 'it could not reach that host; check the base URL, or bypass the proxy with NO_PROXY';
}

/**
 * The failures a command words itself: the API's own message, a 2xx that is not the API's
 * answer (a web page, or another body: describeNotProof says what came), and an interrupt
 * (whether the thing was done is the command's to say).
 */
export type CommandWorded = Extract<FailedAttempt, { kind: 'api-error' | 'web-page' | 'not-api' | 'success-again' | 'interrupted' }>;

/**
 * What came back in a 2xx that is not proof, and that it is not the API:
 * `the server answered 200 with a web page ("Plant Shop"), not the API`;
 * `the server answered 200 twice to the same DELETE, not the API`.
 */
export function describeNotProof(attempt: Extract<FailedAttempt, { kind: 'web-page' | 'not-api' | 'success-again' }>): string {
  if (attempt.kind === 'success-again') {
    const twice = attempt.first === attempt.status ? `${attempt.status} twice` : `${attempt.first}, then ${attempt.status}`;
    return `the server answered ${twice} to the same DELETE, where the API answers the second "no such plant", so it is not the API`;
  }
  const what = attempt.kind === 'web-page' ? (attempt.title ? `a web page ("${attempt.title}")` : 'a web page') : notApiBody(attempt.body);
  return `the server answered ${attempt.status} with ${what}, not the API`;
}

function notApiBody(body: NotApiBody): string {
  switch (body.kind) {
    case 'media-type':
      return `${body.more ? 'more than ' : ''}${weight(body.bytes)} of ${body.mediaType}`;
    case 'not-json':
      return `a body declared ${body.mediaType} that is not JSON`;
    case 'not-text':
      return 'a body that is not an API answer (not UTF-8 text)';
    case 'encoding':
      return `a body that is not an API answer (its content-encoding "${body.encoding}" could not be decoded)`;
    case 'unchecked':
      return `a body that is not an API answer (more than ${size(body.limitBytes)} of text not declared JSON, which cannot be checked)`;
    case 'text':
      return `a body that is not an API answer (${weight(body.bytes)} of text, not the one short line of an acknowledgement)`;
  }
}

/** A body's size as a person reads it: `312 bytes`, `12 kB`. */
function weight(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  return `${bytes < 10_000 ? (bytes / 1000).toFixed(1) : Math.round(bytes / 1000)} kB`;
}

/**
 * A request's failure, after every attempt: the last attempt's failure (in the command's words,
 * `describeAttempt`, which passes what it does not word itself to describeTransportFailure), why
 * attempts stopped early, and how many there were.
 */
export function describeFailed(failed: Extract<Outcome, { kind: 'failed' }>, describeAttempt: (attempt: FailedAttempt) => string): string {
  const stop = failed.stopped === undefined ? '' : `; ${describeStop(failed.stopped)}`;
  const attempts = failed.attempts > 1 ? ` (after ${failed.attempts} attempts)` : '';
  return `${describeAttempt(failed.last)}${stop}${attempts}`;
}

/** Why attempts ended before --retries ran out, said after the last attempt's failure. */
export function describeStop(stop: Stop): string {
  switch (stop.kind) {
    case 'retry-after-too-long':
      return `the server asked to retry after ${formatSeconds(stop.retryAfterMs)}, longer than --max-retry-wait ${formatSeconds(stop.maxRetryWaitMs)}`;
    case 'gave-up':
      return `${stop.reason}, so it was not tried again`;
    case 'interrupted-awaiting-token':
      return 'interrupted while waiting for a new token, so it was not sent again';
  }
}

/** A request that was never sent (its exit code is classify.ts's exitOfNotSent). */
export function describeNotSent(reason: NotSentReason): string {
  switch (reason.kind) {
    case 'interrupted':
      return 'not sent: interrupted before its turn';
    case 'gave-up':
      return `not sent: ${reason.reason}`;
    case 'no-token':
      return `not sent: ${reason.message}`;
  }
}

/**
 * One attempt's failure in the words any operation may say: the API's own message, a page that
 * proves nothing, an interrupt, or the transport's sentence. An operation with more to say of a
 * case (delete: what a page means for a deletion) words that case itself and hands the rest here.
 */
export function describeAttempt(attempt: FailedAttempt): string {
  switch (attempt.kind) {
    case 'api-error':
      return attempt.message;
    case 'web-page':
    case 'not-api':
    case 'success-again':
      return describeNotProof(attempt);
    case 'interrupted':
      return 'interrupted while waiting for the answer';
    default:
      return describeTransportFailure(attempt);
  }
}

/** Every other failure, in one sentence each. */
export function describeTransportFailure(attempt: Exclude<FailedAttempt, CommandWorded>): string {
  switch (attempt.kind) {
    case 'timeout': {
      const at = where(attempt);
      const limit = formatSeconds(attempt.ms);
      if (attempt.phase === 'body') {
        return `the ${attempt.status} answer from ${at} was not complete within ${limit} (timeout; raise it with --timeout)`;
      }
      if (attempt.phase === 'connect') return `could not connect to ${at} within ${limit} (timeout; raise it with --timeout)`;
      return `no complete answer from ${at} within ${limit} (timeout; raise it with --timeout)`;
    }
    case 'body-cut':
      // One wording for every body cut short: whether it shows as a reset or a close depends on
      // the Node version and on timing, not on anything the user could act on differently.
      return `connection reset or closed while the server was sending a ${attempt.status} answer (${where(attempt)})`;
    case 'too-large':
      return `the ${attempt.status} answer from ${where(attempt)} was larger than the ${size(attempt.limitBytes)} this request reads`;
    case 'network':
      if (attempt.idleClose) {
        return `${NETWORK[attempt.what](where(attempt))}: the server closed its idle keep-alive connection as the request went out`;
      }
      // What a TLS server does with plain http; a plain-http server that hung up looks the same.
      if (attempt.plainHttp) return `${NETWORK[attempt.what](where(attempt))}: if that port speaks TLS, use https://`;
      return NETWORK[attempt.what](where(attempt));
    case 'proxy-unreachable':
      return PROXY_UNREACHABLE[attempt.what](attempt.via, attempt.host);
    case 'proxy-refused':
      return `proxy ${attempt.via} refused to connect to ${attempt.host} (HTTP ${attempt.connectStatus} to CONNECT): ${proxyRefusedFix(attempt.connectStatus)}`;
    case 'tls':
      return describeTls(attempt, where(attempt));
    case 'malformed':
      return attempt.headersTooLarge
        ? `malformed HTTP answer from ${where(attempt)}: headers too large; check that the base URL points at the Plant Store API`
        : `malformed HTTP answer from ${where(attempt)}: check that the base URL points at the Plant Store API`;
    case 'request-too-large':
      return `the server refused the request over HTTP/2 as too large (ENHANCE_YOUR_CALM) (${where(attempt)}): its headers, the token most of all, are likely larger than it accepts`;
    case 'not-loopback':
      return `refusing to send the token over plain http: ${said(attempt.reason)}`;
    case 'redirect':
      return describeRedirect(attempt.status, attempt.location);
    case 'failed':
      return `request to ${where(attempt)} failed: ${said(attempt.reason)}`;
  }
}

function describeRedirect(status: number, location: string | undefined): string {
  // Following it would hand the bearer token to wherever the server points.
  if (location !== undefined) {
    return `the server redirected to ${location}; redirects are not followed so the token stays with the base URL you chose, so fix the base URL`;
  }
  const known = statusText(status);
  return known === `HTTP status ${status}`
    ? `the server answered HTTP ${status} without a Location`
    : `the server answered ${status} ${known} without a Location`;
}

function where(route: Route): string {
  return route.via === undefined ? route.host : `${route.host} via proxy ${route.via}`;
}

/** A body limit: in KiB when it is whole KiB. */
function size(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** A lower layer's words, or a stand-in when it had none. */
function said(reason: string): string {
  return reason || 'unknown error';
}
