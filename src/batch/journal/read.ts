import fs from 'node:fs';
import { InterruptedError } from '../../errors.js';
import { JournalRefusedError, journalFileProblem, shownPath } from './errors.js';
import { type JournalHeader, parseCommonLine, parseHeader, parseResultLine, vocabularyOf } from './format.js';
import { isJsonObject, parseJsonObject } from './json-object.js';
import { RecordedIds } from './recorded-ids.js';
import { type LastRun, parseRunLine, RunLines } from './run-record.js';

/** Read this much at a time: a million-line journal (~40 MB) is never one string. */
const CHUNK_BYTES = 1024 * 1024;
/** Far longer than any line plantstore writes (a server message is cut short before it is recorded). */
export const MAX_LINE_BYTES = 64 * 1024;

export interface JournalContents {
  /** Undefined for an empty file: a journal created by a run killed before its header was written. */
  header: JournalHeader | undefined;
  recorded: RecordedIds;
  /** Where the good lines end: the file's length, less a torn last line. */
  goodBytes: number;
  /** The torn last line's length in bytes, 0 when there is none. */
  tornBytes: number;
  /** How its last run ended, as its run lines say (run-record.ts). */
  lastRun: LastRun;
}

/** Given each failure line's fields (format.ts ResultLine), in file order: `journal status` counts them by exit and error code. */
export type OnFailure = (id: bigint, fields: Record<string, unknown>) => void;
/** Records an id line in place of `recorded.set` (a follower keeps counts beside it): it must call `set`, which does. */
export type OnRecord = (recorded: RecordedIds, id: bigint, set: () => void) => void;

/**
 * Reads a journal from `fd` (a regular file, checked by the caller) chunk by chunk,
 * yielding to the event loop between chunks so Ctrl-C still works on a large one.
 * The tail may be torn: a run killed mid-write leaves a last line without its newline, and
 * a power cut on some file systems leaves blocks of NULs or stale bytes, of any length, at
 * the end. Everything from the first bad line on is left out when no good line follows
 * it, and reported in tornBytes. A bad line with a good one after it means the file is
 * not what plantstore wrote, and it is refused.
 */
export async function readJournal(fd: number, file: string, signal?: AbortSignal, onFailure?: OnFailure): Promise<JournalContents> {
  const reader = new JournalReader(file, onFailure);
  await reader.readOn(fd, signal);
  return reader.contents(true);
}

/**
 * A journal read so far, and read on from there as it grows (`journal status --watch`): each
 * readOn() reads only the bytes past the last whole good line, with the same checks as a read of
 * the whole file (a bad line with a good one after it is refused, whenever the good one comes).
 * What a run is still writing (a line without its newline yet) is read again, whole, next time.
 */
export class JournalReader {
  readonly recorded = new RecordedIds();
  header: JournalHeader | undefined;
  /** How its id lines are written, as its header's version says (format.ts). */
  #vocabulary: '2' | '3' = '3';
  /** Its header says its ids carry values: each id line carries a print (value-print.ts). */
  #valued = false;
  readonly #file: string;
  readonly #onFailure: OnFailure | undefined;
  #onRecord: OnRecord | undefined;
  readonly #runs = new RunLines();
  /** Whole lines read, and where the line after them starts: where the next read begins. */
  #lineNumber = 0;
  #lineStart = 0;
  /** Where the bytes read end. */
  #position = 0;
  #lastIdLine = 0;
  /** The first bad line: the start of a torn tail if no good line follows it, corruption otherwise. */
  #suspect: { line: number; start: number } | undefined;
  /** The line being read is longer than any plantstore writes: its bytes are skipped, not kept (a tail of NULs may be megabytes). */
  #overlong = false;

  constructor(file: string, onFailure?: OnFailure) {
    this.#file = file;
    this.#onFailure = onFailure;
  }

  /** From now on each id line goes to `onRecord` (a follower's counts, kept line by line); those read so far are in `recorded`. */
  follow(onRecord: OnRecord): void {
    this.#onRecord = onRecord;
  }

  /** Where the next read starts: the first byte not yet read as a whole good line (a torn or suspect tail is read again). */
  get readFrom(): number {
    return this.#suspect?.start ?? this.#lineStart;
  }

