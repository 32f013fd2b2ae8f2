import { Exit, type ExitCode } from '../errors.js';
import type { Mask } from '../ui/secret-mask.js';
import { serverLine } from './error-body.js';
import { NOT_LOOPBACK } from './loopback-lookup.js';
import { isRetryableErrorCode } from './retry.js';

export interface DescribedError {
  message: string;
  exit: ExitCode;
  /** Trying again may help (refused, reset, timeout). */
  retryable: boolean;
  /** The request may have reached the server even though no answer came back. */
  answerLost: boolean;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset before a complete answer',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'host lookup failed (DNS), try again',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed before a complete answer',
  UND_ERR_CLOSED: 'connection closed before a complete answer',
  UND_ERR_PRX_CONN: 'the proxy closed the connection',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter than announced',
};

// OpenSSL verification codes do not all mention CERT (UNABLE_TO_VERIFY_LEAF_SIGNATURE, for one).
const TLS_CODE = /CERT|TLS|SSL|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|UNABLE_TO_GET_CRL|HOSTNAME_MISMATCH|ALTNAME/i;
const PROXY_SOCKET_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
// What ended a body that had begun: the connection, not the server's words.
// One wording for all: whether a broken body shows as a reset or a close depends on the
// Node version and on timing, not on anything the user could act on differently.
const BODY_CUT = 'connection reset or closed';
const BODY_CUT_CODES = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const HEADERS_TOO_LARGE_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'HPE_HEADER_OVERFLOW']);
// Codes of failures before the request could have left this machine.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface ErrorContext {
  /** Which of our own signals fired, since an abort looks the same from inside. */
  aborted: 'interrupted' | 'timeout' | undefined;
  timeoutMs: number;
  baseUrl: string;
  /** The proxy in use, already masked. */
  proxy: string | undefined;
  /** Hides the token in lower layers' words (a certificate name, a quoted header) before they are cut to length. */
  mask?: Mask;
  /** The status of an answer whose head had arrived when the failure came: its body was cut short. */
  answerBegun?: number | undefined;
}

/** Turns what undici or the socket threw into one line, an exit code and a retry verdict. */
export function describeRequestError(error: unknown, context: ErrorContext): DescribedError {
  const host = safeHost(context.baseUrl);
  const via = context.proxy ? ` via proxy ${context.proxy}` : '';
  const code = errorCode(error);
  const answerLost = !NOT_SENT_CODES.has(code);
  const begun = context.answerBegun;
  if (context.aborted === 'interrupted') {
    return {
      message:
        begun === undefined
          ? 'interrupted while waiting for the answer; the server may or may not have deleted it'
          : `interrupted while the server was sending a ${begun} answer`,
      exit: Exit.interrupted,
      retryable: false,
      answerLost: true,
    };
  }
  if (context.aborted === 'timeout' || TIMEOUT_CODES.has(code)) {
    const within = `within ${formatSeconds(context.timeoutMs)} (timeout; raise it with --timeout)`;
    const what =
      begun !== undefined
        ? `the ${begun} answer from ${host}${via} was not complete`
        : code === 'UND_ERR_CONNECT_TIMEOUT'
          ? `could not connect to ${host}${via}`
          : `no complete answer from ${host}${via}`;
    return {
      message: `${what} ${within}`,
      exit: Exit.timeout,
      retryable: true,
      answerLost,
    };
  }
  const text = messageOf(error, context.mask);
  if (context.proxy && /^Proxy response \((\d+)\)/.test(text)) {
    const status = /\((\d+)\)/.exec(text)?.[1];
    return {
      message: `proxy ${context.proxy} refused to connect to ${host} (HTTP ${status} to CONNECT)`,
      exit: Exit.network,
      retryable: false,
      answerLost: false,
    };
  }
  if (code === NOT_LOOPBACK) {
    return {
      message: `refusing to send the token over plain http: ${text}`,
      exit: Exit.config,
      retryable: false,
      answerLost: false,
    };
  }
  if (HEADERS_TOO_LARGE_CODES.has(code)) {
    return {
      message: `malformed HTTP answer from ${host}${via}: headers too large`,
      exit: Exit.server,
      retryable: false,
      answerLost: true,
    };
  }
  if (begun !== undefined && BODY_CUT_CODES.has(code)) {
    return {
      message: `${BODY_CUT} while the server was sending a ${begun} answer (${host}${via})`,
      exit: Exit.network,
      retryable: isRetryableErrorCode(code),
      answerLost: true,
    };
  }
  const network = NETWORK_CODES[code];
  // Through a proxy, the only socket undici opens is to the proxy: a refusal or a lookup failure is the proxy's.
  if (network && context.proxy && PROXY_SOCKET_CODES.has(code)) {
    return {
      message: `${network} by proxy ${context.proxy} (while reaching ${host})`,
      exit: Exit.network,
      retryable: isRetryableErrorCode(code),
      answerLost,
    };
  }
  if (network) {
    return { message: `${network} (${host}${via})`, exit: Exit.network, retryable: isRetryableErrorCode(code), answerLost };
  }
  if (TLS_CODE.test(code)) {
    // Node's own advice (--use-system-ca) is about Node's flags; ours is --cacert.
    const reason = text.replace(/;\s*if the root CA is installed locally.*$/i, '');
    return {
      message: `TLS failure talking to ${host}${via}: ${reason} (trust a private CA with --cacert)`,
      exit: Exit.network,
      retryable: false,
      answerLost: false,
    };
  }
  if (code.startsWith('HPE_') || (error instanceof Error && error.name === 'HTTPParserError')) {
    return { message: `malformed HTTP answer from ${host}${via}`, exit: Exit.server, retryable: false, answerLost: true };
  }
  return { message: `request to ${host}${via} failed: ${text}`, exit: Exit.network, retryable: false, answerLost };
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

function messageOf(error: unknown, mask: Mask | undefined): string {
  // Lower layers quote hostnames and certificate fields: clean them like a server's words.
  return serverLine(error instanceof Error ? error.message : String(error), mask) || 'unknown error';
}

function safeHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'the server';
  }
}

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
