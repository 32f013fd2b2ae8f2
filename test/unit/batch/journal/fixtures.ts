// Shared by the journal tests: a fresh folder, the run a journal belongs to, result records and
// their lines as a journal of this format holds them, and format 2's (delete's --json lines).
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type JournalRecord, recordLine } from '../../../../src/batch/journal/records.js';
import { resultJson } from '../../../../src/commands/delete/report.js';
import { notSent as notSentResult } from '../../../../src/commands/delete/result.js';

export const RUN = { baseUrl: 'https://plants.example.com', profile: 'default' } as const;
export const STARTED = new Date('2026-03-01T12:00:00.000Z');
/** The header a new journal starts with (format 3), a run of delete's. */
export const HEADER =
  '{"plantstore":"delete-journal","version":3,"operation":"delete","baseUrl":"https://plants.example.com","profile":"default","started":"2026-03-01T12:00:00.000Z"}';
/** The header of a journal of format 2 (delete's alone: no operation named), as the release before format 3 wrote it. */
export const HEADER_V2 =
  '{"plantstore":"delete-journal","version":2,"baseUrl":"https://plants.example.com","profile":"default","started":"2026-03-01T12:00:00.000Z"}';
/** The header of a journal written before sent lines (format 1): still read. */
export const HEADER_V1 = HEADER_V2.replace('"version":2', '"version":1');

/** A temporary folder per test, with `file` the journal's path in it. */
export function journalFolder(): { readonly dir: string; readonly file: string } {
  const paths = { dir: '', file: '' };
  beforeEach(() => {
    paths.dir = mkdtempSync(path.join(tmpdir(), 'plantstore-journal-'));
    paths.file = path.join(paths.dir, 'delete.journal');
  });
  afterEach(() => rmSync(paths.dir, { recursive: true, force: true }));
  return paths;
}

/** What the engine records of a result (records.ts), one of each state. */
export const DONE: JournalRecord = { state: 'done', status: 204 };
export const ABSENT: JournalRecord = { state: 'absent', status: 404 };
export const FAILED: JournalRecord = { state: 'failed', status: 503, error: null, message: 'Service Unavailable', exit: 6 };
export const NOT_SENT: JournalRecord = { state: 'not-sent', status: null, error: null, message: 'not sent: interrupted', exit: 130 };

/** Their lines in a journal of format 3. */
export const deleted = (id: string): string => recordLine(id, DONE, '3');
export const absent = (id: string): string => recordLine(id, ABSENT, '3');
export const failed = (id: string): string => recordLine(id, FAILED, '3');
export const notSent = (id: string): string => recordLine(id, NOT_SENT, '3');
export const sent = (id: string): string => `{"id":${id},"sent":true}`;

/** Format 2's lines (delete's --json lines), as the release before format 3 wrote them. */
export const V2 = {
  deleted: (id: string): string => resultJson({ id, deleted: true, status: 204 }),
  absent: (id: string): string => resultJson({ id, deleted: false, absent: true, status: 404 }),
  failed: (id: string): string =>
    resultJson({ id, deleted: false, status: 503, error: null, message: 'Service Unavailable', exit: 6, attempted: true }),
  notSent: (id: string): string => resultJson(notSentResult(id, 'not sent: interrupted', 130)),
};

/** What stands at `file`, to compare before and after a refusal: its kind, mode, owner and the hash of its bytes. */
export function fingerprint(file: string): string {
  if (!existsSync(file) && !isLink(file)) return 'absent';
  const stat = lstatSync(file);
  const bytes = stat.isFile() ? createHash('sha256').update(readFileSync(file)).digest('hex') : '-';
  return `${stat.mode.toString(8)} ${stat.uid} ${stat.size} ${stat.mtimeMs} ${bytes}`;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
