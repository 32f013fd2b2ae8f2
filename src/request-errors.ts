import { oneLine } from './error-body.js';
import { Exit, type ExitCode } from './errors.js';

export interface DescribedError {
  message: string;
  exit: ExitCode;
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
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter than announced',
};

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Turns what undici or the socket threw into one line and an exit code.
 * `aborted` says which of our own signals fired, since an abort looks the same from inside.
 */
export function describeRequestError(
  error: unknown,
  aborted: 'interrupted' | 'timeout' | undefined,
  timeoutMs: number,
  baseUrl: string,
): DescribedError {
  const host = safeHost(baseUrl);
  if (aborted === 'interrupted') {
    return { message: 'interrupted while waiting for the answer; the server may or may not have deleted it', exit: Exit.interrupted };
  }
  const code = errorCode(error);
  if (aborted === 'timeout' || TIMEOUT_CODES.has(code)) {
    return { message: `no complete answer from ${host} within ${formatSeconds(timeoutMs)} (timeout; raise it with --timeout)`, exit: Exit.timeout };
  }
  const network = NETWORK_CODES[code];
  if (network) return { message: `${network} (${host})`, exit: Exit.network };
  if (/CERT|TLS|SSL|ERR_SSL/i.test(code)) {
    return { message: `TLS failure talking to ${host}: ${messageOf(error)}`, exit: Exit.network };
  }
  if (code.startsWith('HPE_') || (error instanceof Error && error.name === 'HTTPParserError')) {
    return { message: `malformed HTTP answer from ${host}`, exit: Exit.server };
  }
  return { message: `request to ${host} failed: ${messageOf(error)}`, exit: Exit.network };
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

function messageOf(error: unknown): string {
  // Lower layers quote hostnames and certificate fields: clean them like a server's words.
  return oneLine(error instanceof Error ? error.message : String(error)) || 'unknown error';
}

function safeHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'the server';
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
