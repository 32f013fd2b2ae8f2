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
  readAll?: boolean;
}

export interface RunStart {
  started: string;
  ids: number;
}

export const startLine = (start: RunStart): string => JSON.stringify({ start: start.started, ids: start.ids });

export function endLine(end: RunEnd): string {
  if (end.ids === undefined) return JSON.stringify({ end: end.ending });
  return JSON.stringify({ end: end.ending, ids: end.ids, notSent: end.notSent, unrecorded: end.unrecorded, readAll: end.readAll });
}

/** A start or end line read back, or undefined when `text` is neither. */
export function parseRunLine(value: Record<string, unknown>): { start: RunStart } | { end: RunEnd } | undefined {
  if (typeof value['start'] === 'string' && isCount(value['ids'])) return { start: { started: value['start'], ids: value['ids'] } };
  const ending = value['end'];
  if (typeof ending !== 'string' || !/^[a-zA-Z][a-zA-Z0-9-]{0,40}$/.test(ending)) return undefined;
  const { ids, notSent, unrecorded, readAll } = value;
  if (ids === undefined) return { end: { ending } };
  if (!isCount(ids) || !isCount(notSent) || !isCount(unrecorded) || typeof readAll !== 'boolean') return undefined;
  if (notSent > ids || unrecorded > notSent) return undefined;
  return { end: { ending, ids, notSent, unrecorded, readAll } };
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
