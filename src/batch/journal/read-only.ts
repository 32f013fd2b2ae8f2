import fs from 'node:fs';
import { staleLock } from '../../config/lock.js';
import { fileProblem } from '../../config/own-file.js';
import { JournalRefusedError, journalFileProblem, shownPath } from './errors.js';

const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Opens a journal only to read it, as the dry run does (open.ts readJournalForPlan): no lock, so
 * it works while a run holds one; never through a symbolic link, never blocking on a FIFO; a file
 * that is not a regular one is refused. Unlike a run, it reads a journal another user owns: it
 * only prints what the file says. Every refusal is one line, exit 2.
 */
export function openForReading(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW | NO_BLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw refused(file, 'there is no such file', 'check the path');
    if (code === 'ELOOP') throw refused(file, 'it is a symbolic link, which plantstore never follows there', 'give the path it points to');
    if (code === 'EISDIR') throw refused(file, 'it is a directory', 'give the path of a --journal file');
    if (code === 'ENXIO') throw refused(file, 'it is not a regular file', 'give the path of a --journal file');
    const { why, advice } = journalFileProblem(code, false);
    throw new JournalRefusedError('unopenable', `cannot read journal ${shownPath(file)}: ${why}; ${advice}`, code);
  }
  const problem = fileProblem(fs.fstatSync(fd));
  if (problem === undefined || problem.kind === 'foreign') return fd;
  fs.closeSync(fd);
  throw refused(
    file,
    problem.kind === 'symlink' ? 'it is a symbolic link' : `it is not a regular file (${problem.what})`,
    'give the path of a --journal file',
  );
}

/** Whether a live plantstore holds the journal's lock now (journal-lock.ts): its counts are still changing. */
export function runHoldsLock(file: string): boolean {
  try {
    fs.lstatSync(`${file}.lock`);
  } catch {
    return false;
  }
  return staleLock(`${file}.lock`) === undefined;
}

function refused(file: string, why: string, advice: string): JournalRefusedError {
  return new JournalRefusedError('unopenable', `cannot read journal ${shownPath(file)}: ${why}; ${advice}`);
}
