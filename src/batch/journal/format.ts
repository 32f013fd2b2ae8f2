import { failureFields } from './failure-line.js';

/**
 * The journal's format: NDJSON, a header line, then two kinds of line, in the order they happened:
 * - a sent line, `{"id":42,"sent":true}`, written to the file before the id's request leaves
 *   (a write-ahead record: after a kill, the ids in flight are known exactly);
 * - a result line, once the id is decided, exactly what `--json` prints for it
 *   (commands/delete/report.ts resultJson).
 * An id's last line says what became of it. Ids are int64, past what JSON.parse keeps exact,
 * so an id is read from its digits.
 *
 * Format 1 had result lines only; it is read as it was (format 2 only added the sent line). A run's
 * start and end lines (run-record.ts) came later in format 2, as the header's optional fields did:
 * plantstore 2.0, which does not know them, refuses a journal holding them as damaged (exit 2)
 * rather than misread it.
 */

import { type CredentialPrint, parsePrint } from './credentials.js';
import { baseUrlFields, parseUrlPrint, type UrlPrint } from './url-print.js';

/** What the header says the file is; a file saying anything else is not read. */
export const JOURNAL_FORMAT = 'delete-journal';
export const JOURNAL_VERSION = 2;
/** The versions this plantstore reads. */
const READABLE_VERSIONS: readonly unknown[] = [1, 2];

/** The run a journal belongs to: resuming against another server would skip plants never deleted there. */
export interface JournalRun {
  /**
   * The normalized base URL (config/base-url.ts normalizeBaseUrl), in clear in a run; in a header,
   * as written there: masked (identity.ts), when the run's URL held a secret.
   */
  baseUrl: string;
  /**
   * The base URL with every secret of the run masked (its token in the path: `…/bot***`), when
   * that differs from `baseUrl`: what a new header stores, with a print of the whole URL beside
   * it (url-print.ts). Journals travel as CI caches and artifacts: no secret in them.
   */
  maskedBaseUrl?: string;
  profile: string;
  /** The run's --shard, as typed (`3/8`); undefined for a run without one, and in a journal from before shards. */
  shard?: string;
}

export interface JournalHeader extends JournalRun {
  /** When the journal was started, RFC 3339. */
  started: string;
  /**
   * A print of the credentials it was written with (credentials.ts), never the token; undefined
   * in a journal written by plantstore 2.0, which did not record them (read as it was).
   */
  credentials?: CredentialPrint;
  /** With a masked `baseUrl`: a print of the whole URL, which a resume's URL must match (identity.ts). */
  baseUrlPrint?: UrlPrint;
}

/** What a journal's last line for an id says of it; `sent`: its request may have left, and no result followed (in flight at a kill). */
export const Recorded = { deleted: 1, absent: 2, failed: 3, notSent: 4, sent: 5 } as const;
export type RecordedKind = keyof typeof Recorded;
export type RecordedCode = (typeof Recorded)[RecordedKind];
export const RECORDED_KINDS: readonly RecordedKind[] = ['deleted', 'absent', 'failed', 'notSent', 'sent'];

/**
 * The first line. The credentials' print is an optional field of format 2, not a format 3:
 * plantstore 2.0 still reads a journal started by this one (and ignores the print), as this
 * one reads 2.0's (without it).
 */
export function headerLine(run: JournalRun, started: Date, credentials?: CredentialPrint): string {
  return JSON.stringify({
    plantstore: JOURNAL_FORMAT,
    version: JOURNAL_VERSION,
    ...baseUrlFields(run),
    profile: run.profile,
    ...(run.shard === undefined ? {} : { shard: run.shard }),
    started: started.toISOString(),
    ...(credentials === undefined ? {} : { credentials }),
  });
}

