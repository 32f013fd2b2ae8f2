import fs from 'node:fs';
import { normalizeBaseUrl } from '../../config/base-url.js';
import { JournalRefusedError, shownPath, shownUrl } from './errors.js';
import { Recorded } from './format.js';
import { IdTable } from './id-table.js';
import { readJournal } from './read.js';
import { openForReading, rawHeader, runHoldsLock } from './read-only.js';

/**
 * What one or more journals (the shards of one job) record, read without a lock and without
 * writing anything (`plantstore journal status` and `journal failed`).
 *
 * Each id counts once, by its last line in its file; an id found in several files counts by the
 * file that says the most of it: deleted, then absent, then in flight, then failed, then not
 * sent (between two files that say the same, the one given later).
 */
export type IdState = 'deleted' | 'absent' | 'inFlight' | 'failed' | 'notSent';

/** Ranked: a higher state wins across files. Stored in the low 3 bits of the merged table's values. */
const STATE = { notSent: 1, failed: 2, inFlight: 3, absent: 4, deleted: 5 } as const satisfies Record<IdState, number>;
const STATE_NAMES: Record<number, IdState> = { 1: 'notSent', 2: 'failed', 3: 'inFlight', 4: 'absent', 5: 'deleted' };
const STATE_BITS = 3;
const STATE_MASK = (1 << STATE_BITS) - 1;

/** An id's last failure line: the exit code it stands for and the API's error code, when it had them. */
export interface FailureDetail {
  exit: number | undefined;
  error: number | undefined;
}

export interface JournalFileSummary {
  file: string;
  /** Undefined for an empty file: a journal created by a run stopped before it wrote its header. */
  started: string | undefined;
  /** The header's shard ("I/N"), when it has one. */
  shard: string | undefined;
  /** A live plantstore holds its lock: the counts are those of the moment it was read. */
  running: boolean;
  /** Bytes at the end left out: a line being written by the run that holds it, or torn by a stop. */
  tornBytes: number;
}

export interface JournalSummary {
  files: JournalFileSummary[];
  /** The base URL fit to print (errors.ts shownUrl), undefined when every file is empty. */
  baseUrl: string | undefined;
  profile: string | undefined;
  counts: Record<IdState, number>;
  /** Ids counted `failed`, by the exit code of their last failure line. */
  failedByExit: Record<string, number>;
  /** Ids counted `failed` whose last failure carried an API error code, by that code. */
  failedByError: Record<string, number>;
  /** Every id whose state is in `states`, in numeric order, with its last failure (for a failed or in-flight one). */
  ids(states: readonly IdState[]): Array<{ id: bigint; state: IdState; failure: FailureDetail | undefined }>;
}

