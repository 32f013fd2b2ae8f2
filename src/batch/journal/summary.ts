import fs from 'node:fs';
import { JournalRefusedError, shownPath, shownUrl } from './errors.js';
import { type FailureDetail, FailureDetails, failureDetail, LastFailures } from './failure-details.js';
import { checkJournalFolder } from './file-trust.js';
import { Recorded, type RecordedCode } from './format.js';
import { IdTable } from './id-table.js';
import { sameBaseUrl } from './identity.js';
import { type FileRun, fileRun, type JobState, jobState } from './job-state.js';
import { openJournalFile } from './journal-file.js';
import { runHoldsLock } from './journal-lock.js';
import { readJournal } from './read.js';
import type { RecordedIds } from './recorded-ids.js';

/**
 * What one or more journals (the shards of one job) record, read without a lock and without
 * writing anything (`plantstore journal status` and `journal failed`).
 *
 * Each id counts once, by its last line in its file; an id found in several files counts by the
 * file that says the most of it: done, then absent, then in flight, then failed, then not
 * sent (between two files that say the same, the one given later). The states are the engine's
 * (engine/operation.ts ResultKind); the words a command prints for them are the operation's
 * (engine/journal-words.ts), found by the header's operation.
 */
export type IdState = 'done' | 'absent' | 'inFlight' | 'failed' | 'notSent';

/** Ranked: a higher state wins across files. Stored in the low 3 bits of the merged table's values. */
export const STATE = { notSent: 1, failed: 2, inFlight: 3, absent: 4, done: 5 } as const satisfies Record<IdState, number>;
export const STATE_NAMES: Record<number, IdState> = { 1: 'notSent', 2: 'failed', 3: 'inFlight', 4: 'absent', 5: 'done' };
const STATE_BITS = 3;
const STATE_MASK = (1 << STATE_BITS) - 1;

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
  /** How its last run ended, as its run lines say. */
  run: FileRun;
}

export interface JournalSummary {
  files: JournalFileSummary[];
  /** The base URL fit to print (errors.ts shownUrl), undefined when every file is empty. */
  baseUrl: string | undefined;
  profile: string | undefined;
  /** The operation that wrote them (format.ts: delete for a header that names none); undefined when every file is empty. */
  operation: string | undefined;
  counts: Record<IdState, number>;
  /** Whether the job is finished, how its last runs ended, and the ids never sent (job-state.ts). */
  job: JobState;
  /** Ids counted `failed`, by the exit code of their last failure line. */
  failedByExit: Record<string, number>;
  /** Ids counted `failed` whose last failure carried an API error code, by that code. */
  failedByError: Record<string, number>;
  /** Every id whose state is one of `states`, in numeric order, whatever order the files hold them in. */
  idsIn(states: readonly IdState[]): BigInt64Array;
  /** Whether the journals record `id` as done, or absent. */
  isDone(id: bigint): boolean;
  /** What the journals say of `id`, one of theirs: its state, and its last failure for a failed or in-flight one. */
  describe(id: bigint): { state: IdState | undefined; failure: FailureDetail | undefined };
}