  /** Reads from readFrom to the end of `fd`. */
  async readOn(fd: number, signal?: AbortSignal): Promise<void> {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // A tail left out last time is read again from its start: a run may have finished the line since.
    if (this.#suspect !== undefined) {
      this.#lineNumber = this.#suspect.line - 1;
      this.#lineStart = this.#suspect.start;
      this.#suspect = undefined;
    }
    this.#overlong = false;
    let position = this.#lineStart;
    let carry: Buffer | undefined;
    const recorded = this.recorded;
    for (;;) {
      if (signal?.aborted) throw new InterruptedError(`interrupted while reading journal ${shownPath(this.#file)}`);
      const read = await readAt(fd, chunk, position, this.#file);
      if (read === 0) break;
      let from = 0;
      for (;;) {
        const newline = chunk.indexOf(10, from);
        if (newline === -1 || newline >= read) break;
        const end = position + newline + 1;
        const common =
          carry === undefined && this.#lineNumber > 0 && this.#suspect === undefined
            ? parseCommonLine(chunk, from, newline, this.#vocabulary, this.#valued)
            : undefined;
        if (common !== undefined) {
          this.#lineNumber++;
          this.#lastIdLine = this.#lineNumber;
          const { id, kind, hi, lo } = common;
          if (this.#onRecord === undefined) recorded.set(id, kind, false, undefined, hi, lo);
          else this.#onRecord(recorded, id, () => recorded.set(id, kind, false, undefined, hi, lo));
        } else {
          let text: string | undefined;
          if (!this.#overlong && end - 1 - this.#lineStart <= MAX_LINE_BYTES) {
            text =
              carry === undefined
                ? chunk.toString('utf8', from, newline)
                : Buffer.concat([carry, chunk.subarray(from, newline)]).toString('utf8');
          }
          this.#takeLine(text);
        }
        carry = undefined;
        this.#overlong = false;
        this.#lineStart = end;
        from = newline + 1;
      }
      if (from < read && !this.#overlong) {
        const rest = Buffer.from(chunk.subarray(from, read));
        carry = carry === undefined ? rest : Buffer.concat([carry, rest]);
        if (carry.length > MAX_LINE_BYTES) {
          carry = undefined;
          this.#overlong = true;
        }
      }
      position += read;
    }
    this.#position = position;
    // A last line without its newline: torn by a kill mid-write, or still being written.
    if (this.#lineStart < position && this.#lineNumber > 0) this.#suspect ??= { line: this.#lineNumber + 1, start: this.#lineStart };
  }

  /**
   * What was read. `whole`: the file is read as it will stay (a run's resume, `journal status`),
   * so a first line without its newline is not a journal; a follower instead waits for it (an
   * empty journal so far, its header being written).
   */
  contents(whole: boolean): JournalContents {
    if (this.#lineNumber === 0 && this.#lineStart < this.#position && whole) {
      throw notJournal(this.#file, this.#overlong ? 'its first line is not a journal header' : 'it has no complete first line');
    }
    const lastRun = this.#runs.lastRun(this.#lastIdLine);
    const { header, recorded } = this;
    const goodBytes = this.#suspect?.start ?? (this.#lineNumber === 0 ? 0 : this.#position);
    return { header, recorded, goodBytes, tornBytes: this.#position - goodBytes, lastRun };
  }

  #takeLine(text: string | undefined): void {
    const file = this.#file;
    this.#lineNumber++;
    const lineNumber = this.#lineNumber;
    if (lineNumber === 1) {
      const parsed = text === undefined ? { notHeader: 'its first line is not a journal header' } : parseHeader(text);
      if ('notHeader' in parsed) throw notJournal(file, parsed.notHeader);
      this.header = parsed;
      this.#vocabulary = vocabularyOf(parsed.version);
      this.#valued = parsed.values !== undefined;
      if (this.#valued) this.recorded.carryValues();
      return;
    }
    const result = text === undefined ? undefined : parseResultLine(text, this.#vocabulary, this.#valued);
    const runLine = result === undefined && text !== undefined ? runLineOf(text) : undefined;
    if (runLine !== undefined) {
      if (this.#suspect !== undefined) throw corrupt(file, this.#suspect.line);
      this.#runs.take(runLine, lineNumber);
      return;
    }
    if (result === undefined) {
      // A whole JSON line that is not a journal line was written by someone, not torn by a kill
      // (which leaves half a line) or a power cut (NULs, stale bytes): cutting it off would
      // silently undo what they meant, so the journal is refused, as a damaged one is.
      if (text !== undefined && isJsonObject(text)) throw foreignLine(file, this.#suspect?.line ?? lineNumber, lineNumber);
      this.#suspect ??= { line: lineNumber, start: this.#lineStart };
      return;
    }
    if (this.#suspect !== undefined) throw corrupt(file, this.#suspect.line);
    this.#lastIdLine = lineNumber;
    const { id, kind, uncertain, print } = result;
    const exit = typeof result.fields?.['exit'] === 'number' ? result.fields['exit'] : undefined;
    const set = (): void => this.recorded.set(id, kind, uncertain, exit, print?.hi, print?.lo);
    if (this.#onRecord === undefined) set();
    else this.#onRecord(this.recorded, id, set);
    if (this.#onFailure !== undefined && result.fields !== undefined) this.#onFailure(result.id, result.fields);
  }
}

/** A run's start or end line (run-record.ts); only a line that starts as one is parsed whole. */
function runLineOf(text: string): ReturnType<typeof parseRunLine> {
  if (!/^\s*\{\s*"(start|end)"/.test(text)) return undefined;
  const value = parseJsonObject(text);
  return value === undefined ? undefined : parseRunLine(value);
}

function readAt(fd: number, buffer: Buffer, position: number, file: string): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buffer, 0, buffer.length, position, (error, bytesRead) => (error ? reject(readFailed(file, error)) : resolve(bytesRead))),
  );
}

/** A read that failed (EIO: a failing disk): refused, as a journal that cannot be opened is. */
function readFailed(file: string, error: NodeJS.ErrnoException): JournalRefusedError {
  const { why, advice } = journalFileProblem(error.code, false);
  return new JournalRefusedError(
    'unopenable',
    `cannot read journal ${shownPath(file)}: ${why}; ${advice}, or give --journal another path`,
    error.code,
  );
}

export function notJournal(file: string, why: string): JournalRefusedError {
  return new JournalRefusedError(
    'not-journal',
    `${shownPath(file)} is not a plantstore journal (${why}): give --journal a new file name, or the journal of an earlier run`,
  );
}

function foreignLine(file: string, firstBad: number, line: number): JournalRefusedError {
  if (firstBad !== line) return corrupt(file, firstBad);
  return new JournalRefusedError(
    'corrupt',
    `journal ${shownPath(file)} is damaged: line ${line} is a whole JSON line that is not a journal line (plantstore writes each id's lines itself, in one shape); plantstore does not guess what it means. Remove or repair that line, or start a new journal`,
  );
}

function corrupt(file: string, line: number): JournalRefusedError {
  return new JournalRefusedError(
    'corrupt',
    `journal ${shownPath(file)} is damaged: line ${line} is not a journal line, and good lines follow it; plantstore does not guess which plants it finished. Start a new journal, or repair that line`,
  );
}
