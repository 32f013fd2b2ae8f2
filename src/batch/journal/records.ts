import { stateFailureFields } from './failure-line.js';
import { parseJsonObject } from './json-object.js';
import { printField } from './value-print.js';

/** format.ts Recorded's codes, written out: format.ts reads this module, which reads nothing of it. */
type RecordedCode = 1 | 2 | 3 | 4 | 5;

/**
 * A journal's result lines: what became of an id, in the engine's states, written by the engine
 * from the result's kind and the operation's details of it (engine/operation.ts Results), never
 * from a command's --json line, which is output only.
 *
 * Format 3, one shape a state:
 * - `{"id":42,"state":"done","status":204}` and `{"id":42,"state":"absent","status":404}`;
 * - `{"id":42,"state":"failed","status":403,"error":7,"message":"not yours","exit":4}`, and the
 *   same fields for `in-flight` (sent with no decided answer) and `not-sent` (its sent line was
 *   written, then a stop kept its request from leaving).
 *
 * In a journal whose ids carry values (a rename's names), each id line carries the print of its
 * value right after the id (value-print.ts): `{"id":42,"valuePrint":"9f86d081884c7d65","state":"done","status":200}`.
 *
 * A journal of format 1 or 2, resumed, goes on in its own vocabulary, delete's --json lines, so
 * that the plantstore that started it can still read it (format.ts reads both).
 */

/** The states a result line records: the engine's ResultKind, less `skipped` (an id not sent is not recorded again). */
export type RecordState = 'done' | 'absent' | 'failed' | 'in-flight' | 'not-sent';

/** What one result line says. */
export interface JournalRecord {
  state: RecordState;
  /** The HTTP status of the answer that decided it; null when none came (or none was sent). */
  status: number | null;
  /** Of a failure (failed, in flight, not sent): the API's error code, null when the answer had none. */
  error?: number | null;
  /** Of a failure: why, in words, masked (no secret in a file that travels as a CI artifact). */
  message?: string;
  /** Of a failure: the exit code it stands for. */
  exit?: number;
}

/** The line for `id`, without its newline, in the vocabulary of the journal it goes to; `print`: its value's, in a journal of values. */
export function recordLine(id: string, record: JournalRecord, vocabulary: '2' | '3', print?: string): string {
  const status = record.status ?? 'null';
  if (vocabulary === '2') return format2Line(id, record);
  const head = `{"id":${id}${printField(print)},"state":"${record.state}","status":${status}`;
  if (record.state === 'done' || record.state === 'absent') return `${head}}`;
  return `${head},${failureTail(record)}}`;
}

function failureTail(record: JournalRecord): string {
  return `"error":${record.error ?? 'null'},"message":${JSON.stringify(record.message ?? '')},"exit":${record.exit ?? 1}`;
}

/** Format 2's line for a state, as delete's --json wrote it (the fields its readers use, no others). */
function format2Line(id: string, record: JournalRecord): string {
  const status = record.status ?? 'null';
  switch (record.state) {
    case 'done':
      return `{"id":${id},"deleted":true,"status":${status}}`;
    case 'absent':
      return `{"id":${id},"deleted":false,"absent":true,"status":${status}}`;
    default: {
      const tail = record.state === 'in-flight' ? ',"uncertain":true' : record.state === 'not-sent' ? ',"attempted":false' : '';
      return `{"id":${id},"deleted":false,"status":${status},${failureTail(record)}${tail}}`;
    }
  }
}

const CODES: Record<RecordState, RecordedCode> = { done: 1, absent: 2, failed: 3, 'in-flight': 3, 'not-sent': 4 };

/**
 * A format-3 result line's kind (format.ts Recorded), or undefined when it is not one. A failure
 * of the writer's shape is read without JSON.parse (failure-line.ts); any other line is parsed whole.
 */
export function parseStateLine(text: string): { kind: RecordedCode; uncertain?: true; fields?: Record<string, unknown> } | undefined {
  const value = stateFailureFields(text) ?? parseJsonObject(text);
  if (value === undefined) return undefined;
  // A sent line written with spaces (`{"id": 42, "sent": true}`): the same line, as the docs promise.
  if (value['sent'] === true && Object.keys(value).length === 2) return { kind: 5 };
  const state = value['state'];
  if (typeof state !== 'string' || !Object.hasOwn(CODES, state)) return undefined;
  const kind = CODES[state as RecordState];
  if (state === 'failed') return { kind, fields: value };
  if (state === 'in-flight') return { kind, uncertain: true, fields: value };
  return { kind };
}
