import fs from 'node:fs';
import { InterruptedError } from '../../errors.js';
import { JournalRefusedError, journalFileProblem, shownPath } from './errors.js';
import { isJsonObject, type JournalHeader, parseCommonLine, parseHeader, parseJsonObject, parseResultLine } from './format.js';
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

/**
 * Reads a journal from `fd` (a regular file, checked by the caller) chunk by chunk,
 * yielding to the event loop between chunks so Ctrl-C still works on a large one.
 * The tail may be torn: a run killed mid-write leaves a last line without its newline, and
 * a power cut on some file systems leaves blocks of NULs or stale bytes, of any length, at
 * the end. Everything from the first bad line on is left out when no good line follows
 * it, and reported in tornBytes. A bad line with a good one after it means the file is
 * not what plantstore wrote, and it is refused.
 */
export async function readJournal(
  fd: number,
  file: string,
  signal?: AbortSignal,
  /** Given each failure line's fields (format.ts ResultLine), in file order: `journal status` counts them by exit and error code. */
  onFailure?: (id: bigint, fields: Record<string, unknown>) => void,
): Promise<JournalContents> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const recorded = new RecordedIds();
  let header: JournalHeader | undefined;
  let position = 0;
  let lineNumber = 0;
  /** Where the line being read starts, and its bytes so far from earlier chunks. */
  let lineStart = 0;
  let carry: Buffer | undefined;
  /** The line being read is longer than any plantstore writes: its bytes are skipped, not kept (a tail of NULs may be megabytes). */
  let overlong = false;
  // The first bad line: the start of a torn tail if no good line follows it, corruption otherwise.
  let suspect: { line: number; start: number } | undefined;
  const runs = new RunLines();
  let lastIdLine = 0;

  const takeLine = (text: string | undefined): void => {
    lineNumber++;
    if (lineNumber === 1) {
      const parsed = text === undefined ? { notHeader: 'its first line is not a journal header' } : parseHeader(text);
      if ('notHeader' in parsed) throw notJournal(file, parsed.notHeader);
      header = parsed;
      return;
    }
    const result = text === undefined ? undefined : parseResultLine(text);
    const runLine = result === undefined && text !== undefined ? runLineOf(text) : undefined;
    if (runLine !== undefined) {
      if (suspect !== undefined) throw corrupt(file, suspect.line);
      runs.take(runLine, lineNumber);
      return;
    }
    if (result === undefined) {
      // A whole JSON line that is not a journal line was written by someone, not torn by a kill
      // (which leaves half a line) or a power cut (NULs, stale bytes): cutting it off would
      // silently undo what they meant, so the journal is refused, as a damaged one is.
      if (text !== undefined && isJsonObject(text)) throw foreignLine(file, suspect?.line ?? lineNumber, lineNumber);
      suspect ??= { line: lineNumber, start: lineStart };
      return;
    }
    if (suspect !== undefined) throw corrupt(file, suspect.line);
    lastIdLine = lineNumber;
    recorded.set(result.id, result.kind, result.uncertain);
    if (onFailure !== undefined && result.fields !== undefined) onFailure(result.id, result.fields);
  };

  for (;;) {
    if (signal?.aborted) throw new InterruptedError(`interrupted while reading journal ${shownPath(file)}`);
    const read = await readAt(fd, chunk, position, file);
    if (read === 0) break;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1 || newline >= read) break;
      const end = position + newline + 1;
      const common = carry === undefined && lineNumber > 0 && suspect === undefined ? parseCommonLine(chunk, from, newline) : undefined;
      if (common !== undefined) {
        lineNumber++;
        lastIdLine = lineNumber;
        recorded.set(common.id, common.kind);
      } else {
        let text: string | undefined;
        if (!overlong && end - 1 - lineStart <= MAX_LINE_BYTES) {
          text =
            carry === undefined
              ? chunk.toString('utf8', from, newline)
              : Buffer.concat([carry, chunk.subarray(from, newline)]).toString('utf8');
        }
        takeLine(text);
      }
      carry = undefined;
      overlong = false;
      lineStart = end;
      from = newline + 1;
    }
    if (from < read && !overlong) {
      const rest = Buffer.from(chunk.subarray(from, read));
      carry = carry === undefined ? rest : Buffer.concat([carry, rest]);
      if (carry.length > MAX_LINE_BYTES) {
        carry = undefined;
        overlong = true;
      }
    }
    position += read;
  }

  // A last line without its newline: torn by a kill mid-write.
  if (lineStart < position) {
    if (lineNumber === 0) throw notJournal(file, overlong ? 'its first line is not a journal header' : 'it has no complete first line');
    suspect ??= { line: lineNumber + 1, start: lineStart };
  }
  const lastRun = runs.lastRun(lastIdLine);
  if (suspect !== undefined) return { header, recorded, goodBytes: suspect.start, tornBytes: position - suspect.start, lastRun };
  return { header, recorded, goodBytes: position, tornBytes: 0, lastRun };
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
