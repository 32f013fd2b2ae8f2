/**
 * A run's own lines in its journal (added to format 2), beside the ids' lines: where it began and how it
 * ended. An id never sent gets no line of its own (a stop in a million ids must not write a
 * million lines), so only the run can say how many it left: its end line counts them.
 *
 * - `{"start":"2026-03-01T12:00:00.000Z","ids":3000}`: a run began sending, with 3000 ids
 *   (its shard's part of its input), read to the end before anything was sent;
 * - `{"end":"max-duration","ids":3000,"notSent":2105,"unrecorded":2100,"readAll":true}`: how it
 *   ended (RunEnding), how many of its ids it did not send, how many of those no line of the
 *   journal names (never sent by any run: the ones `journal failed` cannot list), and whether it
 *   had read its whole input. A run that ended in an error writes `{"end":"error"}` alone: it
 *   cannot vouch for its counts.
 *
 * A start line with no end line after it is a run that did not end as a run ends: killed
 * (kill -9, an OOM kill, a second signal), or one whose journal could not be written.
 */

/**
 * How a run ended: `finished` (every id it had was decided or skipped), a signal's name
 * (`SIGINT`, `SIGTERM`, `SIGHUP`), `max-duration`, `max-failures`, `fail-fast`, `gave-up` (the
 * service kept refusing), or `error`. A reader meets any other word as "ended: WORD".
 */
export type RunEnding = string;

export interface RunEnd {
  ending: RunEnding;
  /** Undefined in an `error` end: the run could not count. */
  ids?: number;
  notSent?: number;
  unrecorded?: number;
  /**
   * Ids an earlier run left unsent and unnamed that this run's list did not hold (its retry of
   * `journal failed`, say): still left, and still in no line. Null when the run cannot tell
   * (its list held some ids no line named, but not exactly those). Absent means 0.
   */
  earlier?: number | null;
  /** Fingerprint of the ids counted in unrecorded + earlier (outstandingSum), when there are any. */
  sum?: string;
  readAll?: boolean;
}

/** The ids a run's end line says are left with no line: its own unrecorded and the earlier ones; undefined when unknown. */
export function outstanding(end: RunEnd): number | undefined {
  if (end.unrecorded === undefined || end.earlier === null) return undefined;
  return end.unrecorded + (end.earlier ?? 0);
}

/** An id's share of a set's fingerprint (FNV-1a of its canonical digits): the sum of the set's, mod 2^32. */
export function idPrint(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

export interface RunStart {
  started: string;
  ids: number;
}

export const startLine = (start: RunStart): string => JSON.stringify({ start: start.started, ids: start.ids });

export function endLine(end: RunEnd): string {
  if (end.ids === undefined) return JSON.stringify({ end: end.ending });
  return JSON.stringify({
    end: end.ending,
    ids: end.ids,
    notSent: end.notSent,
    unrecorded: end.unrecorded,
    ...(end.earlier === 0 || end.earlier === undefined ? {} : { earlier: end.earlier }),
    ...(end.sum === undefined ? {} : { sum: end.sum }),
    readAll: end.readAll,
  });
}

/** A start or end line read back, or undefined when `text` is neither. */
export function parseRunLine(value: Record<string, unknown>): { start: RunStart } | { end: RunEnd } | undefined {
  if (typeof value['start'] === 'string' && isCount(value['ids'])) return { start: { started: value['start'], ids: value['ids'] } };
  const ending = value['end'];
  if (typeof ending !== 'string' || !/^[a-zA-Z][a-zA-Z0-9-]{0,40}$/.test(ending)) return undefined;
  const { ids, notSent, unrecorded, readAll, earlier, sum } = value;
  if (ids === undefined) return { end: { ending } };
  if (!isCount(ids) || !isCount(notSent) || !isCount(unrecorded) || typeof readAll !== 'boolean') return undefined;
  if (notSent > ids || unrecorded > notSent) return undefined;
  if (earlier !== undefined && earlier !== null && !isCount(earlier)) return undefined;
  if (sum !== undefined && (typeof sum !== 'string' || !/^[0-9a-f]{8}$/.test(sum))) return undefined;
  return {
    end: {
      ending,
      ids,
      notSent,
      unrecorded,
      readAll,
      ...(earlier === undefined ? {} : { earlier }),
      ...(sum === undefined ? {} : { sum }),
    },
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** What a journal says of its last run. */
export type LastRun =
  /** No start or end line: written by plantstore 2.0, which did not record its runs. */
  | { kind: 'unrecorded' }
  /** A start line with no end after it (or id lines after the last end): killed, or still running. */
  | { kind: 'no-end'; start: RunStart | undefined }
  | { kind: 'ended'; start: RunStart | undefined; end: RunEnd };

/** Follows the run lines of one journal as it is read; lastRun() says what the last one was. */
export class RunLines {
  #start: RunStart | undefined;
  #end: RunEnd | undefined;
  #seen = false;
  /** The line number of the last start or end line. */
  #line = 0;

  take(record: { start: RunStart } | { end: RunEnd }, line: number): void {
    this.#seen = true;
    this.#line = line;
    if ('start' in record) {
      this.#start = record.start;
      this.#end = undefined;
    } else {
      this.#end = record.end;
    }
  }

  /** `lastIdLine`: the line number of the journal's last id line (0 when none). */
  lastRun(lastIdLine: number): LastRun {
    if (!this.#seen) return { kind: 'unrecorded' };
    // Id lines after the end line: a run wrote them without a start line (a hand edit): its end is unknown.
    if (this.#end === undefined || lastIdLine > this.#line) return { kind: 'no-end', start: this.#start };
    return { kind: 'ended', start: this.#start, end: this.#end };
  }
}
