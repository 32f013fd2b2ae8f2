import type { Mask } from '../text/secret-mask.js';
import { classifyFailure, H2_ENHANCE_YOUR_CALM, H2_SESSION_CLOSED, H2_STREAM_REFUSED, H2_STREAM_RESET } from './classify.js';
import { serverLine } from './error-body.js';
import { crossedIdleClose } from './idle-reuse.js';
import type { FailedAttempt, Route } from './outcome.js';
import { tlsAlertBehind } from './tls-alerts.js';
import { tlsProblemOf } from './tls-problem.js';

export interface ErrorContext {
  /** Which of our own signals fired, since an abort looks the same from inside. */
  aborted: 'interrupted' | 'timeout' | undefined;
  timeoutMs: number;
  /** Where the request was going, every part already masked; `status` when an answer had begun. */
  route: Route;
  /** Hides the token in lower layers' words (a certificate name, a quoted header) before they are cut to length. */
  mask?: Mask;
  /** The CA bundle the run trusts besides the default store (its file's name), when one was given. */
  caFile?: string;
  /** The connection is plain http (no TLS): a close before any answer may be a TLS server's. */
  plainHttp?: boolean;
}

/** Turns what undici or the socket threw into a failed attempt: what happened, as data. */
export function failedRequest(thrown: unknown, context: ErrorContext): FailedAttempt {
  const { route } = context;
  // A TLS alert that arrived as the server hung up (it wants a client certificate) says more than "other side closed".
  const error = tlsAlertBehind(thrown) ?? thrown;
  const reason = reasonOf(error, context.mask);
  const { code, carrier } = codeOf(error);
  const failure = classifyFailure({
    code: h2Code(error, code) ?? code,
    aborted: context.aborted,
    answerBegun: route.status,
    viaProxy: route.via !== undefined,
    proxyStatus: proxyStatusOf(reason),
    parserError: (error instanceof Error && error.name === 'HTTPParserError') || rejectedByUndici(error, code, route.status),
  });
  switch (failure.kind) {
    case 'timeout':
      return { ...route, kind: 'timeout', ms: context.timeoutMs, phase: failure.phase };
    case 'proxy-unreachable':
    case 'proxy-refused':
      if (route.via !== undefined) return { ...route, ...failure, via: route.via };
      // Not reached: the table blames a proxy only when there is one.
      return { ...route, kind: 'failed', reason };
    case 'request-too-large':
      return { ...route, kind: 'request-too-large' };
    case 'tls': {
      const problem = tlsProblemOf(carrier, code, route.host, context.mask);
      return { ...route, kind: 'tls', reason, ...problem, ...(context.caFile === undefined ? {} : { caFile: context.caFile }) };
    }
    case 'not-loopback':
    case 'failed':
      return { ...route, kind: failure.kind, reason };
    case 'network':
      // Only before an answer began: a status that arrived is an answer, and says the request was read.
      if (route.status !== undefined) return { ...route, ...failure };
      if (crossedIdleClose(thrown)) return { ...route, ...failure, idleClose: true };
      // Node's TLS server closes, without a byte, a connection whose first bytes are not TLS.
      return failure.what === 'closed' && context.plainHttp && route.via === undefined
        ? { ...route, ...failure, plainHttp: true }
        : { ...route, ...failure };
    default:
      return { ...route, ...failure };
  }
}

/**
 * HTTP/2 failures as Node and undici word them, as the codes classify.ts knows. Node:
 * "Stream closed with error code NGHTTP2_REFUSED_STREAM" (ERR_HTTP2_STREAM_ERROR),
 * "Session closed with error code 11" (ERR_HTTP2_SESSION_ERROR, a GOAWAY with an error).
 * undici 8 (client-h2.js; recheck on upgrade): a GOAWAY with NO_ERROR that refused a stream
 * it had already replayed once, "stream error" codes, streams closed early, frame errors.
 */
function h2Code(error: unknown, code: string): string | undefined {
  const message = error instanceof Error ? error.message : '';
  // ENHANCE_YOUR_CALM (code 11), whoever words it: Node names the stream's, and numbers the session's and undici's.
  if (code === 'ERR_HTTP2_STREAM_ERROR' && /ENHANCE_YOUR_CALM/.test(message)) return H2_ENHANCE_YOUR_CALM;
  if ((code === 'ERR_HTTP2_SESSION_ERROR' || message.startsWith('HTTP/2: ')) && /code 11$/.test(message)) return H2_ENHANCE_YOUR_CALM;
  if (code === 'ERR_HTTP2_STREAM_ERROR') return /REFUSED_STREAM/.test(message) ? H2_STREAM_REFUSED : H2_STREAM_RESET;
  if (code === 'ERR_HTTP2_SESSION_ERROR' || code === 'ERR_HTTP2_GOAWAY_SESSION') return H2_SESSION_CLOSED;
  if (!message.startsWith('HTTP/2: ')) return undefined;
  if (/"GOAWAY" frame received with code 0$/.test(message) || /"stream error" received - code 7$/.test(message)) return H2_STREAM_REFUSED;
  if (/"GOAWAY" frame received with code/.test(message)) return H2_SESSION_CLOSED;
  if (/stream (closed|errored|half-closed)|"stream error"|"frameError"/.test(message)) return H2_STREAM_RESET;
  return undefined;
}

/**
 * What undici reports, in its own words, when it drops a connection over an answer no
 * HTTP/1.1 server may send (client-h1.js; recheck on upgrade): a 101 to a request that asked
 * for no upgrade ("bad upgrade"), a 100 Continue to one that expected none ("bad response").
 * And a parser error it reports as a length mismatch before any answer began: two
 * different Content-Length headers (its createError checks the length first).
 */
function rejectedByUndici(error: unknown, code: string, answerBegun: number | undefined): boolean {
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return answerBegun === undefined;
  return code === 'UND_ERR_SOCKET' && error instanceof Error && /^bad (response|upgrade)$/.test(error.message);
}

/**
 * The error's code, or its cause's: undici wraps socket errors, and the useful code is sometimes
 * on the cause. With the error that carries it (Node's TLS error, with its certificate); '' and
 * the error itself when none has one.
 */
function codeOf(error: unknown): { code: string; carrier: unknown } {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return { code, carrier: current };
    current = (current as { cause?: unknown }).cause;
  }
  return { code: '', carrier: error };
}

/** undici says a proxy refused the tunnel only in its message: "Proxy response (407) !== 200 when HTTP Tunneling". */
function proxyStatusOf(reason: string): number | undefined {
  const status = /^Proxy response \((\d+)\)/.exec(reason)?.[1];
  return status === undefined ? undefined : Number(status);
}

function reasonOf(error: unknown, mask: Mask | undefined): string {
  // Lower layers quote hostnames and certificate fields: clean them like a server's words.
  return serverLine(error instanceof Error ? error.message : String(error), mask);
}