/** Reads `files` in order; refuses (exit 2, one line) a file that is not a journal, or journals of different runs. */
export async function summarizeJournals(files: readonly string[], signal?: AbortSignal): Promise<JournalSummary> {
  const merged = new IdTable();
  const details: FailureDetail[] = [];
  const detailIndex = new Map<string, number>();
  /** The index (from 1) of a failure's detail in `details`, shared by every id that failed the same way. */
  const intern = (detail: FailureDetail): number => {
    const key = `${detail.exit}/${detail.error}`;
    let index = detailIndex.get(key);
    if (index === undefined) {
      details.push(detail);
      index = details.length;
      detailIndex.set(key, index);
    }
    return index;
  };
  const summaries: JournalFileSummary[] = [];
  let run: { file: string; baseUrl: string; profile: string } | undefined;

  for (const file of files) {
    const fd = openForReading(file);
    const lastFailure = new IdTable();
    let contents: Awaited<ReturnType<typeof readJournal>>;
    try {
      const running = runHoldsLock(file);
      contents = await readJournal(fd, file, signal, (id, text) => lastFailure.set(id, intern(failureDetail(text))));
      const header = contents.header;
      const shard = header === undefined ? undefined : shardOf(rawHeader(fd));
      summaries.push({ file, started: header?.started, shard, running, tornBytes: contents.tornBytes });
      if (header !== undefined) {
        if (run === undefined) run = { file, baseUrl: header.baseUrl, profile: header.profile };
        else if (!sameRun(run, header)) throw otherRuns(run, { file, ...header });
      }
    } catch (error) {
      throw error instanceof JournalRefusedError && error.reason === 'not-journal' ? notJournal(error) : error;
    } finally {
      closeQuietly(fd);
    }
    contents.recorded.forEach((id, kind, inFlight) => {
      const state = inFlight ? STATE.inFlight : stateOf(kind);
      const detail = kind === Recorded.failed ? lastFailure.get(id) : 0;
      const previous = merged.get(id);
      if (previous === 0 || state >= (previous & STATE_MASK)) merged.set(id, state | (detail << STATE_BITS));
    });
  }

  const counts: Record<IdState, number> = { deleted: 0, absent: 0, failed: 0, inFlight: 0, notSent: 0 };
  const failedByExit: Record<string, number> = {};
  const failedByError: Record<string, number> = {};
  merged.forEach((_id, value) => {
    const state = STATE_NAMES[value & STATE_MASK] as IdState;
    counts[state]++;
    if (state !== 'failed') return;
    const detail = details[(value >>> STATE_BITS) - 1];
    if (detail?.exit !== undefined) failedByExit[detail.exit] = (failedByExit[detail.exit] ?? 0) + 1;
    if (detail?.error !== undefined) failedByError[detail.error] = (failedByError[detail.error] ?? 0) + 1;
  });

  return {
    files: summaries,
    baseUrl: run === undefined ? undefined : shownUrl(run.baseUrl),
    profile: run?.profile,
    counts,
    failedByExit,
    failedByError,
    ids(states) {
      const wanted = new Set(states.map((state) => STATE[state]));
      const found: bigint[] = [];
      merged.forEach((id, value) => {
        if (wanted.has((value & STATE_MASK) as (typeof STATE)[IdState])) found.push(id);
      });
      // Numeric order, whatever order the files and the table hold them in: the same files give the same list.
      const sorted = BigInt64Array.from(found).sort();
      return Array.from(sorted, (id) => {
        const value = merged.get(id);
        const detail = details[(value >>> STATE_BITS) - 1];
        return { id, state: STATE_NAMES[value & STATE_MASK] as IdState, failure: detail };
      });
    },
  };
}

function stateOf(kind: number): number {
  switch (kind) {
    case Recorded.deleted:
      return STATE.deleted;
    case Recorded.absent:
      return STATE.absent;
    case Recorded.failed:
      return STATE.failed;
    case Recorded.notSent:
      return STATE.notSent;
    default:
      return STATE.inFlight;
  }
}

/** A failure line's exit and error codes: only failure lines are parsed whole (they are few, and JSON). */
function failureDetail(text: string): FailureDetail {
  const value = JSON.parse(text) as Record<string, unknown>;
  const code = (field: unknown): number | undefined => (Number.isSafeInteger(field) ? (field as number) : undefined);
  return { exit: code(value['exit']), error: code(value['error']) };
}

/** The header's shard, if a plantstore that writes one wrote it: "I/N", or {index, count}. */
function shardOf(header: Record<string, unknown>): string | undefined {
  const shard = header['shard'];
  if (typeof shard === 'string' && /^\d+\/\d+$/.test(shard)) return shard;
  if (typeof shard === 'object' && shard !== null) {
    const { index, count } = shard as Record<string, unknown>;
    if (Number.isSafeInteger(index) && Number.isSafeInteger(count)) return `${index}/${count}`;
  }
  return undefined;
}

function sameRun(a: { baseUrl: string; profile: string }, b: { baseUrl: string; profile: string }): boolean {
  return a.profile === b.profile && normalized(a.baseUrl) === normalized(b.baseUrl);
}

function normalized(url: string): string {
  try {
    return normalizeBaseUrl(url, 'the journal');
  } catch {
    return url;
  }
}

function otherRuns(a: { file: string; baseUrl: string; profile: string }, b: { file: string; baseUrl: string; profile: string }) {
  const of = (run: typeof a) => `${shownPath(run.file)} (${shownUrl(run.baseUrl)}, profile ${shownPath(run.profile)})`;
  return new JournalRefusedError(
    'other-run',
    `${of(a)} and ${of(b)} are journals of different runs: several files are summed only when they are the shards of one job; read them one at a time`,
  );
}

/** The reader's words for a file that is not a journal, without its advice for --journal. */
function notJournal(error: JournalRefusedError): JournalRefusedError {
  return new JournalRefusedError('not-journal', `${error.message.replace(/: give --journal .*$/, '')}: give the path of a --journal file`);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // A descriptor only read from: nothing was written that a failed close could lose.
  }
}
