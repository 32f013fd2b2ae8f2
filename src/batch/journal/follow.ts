import fs from 'node:fs';
import { JournalRefusedError } from './errors.js';
import { checkJournalFolder, checkJournalMode } from './file-trust.js';
import type { JournalHeader } from './format.js';
import { IdTable } from './id-table.js';
import { type FileRun, fileRun, type JobState, jobState } from './job-state.js';
import { openJournalFile } from './journal-file.js';
import { runHoldsLock } from './journal-lock.js';
import { JournalReader } from './read.js';
import type { RecordedIds } from './recorded-ids.js';
import { type IdState, notJournal, otherRuns, type RunOfFile, STATE, STATE_NAMES, sameRun, stateOf } from './summary.js';

/**
 * The shards of one job followed as runs write them (`journal status --watch`): each refresh
 * reads only the bytes each journal gained since the last (read.ts JournalReader), and keeps
 * the counts as they change, id by id, rather than summing the files again: a refresh of four
 * 250,000-id journals costs what their new lines cost. Counted as `journal status` counts
 * (summary.ts): each id once, by the file that says the most of it. No lock is taken; each file
 * is trusted as a run trusts it (file-trust.ts), when opened and, its mode, at every refresh.
 */

/** What one file says now. */
export interface FollowedFile {
  file: string;
  /** The header's shard ("I/N"), when it has one. */
  shard: string | undefined;
  /** Undefined while the file is empty (a run that has not written its header yet, or was stopped before). */
  started: string | undefined;
  /** A live plantstore holds its lock. */
  running: boolean;
  run: FileRun;
  /** The ids this file's own lines record, by state. */
  counts: Record<IdState, number>;
}

export interface FollowedJob {
  files: FollowedFile[];
  /** The operation that wrote them (format.ts: delete for a header that names none); undefined while every file is empty. */
  operation: string | undefined;
  /** The ids of all the files, each counted once. */
  counts: Record<IdState, number>;
  job: JobState;
  /** The ids the job has: the sum of each file's last run's id count (its start line); undefined when one does not say, or a shard is missing. */
  ids: number | undefined;
}

/** done + absent + failed: the ids with a decided answer. */
export const decided = (counts: Record<IdState, number>): number => counts.done + counts.absent + counts.failed;

/** An id's state in one file: 0 when the file does not name it. */
function fileState(recorded: RecordedIds, id: bigint): number {
  const kind = recorded.get(id);
  if (kind === 0) return 0;
  return recorded.wasInFlight(id) ? STATE.inFlight : stateOf(kind);
}

class FileTail {
  readonly reader: JournalReader;
  /** By state code (summary.ts STATE), slot 0 unused. */
  readonly counts = [0, 0, 0, 0, 0, 0];
  readonly #fd: number;
  readonly #identity: { dev: number; ino: number };