/** The header in `text`, or why it is not one (a sentence part: "it is not a plantstore journal: <why>"). */
export function parseHeader(text: string): JournalHeader | { notHeader: string } {
  const value = parseObject(text);
  if (value === undefined) return { notHeader: 'its first line is not a JSON object' };
  if (value['plantstore'] !== JOURNAL_FORMAT) return { notHeader: `its first line does not say "plantstore":"${JOURNAL_FORMAT}"` };
  if (!READABLE_VERSIONS.includes(value['version'])) {
    // JSON, not String(): a version written as "1" must not read "format 1 ... reads format 1".
    return {
      notHeader: `it is in journal format ${JSON.stringify(value['version']) ?? 'undefined'}, and this plantstore reads formats ${READABLE_VERSIONS.join(' and ')}`,
    };
  }
  const { baseUrl, profile, started } = value;
  if (typeof baseUrl !== 'string' || typeof profile !== 'string' || typeof started !== 'string') {
    return { notHeader: 'its header lacks the base URL, the profile or the start time' };
  }
  // An optional field of format 2, as the credentials are: a journal without it is a run without --shard.
  const shard = value['shard'];
  if (shard !== undefined && typeof shard !== 'string') return { notHeader: 'its header names a shard that is not text' };
  // An optional field too: a header without it holds its base URL as it is (2.0's, or one with nothing masked).
  const urlPrint = value['baseUrlPrint'] === undefined ? undefined : parseUrlPrint(value['baseUrlPrint']);
  if (urlPrint !== undefined && 'notPrint' in urlPrint) return { notHeader: urlPrint.notPrint };
  const run = {
    baseUrl,
    profile,
    started,
    ...(shard === undefined ? {} : { shard }),
    ...(urlPrint === undefined ? {} : { baseUrlPrint: urlPrint }),
  };
  if (value['credentials'] === undefined) return run;
  const credentials = parsePrint(value['credentials']);
  if ('notPrint' in credentials) return { notHeader: credentials.notPrint };
  return { ...run, credentials };
}

