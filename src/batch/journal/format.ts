import { failureFields } from './failure-line.js';
import { parseJsonObject } from './json-object.js';
import { parseStateLine } from './records.js';

export { parseCommonLine, vocabularyOf } from './common-line.js';

/**
 * The journal's format: NDJSON, a header line, then two kinds of line, in the order they happened:
 * - a sent line, `{"id":42,"sent":true}`, written to the file before the id's request leaves
 *   (a write-ahead record: after a kill, the ids in flight are known exactly);
 * - a result line, once the id is decided: its state, in the engine's words, never a command's
 *   --json line (records.ts: `{"id":42,"state":"done","status":204}`).
 * An id's last line says what became of it. Ids are int64, past what JSON.parse keeps exact,
 * so an id is read from its digits.
 *
 * Format 3 names the operation that wrote it in its header, and records states. Formats 1 and 2
 * were written by delete alone, their result lines being delete's --json lines (`deleted`,
 * `absent`): still read, and a resumed one goes on in its own vocabulary (records.ts), so the
 * plantstore that wrote it can still read it. Format 1 had result lines only (format 2 added the
 * sent line). A run's start and end lines (run-record.ts) came later in format 2, as the header's
 * optional fields did: plantstore 2.0, which does not know them, refuses a journal holding them
 * as damaged (exit 2) rather than misread it.
 */

import { type CredentialPrint, parsePrint } from './credentials.js';
import { baseUrlFields, parseUrlPrint, type UrlPrint } from './url-print.js';
import { printField, SALT, splitPrint, type ValuePrint } from './value-print.js';

/** What the header says the file is; a file saying anything else is not read. */
export const JOURNAL_FORMAT = 'delete-journal';
export const JOURNAL_VERSION = 3;
/** The versions this plantstore reads. */
const READABLE_VERSIONS: readonly unknown[] = [1, 2, 3];
/** The operation of a header that names none: formats 1 and 2 were written by delete alone. */
export const UNNAMED_OPERATION = 'delete';
/** An operation's name as a header holds it: the command that runs it (`delete`, `plant get`); printed through shown(). */
const OPERATION_NAME = /^[^\u0000-\u001f\u007f]{1,100}$/;

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
  /**
   * The operation that writes it (the engine's Operation, by its command's name): a journal resumes
   * only the operation that wrote it. Undefined: UNNAMED_OPERATION (tests and benchmarks).
   */
  operation?: string;
  /**
   * Set for an operation whose ids carry a value (a rename's name): its name, and in a header the
   * salt of the prints each id line carries (value-print.ts). A journal resumes only a run that
   * agrees on whether ids carry values.
   */
  values?: { name: string; salt?: string };
}

