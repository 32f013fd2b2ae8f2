import { isApiErrorCode } from '../config/missing-errors.js';
import type { Mask } from '../text/secret-mask.js';
import { truncate } from '../text/shown.js';

/** What a failed answer said, reduced to what the user needs: the API's code and message. */
export interface ErrorDetails {
  /** The Error object's `error` field, when the body was one. */
  code: number | null;
  message: string;
}

const MAX_MESSAGE = 300;

/**
 * Turns whatever a server sent with a failure into one line. The spec promises an
 * Error object {error, message}, but proxies send HTML, frameworks send
 * problem+json, and broken servers send nothing or half a body. `mask` hides the
 * token before the line is cut to length, so a cut can never leave part of it.
 */
export function parseErrorBody(status: number, contentType: string | undefined, body: string, mask: Mask = (text) => text): ErrorDetails {
  const fallback = statusText(status);
  const oneLine = (text: string): string => serverLine(text, mask);
  const json = tryJson(contentType, body);
  if (isRecord(json)) {
    const code = json['error'];
    const message = json['message'];
    if (isApiErrorCode(code) && typeof message === 'string') return { code, message: oneLine(message) || fallback };
    const problem = [json['title'], json['detail']].filter((part) => typeof part === 'string' && part.trim() !== '');
    if (problem.length > 0) return { code: null, message: oneLine(problem.join(': ')) };
    if (typeof message === 'string' && message.trim() !== '') return { code: null, message: oneLine(message) };
    if (typeof code === 'string' && code.trim() !== '') return { code: null, message: oneLine(code) };
  }
  const firstLine = json === undefined && isPlainText(contentType) ? body.split(/\r?\n/).find((line) => line.trim() !== '') : undefined;
  const said = firstLine ? oneLine(firstLine) : htmlTitle(body, mask) || fallback;
  return { code: null, message: refusedForSize(status, said) ?? said };
}

/**
 * A refusal for the request's size (431, 413), said as one: a DELETE carries no body, so what is
 * too large is its headers, and of those only the token can be long. The server's words follow.
 */
function refusedForSize(status: number, said: string): string | undefined {
  if (status === 431)
    return `the server refused the request's headers as too large (${said}): the token is most likely longer than it accepts`;
  if (status === 413) return `the server refused the request as too large (${said})`;
  return undefined;
}

/** An HTML page's <title>, as one clean line; '' when it has none. */
export function htmlTitle(body: string, mask: Mask = (text) => text): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
  return title && title.trim() !== '' ? serverLine(decodeHtmlEntities(title), mask) : '';
}

// Not node:http's STATUS_CODES: importing node:http from ESM evaluates its lazy
// exports (WebSocket and Node's internal undici with them), which every run would pay for.
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  511: 'Network Authentication Required',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? `HTTP status ${status}`;
}

function tryJson(contentType: string | undefined, body: string): unknown {
  const declared = /\bjson\b/i.test(contentType ?? '');
  const looksLikeJson = /^\s*[{[]/.test(body);
  if (!declared && !looksLikeJson) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function isPlainText(contentType: string | undefined): boolean {
  return contentType === undefined || /^text\/plain\b/i.test(contentType);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Bidirectional overrides and isolates (and the marks) can make a line read
// differently from what it holds ("Trojan Source"); they are dropped.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A server's words go to a terminal: strip control characters (escape sequences could
 * rewrite the screen) and bidi controls, fold lines, hide the token, then cap the
 * length. The token is masked before and after cleaning: removing a character
 * could join the halves of a token split to slip past the mask.
 */
export function serverLine(text: string, mask: Mask = (same) => same): string {
  const flat = mask(text)
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(BIDI_CONTROLS, '')
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(mask(flat), MAX_MESSAGE);
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', sol: '/' };

/** Character references in an HTML title, decoded so the user reads (and the mask sees) the real text. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(?:#x([0-9a-f]{1,6})|#(\d{1,7})|([a-z]{2,8}));?/gi, (whole, hex?: string, decimal?: string, name?: string) => {
    const code = hex !== undefined ? Number.parseInt(hex, 16) : decimal !== undefined ? Number(decimal) : undefined;
    if (code !== undefined) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return NAMED_ENTITIES[(name ?? '').toLowerCase()] ?? whole;
  });
}
