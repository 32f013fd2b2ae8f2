import type { Mask } from '../ui/secret-mask.js';
import { classifyFailure } from './classify.js';
import { serverLine } from './error-body.js';
import type { FailedAttempt, Route } from './outcome.js';

export interface ErrorContext {
  /** Which of our own signals fired, since an abort looks the same from inside. */
  aborted: 'interrupted' | 'timeout' | undefined;
  timeoutMs: number;
  /** Where the request was going, every part already masked; `status` when an answer had begun. */
  route: Route;
  /** Hides the token in lower layers' words (a certificate name, a quoted header) before they are cut to length. */
  mask?: Mask;
}

/** Turns what undici or the socket threw into a failed attempt: what happened, as data. */
export function failedRequest(error: unknown, context: ErrorContext): FailedAttempt {
  const { route } = context;
  const reason = reasonOf(error, context.mask);
  const failure = classifyFailure({
    code: errorCode(error),
    aborted: context.aborted,
    answerBegun: route.status,
    viaProxy: route.via !== undefined,
    proxyStatus: proxyStatusOf(reason),
    parserError: error instanceof Error && error.name === 'HTTPParserError',
  });
  switch (failure.kind) {
    case 'timeout':
      return { ...route, kind: 'timeout', ms: context.timeoutMs, phase: failure.phase };
    case 'proxy-unreachable':
    case 'proxy-refused':
      if (route.via !== undefined) return { ...route, ...failure, via: route.via };
      // Not reached: the table blames a proxy only when there is one.
      return { ...route, kind: 'failed', reason };
    case 'tls':
    case 'not-loopback':
    case 'failed':
      return { ...route, kind: failure.kind, reason };
    default:
      return { ...route, ...failure };
  }
}

function errorCode(error: unknown): string {
  // undici wraps socket errors; the useful code is sometimes on the cause.
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
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