/** Reads `files` in order; refuses (exit 2, one line) a file that is not a journal, or journals of different runs. */
export async function summarizeJournals(files: readonly string[], signal?: AbortSignal): Promise<JournalSummary> {
  const details = new FailureDetails();
  const summaries: JournalFileSummary[] = [];
  const read: States[] = [];
  let run: RunOfFile | undefined;
  // One journal is read as it is; several are merged id by id into one table.
  let merged: IdTable | undefined;

  for (const file of files) {
    // Trusted as a run trusts it: the whole path, then the file (journal-file.ts).
    checkJournalFolder(file);
    const fd = openJournalFile(file, 'reading');
    const lastFailures = new LastFailures();
    try {
      const running = runHoldsLock(file);
      const contents = await readJournal(fd, file, signal, (id, fields) => lastFailures.record(id, details.intern(failureDetail(fields))));
      const header = contents.header;
      const shard = header?.shard;
      summaries.push({
        file,
        started: header?.started,
        shard,
        running,
        tornBytes: contents.tornBytes,
        run: fileRun(contents.lastRun, running),
      });
      if (header !== undefined) {
        if (run === undefined) run = { file, baseUrl: header.baseUrl, profile: header.profile, operation: header.operation };
        else if (!sameRun(run, header)) throw otherRuns(run, { file, ...header });
      }
      read.push(fileStates(contents.recorded, lastFailures));
    } catch (error) {
      throw error instanceof JournalRefusedError && error.reason === 'not-journal' ? notJournal(error) : error;
    } finally {
      closeQuietly(fd);
    }
    if (files.length > 1) {
      merged ??= new IdTable();
      const table = merged;
      (read.pop() as States).forEach((id, value) => {
        const previous = table.get(id);
        if (previous === 0 || (value & STATE_MASK) >= (previous & STATE_MASK)) table.set(id, value);
      });
    }
  }
  const states: States =
    merged === undefined ? (read[0] as States) : { forEach: (visit) => merged.forEach(visit), get: (id) => merged.get(id) };

  const counts: Record<IdState, number> = { done: 0, absent: 0, failed: 0, inFlight: 0, notSent: 0 };
  const byState = [0, 0, 0, 0, 0, 0];
  const failedByDetail = new Map<number, number>();
  states.forEach((_id, value) => {
    const state = value & STATE_MASK;
    byState[state] = (byState[state] as number) + 1;
    if (state === STATE.failed) failedByDetail.set(value >>> STATE_BITS, (failedByDetail.get(value >>> STATE_BITS) ?? 0) + 1);
  });
  for (const [code, name] of Object.entries(STATE_NAMES)) counts[name] = byState[Number(code)] as number;
  const failedByExit: Record<string, number> = {};
  const failedByError: Record<string, number> = {};
  for (const [index, n] of failedByDetail) {
    const detail = details.at(index);
    if (detail?.exit !== undefined) failedByExit[detail.exit] = (failedByExit[detail.exit] ?? 0) + n;
    if (detail?.error !== undefined) failedByError[detail.error] = (failedByError[detail.error] ?? 0) + n;
  }

  return {
    files: summaries,
    baseUrl: run === undefined ? undefined : shownUrl(run.baseUrl),
    profile: run?.profile,
    operation: run?.operation,
    counts,
    job: jobState(
      summaries.map((file) => ({ shard: file.shard, empty: file.started === undefined, run: file.run })),
      counts.notSent,
    ),
    failedByExit,
    failedByError,
    isDone(id) {
      const state = states.get(id) & STATE_MASK;
      return state === STATE.done || state === STATE.absent;
    },
    idsIn(wanted) {
      const codes = new Set<number>(wanted.map((state) => STATE[state]));
      const ids = new BigInt64Array(wanted.reduce((sum, state) => sum + counts[state], 0));
      let at = 0;
      states.forEach((id, value) => {
        if (codes.has(value & STATE_MASK)) ids[at++] = id;
      });
      // Numeric order: the same files give the same list, in whatever order they are named.
      return ids.sort();
    },
    describe(id) {
      const value = states.get(id);
      return { state: STATE_NAMES[value & STATE_MASK], failure: details.at(value >>> STATE_BITS) };
    },
  };
}

/** Each id's state and last failure, packed: the state in the low bits, the failure's detail index above them. */
interface States {
  forEach(visit: (id: bigint, value: number) => void): void;
  get(id: bigint): number;
}

/** One journal's ids, as it records them. */
function fileStates(recorded: RecordedIds, lastFailures: LastFailures): States {
  const packed = (id: bigint, kind: RecordedCode, inFlight: boolean): number => {
    const state = inFlight ? STATE.inFlight : stateOf(kind);
    // A failure's detail is kept for a failed id, and for one in flight after a failure (--json says its last exit).
    const detail = kind === Recorded.failed ? lastFailures.get(id) : 0;
    return state | (detail << STATE_BITS);
  };
  return {
    forEach(visit) {
      recorded.forEach((id, kind, inFlight) => {
        visit(id, packed(id, kind, inFlight));
      });
    },
    get(id) {
      const kind = recorded.get(id);
      return kind === 0 ? 0 : packed(id, kind, recorded.wasInFlight(id));
    },
  };
}

export function stateOf(kind: RecordedCode): number {
  switch (kind) {
    case Recorded.done:
      return STATE.done;
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

/** What tells the files of one job: the run's base URL and profile, and the operation that wrote them. */
export interface RunOfFile {
  file: string;
  baseUrl: string;
  profile: string;
  operation: string;
}

export function sameRun(a: Omit<RunOfFile, 'file'>, b: Omit<RunOfFile, 'file'>): boolean {
  return a.profile === b.profile && a.operation === b.operation && sameBaseUrl(a.baseUrl, b.baseUrl);
}

export function otherRuns(a: RunOfFile, b: RunOfFile) {
  // The operation is named only when it differs: the journals of one verb read as they always have.
  const by = (run: RunOfFile) => (a.operation === b.operation ? '' : `, written by plantstore ${shownPath(run.operation)}`);
  const of = (run: RunOfFile) => `${shownPath(run.file)} (${shownUrl(run.baseUrl)}, profile ${shownPath(run.profile)}${by(run)})`;
  return new JournalRefusedError(
    'other-run',
    `${of(a)} and ${of(b)} are journals of different runs: several files are summed only when they are the shards of one job; read them one at a time`,
  );
}

/** The reader's words for a file that is not a journal, without its advice for --journal. */
export function notJournal(error: JournalRefusedError): JournalRefusedError {
  return new JournalRefusedError('not-journal', `${error.message.replace(/: give --journal .*$/, '')}: give the path of a --journal file`);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // A descriptor only read from: nothing was written that a failed close could lose.
  }
}
