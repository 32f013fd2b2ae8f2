import fs from 'node:fs';
import { InterruptedError } from '../../errors.js';
import { JournalRefusedError, shownPath } from './errors.js';
import { type JournalHeader, parseHeader, parseResultLine } from './format.js';
import { RecordedIds } from './recorded-ids.js';

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
}

/**
 * Reads a journal from `fd` (a regular file, checked by the caller) chunk by chunk,
 * yielding to the event loop between chunks so Ctrl-C still works on a large one.
 * The last line may be torn (a run killed mid-write: no newline, or not a result
 * line); it is left out, and reported in tornBytes. A bad line before it means the
 * file is not what plantstore wrote, and it is refused.
 */
export async function readJournal(fd: number, file: string, signal?: AbortSignal): Promise<JournalContents> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const recorded = new RecordedIds();
  let header: JournalHeader | undefined;
  let carry: Buffer | undefined;
  let position = 0;
  let lineNumber = 0;
  let goodBytes = 0;
  // A complete line that did not parse: torn if nothing follows it, corrupt otherwise.
  let suspect: { line: number; start: number } | undefined;

  const takeLine = (text: string, start: number, end: number): void => {
    lineNumber++;
    if (suspect !== undefined) throw corrupt(file, suspect.line);
    if (lineNumber === 1) {
      const parsed = parseHeader(text);
      if ('notHeader' in parsed) throw notJournal(file, parsed.notHeader);
      header = parsed;
    } else {
      const result = parseResultLine(text);
      if (result === undefined) {
        suspect = { line: lineNumber, start };
        return;
      }
      recorded.set(result.id, result.kind);
    }
    goodBytes = end;
  };

  for (;;) {
    if (signal?.aborted) throw new InterruptedError(`interrupted while reading journal ${shownPath(file)}`);
    const read = await readAt(fd, chunk, position);
    if (read === 0) break;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1 || newline >= read) break;
      const lineStart = position + from - (carry?.length ?? 0);
      const text =
        carry === undefined
          ? chunk.toString('utf8', from, newline)
          : Buffer.concat([carry, chunk.subarray(from, newline)]).toString('utf8');
      carry = undefined;
      if (position + newline - lineStart > MAX_LINE_BYTES) throw tooLong(file, lineNumber + 1);
      takeLine(text, lineStart, position + newline + 1);
      from = newline + 1;
    }
    if (from < read) {
      const rest = Buffer.from(chunk.subarray(from, read));
      carry = carry === undefined ? rest : Buffer.concat([carry, rest]);
      if (carry.length > MAX_LINE_BYTES) throw tooLong(file, lineNumber + 1);
    }
    position += read;
  }

  if (lineNumber === 0 && position > 0) throw notJournal(file, 'it has no complete first line');
  const end = position;
  if (suspect !== undefined && carry !== undefined) throw corrupt(file, suspect.line);
  if (suspect !== undefined) return { header, recorded, goodBytes: suspect.start, tornBytes: end - suspect.start };
  return { header, recorded, goodBytes, tornBytes: end - goodBytes };
}

function readAt(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buffer, 0, buffer.length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}

export function notJournal(file: string, why: string): JournalRefusedError {
  return new JournalRefusedError(
    'not-journal',
    `${shownPath(file)} is not a plantstore journal (${why}): give --journal a new file name, or the journal of an earlier run`,
  );
}

function corrupt(file: string, line: number): JournalRefusedError {
  return new JournalRefusedError(
    'corrupt',
    `journal ${shownPath(file)} is damaged: line ${line} is not a result line, and lines follow it; plantstore does not guess which plants it finished. Start a new journal, or repair that line`,
  );
}

function tooLong(file: string, line: number): JournalRefusedError {
  return line === 1
    ? notJournal(file, 'its first line is not a journal header')
    : new JournalRefusedError(
        'corrupt',
        `journal ${shownPath(file)} is damaged: line ${line} is longer than any line plantstore writes. Start a new journal`,
      );
}
