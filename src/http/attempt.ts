// One attempt of one request: send it, read the answer within the deadline, and say what
// happened as data (outcome.ts). Knows no operation: the method and path come from the caller.

import type { Dispatcher } from 'undici';
import type { Mask } from '../text/secret-mask.js';
import { judgeSuccess, type SuccessBody } from './api-answer.js';
import { classifyStatus } from './classify.js';
import { attemptDeadline } from './deadline.js';
import { parseErrorBody, serverLine } from './error-body.js';
import { Exchange, type ExchangeHooks, type Head, type Headers } from './exchange.js';
import type { FailedAttempt, HttpRequest, Route, TransportEvent } from './outcome.js';
import { failedRequest } from './request-errors.js';
import { decodeBody } from './response-body.js';
import { parseRetryAfter } from './retry.js';
import { wantsTls } from './tls-problem.js';

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
  /** The CA bundle's file, when the run trusts one besides the default store (for the words of a TLS failure). */
  caFile?: string;
  timeoutMs: number;
  mask: Mask;
  /** What every exchange is told (undici sending a request again on its own, for --rate); a trace adds its own. */
  hooks: ExchangeHooks;
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
  const label = request.label ?? request.path;
  const started = performance.now();
  // The answer's head is traced as it arrives; without a trace, the hooks are the transport's, made once.
  const hooks: ExchangeHooks =
    onEvent === undefined
      ? setup.hooks
      : {
          ...setup.hooks,
          onHead: (head) =>
            onEvent({
              kind: 'answer',
              label,
              status: head.status,
              elapsedMs: performance.now() - started,
              headers: Object.entries(head.headers).map(([name, value]) => [name, serverLine(String(value), mask)] as const),
            }),
        };
  const limit = request.bodyLimitBytes;
  const exchange = new Exchange(limit, hooks);
  const deadline = attemptDeadline(setup.timeoutMs, interrupt, exchange);
  try {
    setup.dispatcher.dispatch(
      {
        origin: setup.origin,
        path: `${setup.basePath}${request.path}`,
        method: request.method as Dispatcher.HttpMethod,
        ...withBody(request, headers),
        // Nor does undici send it again on its own (after a reset, in a pipeline) when it may not be repeated.
        ...(request.repeatable === false ? { idempotent: false } : {}),
      },
      exchange,
    );
  } catch (error) {
    // undici reports its failures to the handler; a dispatcher that throws instead ends the attempt the same way.
    exchange.abort(error);
  }
  const { head, body, error, conflictingLengths, overLimit } = await exchange.ended;
  deadline.end();
  if (conflictingLengths) return { outcome: { ...route, kind: 'malformed', headersTooLarge: false } };
  if (head !== undefined && classifyStatus(head.status).kind === 'success') {
    // 204 is the spec's answer, and every answer of a batch that goes well: no body, nothing to check.
    if (head.status === 204) return { outcome: { kind: 'ok', status: 204, body: '' } };
    // A 2xx cut short (reset, closed, timed out mid-body) is no answer at all: it fails below as any
    // body cut short does, retried, the request uncertain. Never judged on the part that came.
    if (error === undefined) {
      const success = await successOf(head, { body, ended: overLimit ? 'over-limit' : 'whole' }, { route, mask, limit, request });
      if (success !== undefined) return { outcome: success };
    }
  }
  if (head !== undefined && error === undefined) {
    const text = await decodedBody(head.headers, body, limit);
    return {
      outcome: failedAnswer(head.status, head.headers, text, { route, mask }),
      retryAfterMs: parseRetryAfter(header(head.headers, 'retry-after'), Date.now()),
    };
  }
  const elapsedMs = performance.now() - started;
  const aborted = interrupt.aborted ? 'interrupted' : exchange.cutoff;
  const { sent } = exchange;
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
          // A body cut short after the head is still a failure to answer (reset or timeout), but the status is kept.
          route: head === undefined ? route : { ...route, status: head.status },
          mask,
          plainHttp: setup.origin.startsWith('http:'),
          ...(setup.caFile === undefined ? {} : { caFile: setup.caFile }),
        });
  onEvent?.({ kind: 'failed', label, elapsedMs, failure: outcome });
  // A 429 or 503 cut short still said when to come back.
  return { outcome, retryAfterMs: head && parseRetryAfter(header(head.headers, 'retry-after'), Date.now()) };
}

/**
 * A 2xx other than 204, read whole or to the limit. What its body is decides only whether it
 * can be the API's answer at all: a page, or a body no API sends, is a failing answer (a web
 * front end, a maintenance page), and to a request that confirms an earlier 2xx any 2xx is the
 * same answer twice. Otherwise it is `ok`, which proves nothing by itself: the command confirms it.
 */
async function successOf(
  head: Head,
  { body, ended }: { body: Buffer; ended: SuccessBody['ended'] },
  { route, mask, limit, request }: { route: Route; mask: Mask; limit: number; request: HttpRequest },
): Promise<Attempt['outcome'] | undefined> {
  const { status, headers } = head;
  const reads = request.successBody === 'read';
  // A request that reads its 2xx body needs all of it (a GET's answer is the thing asked for).
  if (reads && ended === 'over-limit') return { ...route, kind: 'too-large', status, limitBytes: limit };
  const final = request.notApiIsFinal?.() === true ? ({ final: true } as const) : {};
  const judged = await judgeSuccess(
    {
      contentType: header(headers, 'content-type'),
      contentEncoding: header(headers, 'content-encoding'),
      contentLength: header(headers, 'content-length'),
      raw: body,
      ended,
      limit,
    },
    mask,
  );
  if (judged.apiLike && reads && !judged.whole) return { ...route, kind: 'too-large', status, limitBytes: limit };
  if ('page' in judged) return { kind: 'web-page', status, title: judged.title, ...final };
  if (!judged.apiLike && reads && judged.body.kind === 'unchecked') return { ...route, kind: 'too-large', status, limitBytes: limit };
  if (!judged.apiLike) return { kind: 'not-api', status, body: judged.body, ...final };
  if (request.confirms !== undefined) return { kind: 'success-again', status, first: request.confirms, ...final };
  return { kind: 'ok', status, body: mask(judged.text) };
}

/** The headers, and the body when the request has one: JSON, with its content type. */
function withBody(request: HttpRequest, headers: Record<string, string>): { headers: Record<string, string>; body?: string } {
  return request.body === undefined ? { headers } : { headers: { ...headers, 'content-type': 'application/json' }, body: request.body };
}

/** A complete answer that is not a success: a redirect, or what the body says went wrong. */
function failedAnswer(status: number, headers: Headers, body: string, { route, mask }: { route: Route; mask: Mask }): FailedAttempt {
  if (classifyStatus(status).kind === 'redirect') {
    const location = header(headers, 'location')?.trim();
    return { kind: 'redirect', status, ...(location ? { location: serverLine(location, mask) } : {}) };
  }
  const details = parseErrorBody(status, header(headers, 'content-type'), body, mask);
  // A web server that speaks TLS on that port, saying so: the same request is refused again (exit 7, as for TLS).
  if (wantsTls(status, body)) return { ...route, kind: 'tls', problem: 'speaks-tls', status, reason: details.message };
  return { kind: 'api-error', status, code: details.code, message: details.message };
}

/** The body as text: decompressed (up to the request's limit) and decoded by its charset. */
function decodedBody(headers: Headers, raw: Buffer, limit: number): Promise<string> {
  return decodeBody(raw, header(headers, 'content-encoding'), header(headers, 'content-type'), limit);
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
