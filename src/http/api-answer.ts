// Whether a 2xx other than 204 can be the API's answer at all. A base URL that leads to a web
// front end, a storage bucket or a captive portal answers 200 to anything, in any shape; a list
// of page shapes is always one shape short, so no shape is proof. What this rule reads of a
// body only sorts a 2xx: an API-like body (empty, fully decoded; JSON, declared by a JSON media
// type or parsing as JSON; a one-line plain-text acknowledgement such as `OK`) is worth
// confirming (the command sends the DELETE again, which the API answers "no such plant"), and
// anything else (a page, a body no API sends) is a failing answer, as a gateway's 502 is. And
// it gives the words of the message.

import type { Mask } from '../text/secret-mask.js';
import { htmlTitle, serverLine } from './error-body.js';
import type { NotApiBody } from './outcome.js';
import { textOf, undoCodings } from './response-body.js';

/**
 * What a 2xx's body makes of it: API-like, worth confirming (`text` the body as text, unmasked;
 * `whole` unless JSON past the limit), a web page, or another body no API sends.
 */
export type Judged =
  | { apiLike: true; text: string; whole: boolean }
  | { apiLike: false; page: true; title: string }
  | { apiLike: false; body: NotApiBody };

export interface SuccessBody {
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** The Content-Length the server announced, if any: what a body past the read limit is said to weigh. */
  contentLength: string | undefined;
  /** What was read of the body (at most `limit` bytes). */
  raw: Buffer;
  /** How the body ended: all of it read, cut short (reset, closed, timed out), or going on past `limit`. */
  ended: 'whole' | 'cut' | 'over-limit';
  limit: number;
}

/** The longest plain-text acknowledgement, in bytes: one short line, as `OK` or `deleted` is. */
export const ACKNOWLEDGEMENT_BYTES = 256;

// Markup: a `<` that opens a tag, a closing tag, a doctype, a comment or a processing
// instruction. Anywhere in what was read, not only at its start: what comes before a page (a
// PHP notice, a NUL) must not hide it; what is past the read is not checked, so text not declared
// JSON must be read whole (70,000 spaces before a page). JSON is exempt: its strings hold anything.
const MARKUP = /<[a-z!?/]/i;

// Controls other than tab, CR and LF: no text an API writes as words has them (a NUL first, UTF-16 read as UTF-8).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** JSON begins with one of these (after whitespace): what a declared JSON body past the read limit must start with. */
const JSON_START = /^[\s\uFEFF]*(?:[{["\-0-9]|true|false|null)/;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export async function judgeSuccess(body: SuccessBody, mask: Mask): Promise<Judged> {
  // An empty 200 or 202 is the common answer after a 204: nothing to decode or check.
  if (body.raw.length === 0 && body.ended === 'whole') return { apiLike: true, text: '', whole: true };
  const media = mediaTypeOf(body.contentType);
  const decoded = await undoCodings(body.raw, body.contentEncoding, body.limit);
  if (typeof decoded === 'string') {
    return { apiLike: false, body: { kind: 'encoding', encoding: serverLine(body.contentEncoding ?? '', mask) } };
  }
  const { bytes } = decoded;
  const whole = body.ended === 'whole' && !decoded.overLimit;
  if (whole && bytes.length === 0) return { apiLike: true, text: '', whole: true };
  // Read as a browser would (a byte-order mark first, else the declared charset): what a title is read from.
  const text = textOf(bytes, body.contentType);
  const markup = MARKUP.test(text);
  if (media.kind === 'json') {
    if (whole ? parses(strictText(bytes)) : JSON_START.test(text)) return { apiLike: true, text, whole };
    return markup ? page(text, mask) : { apiLike: false, body: { kind: 'not-json', mediaType: media.essence } };
  }
  if (media.kind === 'html' || (markup && media.kind !== 'other')) {
    // A page is named by its title; HTML without one is said by its size and type, as any other type is.
    const title = htmlTitle(text, mask);
    if (title !== '' || media.kind !== 'html') return { apiLike: false, page: true, title };
  }
  if (media.kind === 'other' || media.kind === 'html') {
    return { apiLike: false, body: { kind: 'media-type', mediaType: media.essence, bytes: weight(body, bytes), more: !whole } };
  }
  // No media type, or text/plain: text the rule can read, all of it.
  if (!whole) return { apiLike: false, body: { kind: 'unchecked', limitBytes: body.limit, cut: body.ended === 'cut' } };
  const strict = strictText(bytes);
  if (strict === undefined || CONTROL.test(strict)) return { apiLike: false, body: { kind: 'not-text' } };
  if (parses(strict) || isAcknowledgement(strict, bytes.length)) return { apiLike: true, text, whole };
  return { apiLike: false, body: { kind: 'text', bytes: bytes.length } };
}

function page(text: string, mask: Mask): Judged {
  return { apiLike: false, page: true, title: htmlTitle(text, mask) };
}

/** One line of at most ACKNOWLEDGEMENT_BYTES, a line break at its end allowed. */
function isAcknowledgement(text: string, bytes: number): boolean {
  return bytes <= ACKNOWLEDGEMENT_BYTES && !/[\r\n]/.test(text.replace(/\r?\n$/, ''));
}

/** The body as UTF-8 (a UTF-8 byte-order mark allowed), or undefined when it is not valid UTF-8. */
function strictText(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function parses(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What a body not read whole weighs: what the server announced, else what was read. */
function weight(body: SuccessBody, bytes: Buffer): number {
  const announced = Number(body.contentLength);
  return Number.isSafeInteger(announced) && announced > bytes.length ? announced : bytes.length;
}

/**
 * A Content-Type, parsed as RFC 9110 §8.3.1 writes it (`type/subtype; parameters`), never by
 * searching it for a word: `application/vnd.html-report+json` is JSON, `text/htmlish` is not HTML.
 */
export type MediaKind =
  | { kind: 'none' }
  | { kind: 'plain' }
  | { kind: 'json'; essence: string }
  | { kind: 'html'; essence: string }
  | { kind: 'other'; essence: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

export function mediaTypeOf(contentType: string | undefined): MediaKind {
  const essence = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (essence === '') return { kind: 'none' };
  const [type = '', subtype = '', ...rest] = essence.split('/');
  // Not a media type at all: said as the server wrote it would be no help, and could be anything.
  if (rest.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) return { kind: 'other', essence: 'an invalid content type' };
  if (type === 'text' && subtype === 'plain') return { kind: 'plain' };
  if (type === 'application' && (subtype === 'json' || subtype.endsWith('+json'))) return { kind: 'json', essence };
  if ((type === 'text' && subtype === 'html') || (type === 'application' && subtype === 'xhtml+xml')) return { kind: 'html', essence };
  return { kind: 'other', essence };
}