// The writer's shape, `{"id":<digits>,`: ids keep their exact digits, which JSON.parse would round past 2^53.
// A line edited by hand may have spaces around the id: a whole line someone wrote is read, never cut as torn.
const ID_PREFIX = /^\{\s*"id"\s*:\s*(0|-?[1-9][0-9]{0,18})\s*,/;

const JSON_SPACE_AROUND = /^[ \t\r]|[ \t\r]$/;
const JSON_SPACE_AROUND_ALL = /^[ \t\r]+|[ \t\r]+$/g;

// The line resultJson writes for a deleted plant, exactly: nearly every line of a large journal.
// Matched without JSON.parse, which is most of a resume's read time (1.2 s -> 0.7 s for a million lines, measured by test/bench/journal.ts).
const DELETED_LINE = /^\{"id":(0|-?[1-9][0-9]{0,18}),"deleted":true,"status":[0-9]{3}\}$/;

/** The sent line for `id`, without its newline. */
export const sentLine = (id: string): string => `{"id":${id},"sent":true}`;

// The sent line, exactly: half the lines of a format-2 journal.
const SENT_LINE = /^\{"id":(0|-?[1-9][0-9]{0,18}),"sent":true\}$/;

const OPEN = Buffer.from('{"id":');
const SENT_TAIL = Buffer.from(',"sent":true}');
const DELETED_TAIL = Buffer.from(',"deleted":true,"status":');
const ZERO = 48;
const NINE = 57;
const MINUS = 45;

/**
 * The two lines nearly every journal line is (a sent line, a deleted line), read from the bytes
 * without making a string of them: a resume reads two million lines for a million ids, and the
 * strings were most of its time and garbage. Undefined for any other line, which parseResultLine
 * then reads; what this accepts, parseResultLine reads the same way.
 */
export function parseCommonLine(bytes: Buffer, start: number, end: number): { id: bigint; kind: RecordedCode } | undefined {
  if (end - start < OPEN.length + 1 + SENT_TAIL.length || !bytesAt(bytes, start, OPEN)) {
    return undefined;
  }
  let at = start + OPEN.length;
  const negative = bytes[at] === MINUS;
  if (negative) at++;
  const first = at;
  let value = 0;
  while (at < end && (bytes[at] as number) >= ZERO && (bytes[at] as number) <= NINE) value = value * 10 + ((bytes[at++] as number) - ZERO);
  const digits = at - first;
  // As the writer writes ids: no leading zero, no "-0"; and short enough to be exact as a number.
  if (digits === 0 || digits > 15 || (bytes[first] === ZERO && (digits > 1 || negative))) return undefined;
  const id = BigInt(negative ? -value : value);
  if (end - at === SENT_TAIL.length && bytesAt(bytes, at, SENT_TAIL)) return { id, kind: Recorded.sent };
  const status = at + DELETED_TAIL.length;
  if (end - at !== DELETED_TAIL.length + 4 || !bytesAt(bytes, at, DELETED_TAIL)) return undefined;
  for (let i = status; i < status + 3; i++) if ((bytes[i] as number) < ZERO || (bytes[i] as number) > NINE) return undefined;
  return bytes[end - 1] === 125 /* } */ ? { id, kind: Recorded.deleted } : undefined;
}

/**
 * Whether `bytes` holds `expected` at `at` (the caller checked there is room): a loop, where
 * Buffer.compare's checks of its arguments were a third of reading a million-id journal.
 */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** What parseResultLine reads of a line. */
export interface ResultLine {
  id: bigint;
  kind: RecordedCode;
  /**
   * A failure whose request may have reached the server with no decided answer (the
   * `"uncertain":true` of --json), which a later "no such plant" settles as an id in flight does.
   */
  uncertain?: boolean;
  /** A failure's fields, as parsed for its kind: `journal status` counts them by exit and error code without a second parse. */
  fields?: Record<string, unknown>;
}

/** One line's id and kind (a result line or a sent line), or undefined when the line is neither. */
export function parseResultLine(line: string): ResultLine | undefined {
  // A line edited by hand may have spaces, tabs or a CR (an editor's CRLF) before or after it: JSON allows them.
  const text = JSON_SPACE_AROUND.test(line) ? line.replace(JSON_SPACE_AROUND_ALL, '') : line;
  const sent = SENT_LINE.exec(text)?.[1];
  const deleted = sent === undefined ? DELETED_LINE.exec(text)?.[1] : undefined;
  const digits = sent ?? deleted ?? ID_PREFIX.exec(text)?.[1];
  if (digits === undefined) return undefined;
  const id = BigInt(digits);
  if (BigInt.asIntN(64, id) !== id) return undefined;
  if (sent !== undefined) return { id, kind: Recorded.sent };
  if (deleted !== undefined) return { id, kind: Recorded.deleted };
  // A failure line of the writer's shape gives the same fields without JSON.parse (failure-line.ts).
  const value = failureFields(text) ?? parseObject(text);
  if (value === undefined) return undefined;
  const kind = kindOf(value);
  if (kind === undefined) return undefined;
  if (kind !== Recorded.failed) return { id, kind };
  return isUncertainFailure(value) ? { id, kind, uncertain: true, fields: value } : { id, kind, fields: value };
}

/** Statuses of failures with no answer that 2.0 wrote without `uncertain`: a network failure, a timeout, a signal while waiting. */
const UNANSWERED_EXITS: readonly unknown[] = [7, 8, 129, 130, 143];

function isUncertainFailure(value: Record<string, unknown>): boolean {
  if ('uncertain' in value) return value['uncertain'] === true;
  // Written by 2.0, which did not say: a failure that got no answer at all may have reached the server.
  return value['status'] === null && UNANSWERED_EXITS.includes(value['exit']);
}

function kindOf(value: Record<string, unknown>): RecordedCode | undefined {
  // 2.0 wrote "no such plant" after an id in flight at a kill as deleted by the earlier run; nothing
  // proved that (the plant may never have existed), so it reads as what the server said: absent.
  if (value['deleted'] === true && value['earlierRun'] === true) return Recorded.absent;
  if (value['deleted'] === true) return Recorded.deleted;
  // A sent line written with spaces (`{"id": 42, "sent": true}`): the same line, as the docs promise.
  if (value['sent'] === true && value['deleted'] === undefined && Object.keys(value).length === 2) return Recorded.sent;
  if (value['deleted'] !== false) return undefined;
  if (value['absent'] === true) return Recorded.absent;
  if (value['attempted'] === false) return Recorded.notSent;
  return Recorded.failed;
}

/** Whether `text` is a JSON object: a whole line someone wrote on purpose, never what a kill or a power cut leaves. */
export function isJsonObject(text: string): boolean {
  return parseObject(text) !== undefined;
}

/** `text` as a JSON object, or undefined when it is not one. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  return parseObject(text);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The line `record` accepts for `id`: one line of the writer's shape, for that id. */
export function isResultLineFor(id: string, line: string): boolean {
  return line.startsWith(`{"id":${id},`) && line.endsWith('}') && !line.includes('\n');
}