  constructor(readonly file: string) {
    // Trusted as a run trusts it: the whole path, then the file (journal-file.ts).
    checkJournalFolder(file);
    this.#fd = openJournalFile(file, 'reading');
    const { dev, ino } = fs.fstatSync(this.#fd);
    this.#identity = { dev, ino };
    this.reader = new JournalReader(file);
  }

  /** False when the path is another file now, or this one shrank below what was read: it must be read again from its start. */
  same(): boolean {
    checkJournalMode(this.file, fs.fstatSync(this.#fd));
    let now: fs.Stats;
    try {
      now = fs.statSync(this.file);
    } catch {
      return false;
    }
    return now.dev === this.#identity.dev && now.ino === this.#identity.ino && now.size >= this.reader.readFrom;
  }

  async readOn(signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.reader.readOn(this.#fd, signal);
    } catch (error) {
      throw error instanceof JournalRefusedError && error.reason === 'not-journal' ? notJournal(error) : error;
    }
  }

  close(): void {
    try {
      fs.closeSync(this.#fd);
    } catch {
      // Only read from: nothing a failed close could lose.
    }
  }
}

export class JobFollower {
  readonly #files: readonly string[];
  #tails: FileTail[] = [];
  /** Across several files: each id's best state (the job's); one file's counts are the job's. */
  #merged: IdTable | undefined;
  #counts = [0, 0, 0, 0, 0, 0];

  private constructor(files: readonly string[]) {
    this.#files = files;
  }

  /** Opens every file (refused as `journal status` refuses, exit 2) and reads each to its end. */
  static async open(files: readonly string[], signal?: AbortSignal): Promise<JobFollower> {
    const follower = new JobFollower(files);
    try {
      await follower.#start(signal);
    } catch (error) {
      follower.close();
      throw error;
    }
    return follower;
  }

  /** Reads what each file gained since the last refresh, and says what the job is now. */
  async refresh(signal?: AbortSignal): Promise<FollowedJob> {
    if (this.#tails.some((tail) => !tail.same())) {
      // Replaced or cut short under us (a new journal at the path): counted again from the start.
      this.close();
      await this.#start(signal);
    }
    await this.#readAll(signal);
    return this.#state();
  }

  close(): void {
    for (const tail of this.#tails) tail.close();
    this.#tails = [];
  }

  /**
   * Opens the files and reads each to its end as `journal status` does, then counts each table
   * once: a million ids are a million steps, not the two million lines' each. Only then are the
   * counts kept line by line, for what the files gain.
   */
  async #start(signal: AbortSignal | undefined): Promise<void> {
    const merged = this.#files.length > 1 ? new IdTable(Uint8Array) : undefined;
    const tails: FileTail[] = [];
    try {
      for (const file of this.#files) tails.push(new FileTail(file));
    } catch (error) {
      for (const tail of tails) tail.close();
      throw error;
    }
    this.#tails = tails;
    this.#merged = merged;
    await this.#readAll(signal);
    for (const tail of tails) {
      const counts = tail.counts;
      tail.reader.recorded.forEach((id, kind, inFlight) => {
        const state = inFlight ? STATE.inFlight : stateOf(kind);
        (counts[state] as number)++;
        if (merged !== undefined && state > merged.get(id)) merged.set(id, state);
      });
      tail.reader.follow((recorded, id, set) => this.#record(tail, recorded, id, set));
    }
    if (merged === undefined) {
      // One file: its counts are the job's (no merged table).
      this.#counts = (tails[0] as FileTail).counts;
      return;
    }
    const counts = [0, 0, 0, 0, 0, 0];
    merged.forEach((_id, state) => {
      (counts[state] as number)++;
    });
    this.#counts = counts;
  }

  async #readAll(signal: AbortSignal | undefined): Promise<void> {
    let first: RunOfFile | undefined;
    for (const tail of this.#tails) {
      await tail.readOn(signal);
      const header: JournalHeader | undefined = tail.reader.header;
      if (header === undefined) continue;
      if (first === undefined) first = { file: tail.file, ...header };
      else if (!sameRun(first, header)) throw otherRuns(first, { file: tail.file, ...header });
    }
  }

  /** One id line of `tail` (`set` records it): its file's state, then the job's, move from what they were to what they are. */
  #record(tail: FileTail, recorded: RecordedIds, id: bigint, set: () => void): void {
    const before = fileState(recorded, id);
    set();
    const after = fileState(recorded, id);
    if (before === after) return;
    (tail.counts[before] as number)--;
    (tail.counts[after] as number)++;
    const merged = this.#merged;
    if (merged === undefined) return;
    const previous = merged.get(id);
    let best = previous;
    if (after >= previous) best = after;
    else if (before === previous) {
      // This file held the best state, and said less now: the best of all the files, again.
      best = 0;
      for (const other of this.#tails) best = Math.max(best, fileState(other.reader.recorded, id));
    }
    if (best === previous) return;
    (this.#counts[previous] as number)--;
    (this.#counts[best] as number)++;
    merged.set(id, best);
  }

  #state(): FollowedJob {
    const files = this.#tails.map((tail): FollowedFile => {
      const contents = tail.reader.contents(false);
      const running = runHoldsLock(tail.file);
      return {
        file: tail.file,
        shard: contents.header?.shard,
        started: contents.header?.started,
        running,
        run: fileRun(contents.lastRun, running),
        counts: named(tail.counts),
      };
    });
    const counts = named(this.#counts);
    const job = jobState(
      files.map((file) => ({ shard: file.shard, empty: file.started === undefined, run: file.run })),
      counts.notSent,
    );
    const known = job.missingShards.length === 0 && files.every((file) => file.run.ids !== undefined);
    const ids = known ? files.reduce((sum, file) => sum + (file.run.ids ?? 0), 0) : undefined;
    const operation = this.#tails.map((tail) => tail.reader.header?.operation).find((name) => name !== undefined);
    return { files, operation, counts, job, ids };
  }
}

function named(byCode: readonly number[]): Record<IdState, number> {
  const counts = { done: 0, absent: 0, failed: 0, inFlight: 0, notSent: 0 } as Record<IdState, number>;
  for (const [code, name] of Object.entries(STATE_NAMES)) counts[name] = byCode[Number(code)] ?? 0;
  return counts;
}
