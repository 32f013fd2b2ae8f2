// One attempt of one request: send it, read the answer within the deadline, and say what
// happened as data (outcome.ts). Knows no operation: the method and path come from the caller.

import type { Dispatcher } from 'undici';
import type { Mask } from '../text/secret-mask.js';
import { classifyStatus } from './classify.js';
import { attemptDeadline, TIMED_OUT } from './deadline.js';
import { ON_SENT, type SentHook } from './dispatcher.js';
import { htmlTitle, parseErrorBody, serverLine } from './error-body.js';
import type { FailedAttempt, HttpRequest, Route, TransportEvent } from './outcome.js';
import { failedRequest } from './request-errors.js';
import { decodeBody, readCapped } from './response-body.js';
import { parseRetryAfter } from './retry.js';

/** The spec's Error object is tiny; anything past this is a hostile or broken server. */
export const MAX_BODY_BYTES = 64 * 1024;

export type Headers = Record<string, string | string[] | undefined>;

/** What one attempt that was sent ended with, and when the server asked us to come back. */
export interface Attempt {
  outcome: { kind: 'ok'; status: number; body: string } | FailedAttempt;
  retryAfterMs?: number | undefined;
}

/** What every attempt of a transport shares. */
export interface AttemptSetup {
  dispatcher: Dispatcher;
  /** The base URL's origin, and the part of its path requests are under (no trailing slash). */
  origin: string;
  basePath: string;
  headers: Record<string, string>;
  route: Route;
  timeoutMs: number;
  mask: Mask;
  /** Whether the dispatcher tells when a request is written (ours does; one a test hands in may not). */
  reportsSent: boolean;
  onEvent: ((event: TransportEvent) => void) | undefined;
}

/** One attempt; undefined when the user interrupted before it could be sent. */
export async function sendOnce(
  setup: AttemptSetup,
  request: HttpRequest,
  /** The request's headers, the token's included. */
  headers: Record<string, string>,
  interrupt: AbortSignal,
): Promise<Attempt | undefined> {
  if (interrupt.aborted) return undefined;
  const { route, mask, onEvent } = setup;
  const deadline = attemptDeadline(setup.timeoutMs, interrupt);
  const { signal } = deadline;
  const label = request.label ?? request.path;
  const started = performance.now();
  // The head of an answer, once it arrives: a body cut short after it is still a failure to
  // answer (reset or timeout), but the status is kept, since an answer had begun.
  let began: { status: number; headers: Headers } | undefined;
  // Whether undici has written the request to a connection.
  let sent = !setup.reportsSent;
  const onSent = (): void => {
    sent = true;
  };
  try {
    const options: Dispatcher.RequestOptions & SentHook = {
      origin: setup.origin,
      path: `${setup.basePath}${request.path}`,
      method: request.method as Dispatcher.HttpMethod,
      headers,
      signal,
      [ON_SENT]: onSent,
    };
    const response = await untilAborted(setup.dispatcher.request(options), signal);
    const status = response.statusCode;
    began = { status, headers: response.headers };
    onEvent?.({
      kind: 'answer',
      label,
      status,
      elapsedMs: performance.now() - started,
      headers: Object.entries(response.headers).map(([name, value]) => [name, serverLine(String(value), mask)] as const),
    });
    if (hasConflictingLengths(response.headers)) {
      // Which length is right cannot be known, so neither the status nor the body can be trusted.
      response.body.destroy();
      return { outcome: { ...route, kind: 'malformed', headersTooLarge: false } };
    }
    if (classifyStatus(status).kind === 'success') return { outcome: await successOf(response, mask) };
    const body = await readBody(response);
    return {
      outcome: failedAnswer(status, response.headers, body, mask),
      retryAfterMs: parseRetryAfter(header(response.headers, 'retry-after'), Date.now()),
    };
  } catch (error) {
    const elapsedMs = performance.now() - started;
    const aborted = interrupt.aborted ? 'interrupted' : signal.reason === TIMED_OUT ? 'timeout' : undefined;
    if (!sent && aborted === 'interrupted') {
      // Still connecting (or queued for a connection) when Ctrl-C came: nothing left this machine.
      onEvent?.({ kind: 'not-sent', label, elapsedMs });
      return undefined;
    }
    const outcome: FailedAttempt =
      !sent && aborted === 'timeout'
        ? // The deadline struck while connecting: the server never had the request.
          { ...route, kind: 'timeout', ms: setup.timeoutMs, phase: 'connect' }
        : failedRequest(error, {
            aborted,
            timeoutMs: setup.timeoutMs,
            route: began === undefined ? route : { ...route, status: began.status },
            mask,
          });
    onEvent?.({ kind: 'failed', label, elapsedMs, failure: outcome });
    // A 429 or 503 cut short still said when to come back.
    return { outcome, retryAfterMs: began && parseRetryAfter(header(began.headers, 'retry-after'), Date.now()) };
  } finally {
    deadline.end();
  }
}

/**
 * A 2xx: the API's answer, unless its body is an HTML page. A JSON API never answers with a
 * web page; a base URL that leads to a web front end answers 200 to anything. A body cut
 * short changes nothing: the status said so.
 */
async function successOf(response: Dispatcher.ResponseData, mask: Mask): Promise<Attempt['outcome']> {
  const status = response.statusCode;
  // 204 is the spec's answer: there is no body to read.
  if (status === 204) {
    await response.body.dump({ limit: MAX_BODY_BYTES }).catch(() => {});
    return { kind: 'ok', status, body: '' };
  }
  const body = await readBody(response).catch(() => '');
  const page = /\bhtml\b/i.test(header(response.headers, 'content-type') ?? '') || /^\s*<(!doctype\s+html|html[\s>])/i.test(body);
  if (page) return { kind: 'web-page', status, title: htmlTitle(body, mask) };
  return { kind: 'ok', status, body: mask(body) };
}

/** A complete answer that is not a success: a redirect, or what the body says went wrong. */
function failedAnswer(status: number, headers: Headers, body: string, mask: Mask): FailedAttempt {
  if (classifyStatus(status).kind === 'redirect') {
    const location = header(headers, 'location')?.trim();
    return { kind: 'redirect', status, ...(location ? { location: serverLine(location, mask) } : {}) };
  }
  const details = parseErrorBody(status, header(headers, 'content-type'), body, mask);
  return { kind: 'api-error', status, code: details.code, message: details.message };
}

/** Up to MAX_BODY_BYTES of an answer's body, decoded to text. */
async function readBody(response: Dispatcher.ResponseData): Promise<string> {
  const raw = await readCapped(response.body, MAX_BODY_BYTES);
  return decodeBody(raw, header(response.headers, 'content-encoding'), header(response.headers, 'content-type'), MAX_BODY_BYTES);
}

/**
 * The request's answer, or the signal's reason as soon as it fires. undici fails a request
 * aborted while it still waits in its queue only once it is dispatched: for an https origin,
 * after the one connection it probes for HTTP/2 has connected or failed (every other
 * request waits on that probe). A handshake that never ends would hold Ctrl-C and the
 * deadline until undici's own connect timeout, one queued request after another.
 */
function untilAborted<T extends Dispatcher.ResponseData>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      // undici still holds the request: whatever it ends with later is dropped.
      pending.then(
        (late) => late.body.destroy(),
        () => {},
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Two Content-Length headers that disagree (RFC 9112 §6.3: unrecoverable), which undici passes on. */
function hasConflictingLengths(headers: Headers): boolean {
  const lengths = headers['content-length'];
  return Array.isArray(lengths) && new Set(lengths.map((length) => length.trim())).size > 1;
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