export interface JournalHeader extends JournalRun {
  values?: { name: string; salt: string };
  /** Its format: 1, 2 (delete's --json lines as records) or 3 (states, records.ts). */
  version: number;
  /** The operation that wrote it: UNNAMED_OPERATION in formats 1 and 2, whose headers name none. */
  operation: string;
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

/**
 * What a journal's last line for an id says of it, in the engine's states (done, absent, failed,
 * not sent; a failure in flight is `failed` with RecordedIds' in-flight mark); `sent`: its request
 * may have left, and no result followed (in flight at a kill). Format 2's `deleted` is `done`.
 */
export const Recorded = { done: 1, absent: 2, failed: 3, notSent: 4, sent: 5 } as const;
export type RecordedKind = keyof typeof Recorded;
export type RecordedCode = (typeof Recorded)[RecordedKind];
export const RECORDED_KINDS: readonly RecordedKind[] = ['done', 'absent', 'failed', 'notSent', 'sent'];

/**
 * The first line, of format 3: the operation's name and its records are what formats 1 and 2
 * lacked, so an older plantstore refuses it by its version (exit 2, "this plantstore reads
 * formats 1 and 2") rather than misread a record. The credentials' print is an optional field,
 * as it was in format 2.
 */
export function headerLine(run: JournalRun, started: Date, credentials?: CredentialPrint): string {
  return JSON.stringify({
    plantstore: JOURNAL_FORMAT,
    version: JOURNAL_VERSION,
    operation: run.operation ?? UNNAMED_OPERATION,
    ...(run.values === undefined ? {} : { values: run.values }),
    ...baseUrlFields(run),
    profile: run.profile,
    ...(run.shard === undefined ? {} : { shard: run.shard }),
    started: started.toISOString(),
    ...(credentials === undefined ? {} : { credentials }),
  });
}

/** The header in `text`, or why it is not one (a sentence part: "it is not a plantstore journal: <why>"). */
export function parseHeader(text: string): JournalHeader | { notHeader: string } {
  const value = parseJsonObject(text);
  if (value === undefined) return { notHeader: 'its first line is not a JSON object' };
  if (value['plantstore'] !== JOURNAL_FORMAT) return { notHeader: `its first line does not say "plantstore":"${JOURNAL_FORMAT}"` };
  if (!READABLE_VERSIONS.includes(value['version'])) {
    // JSON, not String(): a version written as "1" must not read "format 1 ... reads format 1".
    return {
      notHeader: `it is in journal format ${JSON.stringify(value['version']) ?? 'undefined'}, and this plantstore reads formats ${READABLE_VERSIONS.slice(0, -1).join(', ')} and ${READABLE_VERSIONS.at(-1)}`,
    };
  }
  const { baseUrl, profile, started } = value;
  if (typeof baseUrl !== 'string' || typeof profile !== 'string' || typeof started !== 'string') {
    return { notHeader: 'its header lacks the base URL, the profile or the start time' };
  }
  const version = value['version'] as number;
  // Required from format 3 on; formats 1 and 2 were delete's, and name none.
  const operation = value['operation'] ?? (version < 3 ? UNNAMED_OPERATION : undefined);
  if (typeof operation !== 'string' || !OPERATION_NAME.test(operation)) {
    return { notHeader: 'its header does not name the operation that wrote it' };
  }
  // An optional field of format 2, as the credentials are: a journal without it is a run without --shard.
  const shard = value['shard'];
  if (shard !== undefined && typeof shard !== 'string') return { notHeader: 'its header names a shard that is not text' };
  // An optional field too: a header without it holds its base URL as it is (2.0's, or one with nothing masked).
  const urlPrint = value['baseUrlPrint'] === undefined ? undefined : parseUrlPrint(value['baseUrlPrint']);
  if (urlPrint !== undefined && 'notPrint' in urlPrint) return { notHeader: urlPrint.notPrint };
  // Format 3's, for an operation whose ids carry values: its name and the salt of the prints.
  const values = value['values'];
  if (values !== undefined && !isValuesField(values))
    return { notHeader: 'its header says its ids carry values, without their name and salt' };
  const run = {
    version,
    operation,
    ...(values === undefined ? {} : { values }),
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

function isValuesField(value: unknown): value is { name: string; salt: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { name, salt } = value as Record<string, unknown>;
  return typeof name === 'string' && OPERATION_NAME.test(name) && typeof salt === 'string' && SALT.test(salt);
}

// The writer's shape, `{"id":<digits>,`: ids keep their exact digits, which JSON.parse would round past 2^53.
// A line edited by hand may have spaces around the id: a whole line someone wrote is read, never cut as torn.
const ID_PREFIX = /^\{\s*"id"\s*:\s*(0|-?[1-9][0-9]{0,18})\s*,/;

const JSON_SPACE_AROUND = /^[ \t\r]|[ \t\r]$/;
const JSON_SPACE_AROUND_ALL = /^[ \t\r]+|[ \t\r]+$/g;

// Format 2's line for a deleted plant, exactly: nearly every line of a large journal of delete's.
// Matched without JSON.parse, which is most of a resume's read time (1.2 s -> 0.7 s for a million lines, measured by test/bench/journal.ts).
const DELETED_LINE = /^\{"id":(0|-?[1-9][0-9]{0,18}),"deleted":true,"status":[0-9]{3}\}$/;

/** The sent line for `id`, without its newline; with its value's print, in a journal whose ids carry values. */
export const sentLine = (id: string, print?: string): string => `{"id":${id}${printField(print)},"sent":true}`;

// The sent line, exactly: half the lines of a journal.
const SENT_LINE = /^\{"id":(0|-?[1-9][0-9]{0,18}),"sent":true\}$/;

/** What parseResultLine reads of a line. */
export interface ResultLine {
  id: bigint;
  kind: RecordedCode;
  /**
   * A failure whose request may have reached the server with no decided answer (format 3's
   * `"state":"in-flight"`, format 2's `"uncertain":true`), which a later "no such plant" settles as an id in flight does.
   */
  uncertain?: boolean;
  /** A failure's fields, as parsed for its kind: `journal status` counts them by exit and error code without a second parse. */
  fields?: Record<string, unknown>;
  /** In a journal whose ids carry values: the print of the value the line is about. */
  print?: ValuePrint;
}

/**
 * One line's id and kind (a result line or a sent line) in a journal of `vocabulary`, or undefined
 * when the line is neither; `valued`: the journal's ids carry values, and each of its id lines a print.
 */
export function parseResultLine(line: string, vocabulary: '2' | '3' = '2', valued = false): ResultLine | undefined {
  // A line edited by hand may have spaces, tabs or a CR (an editor's CRLF) before or after it: JSON allows them.
  const text = JSON_SPACE_AROUND.test(line) ? line.replace(JSON_SPACE_AROUND_ALL, '') : line;
  if (valued) {
    const split = splitPrint(text);
    const read = split && parseResultLine(split.text, vocabulary);
    return read && split && { ...read, print: split.print };
  }
  const sent = SENT_LINE.exec(text)?.[1];
  const deleted = sent === undefined && vocabulary === '2' ? DELETED_LINE.exec(text)?.[1] : undefined;
  const digits = sent ?? deleted ?? ID_PREFIX.exec(text)?.[1];
  if (digits === undefined) return undefined;
  const id = BigInt(digits);
  if (BigInt.asIntN(64, id) !== id) return undefined;
  if (sent !== undefined) return { id, kind: Recorded.sent };
  if (deleted !== undefined) return { id, kind: Recorded.done };
  if (vocabulary === '3') {
    const read = parseStateLine(text);
    return read === undefined ? undefined : { id, ...read };
  }
  // A failure line of the writer's shape gives the same fields without JSON.parse (failure-line.ts).
  const value = failureFields(text) ?? parseJsonObject(text);
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
  if (value['deleted'] === true) return Recorded.done;
  // A sent line written with spaces (`{"id": 42, "sent": true}`): the same line, as the docs promise.
  if (isSpacedSentLine(value)) return Recorded.sent;
  if (value['deleted'] !== false) return undefined;
  if (value['absent'] === true) return Recorded.absent;
  if (value['attempted'] === false) return Recorded.notSent;
  return Recorded.failed;
}

/** Whether `text` is a JSON object: a whole line someone wrote on purpose, never what a kill or a power cut leaves. */
/** A sent line written with spaces (`{"id": 42, "sent": true}`): the same line, as the docs promise. */
export const isSpacedSentLine = (value: Record<string, unknown>): boolean => value['sent'] === true && Object.keys(value).length === 2;

/** The line `record` accepts for `id`: one line of the writer's shape, for that id. */
export function isResultLineFor(id: string, line: string): boolean {
  return line.startsWith(`{"id":${id},`) && line.endsWith('}') && !line.includes('\n');
}
