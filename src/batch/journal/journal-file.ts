import fs from 'node:fs';
import { fileProblem } from '../../config/own-file.js';
import { JournalRefusedError, journalFileProblem, shownPath } from './errors.js';
import { checkJournalMode } from './file-trust.js';

const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Why a journal is opened:
 * - 'run': to resume it (read, then appended to);
 * - 'dry-run': to read it as the run would, refused as the run would refuse it;
 * - 'reading': to print what it says (`journal status`, `journal failed`, `journal left`). No
 *   lock, so it works while a run holds one; trusted only as a run trusts it (file-trust.ts),
 *   refused in the run's words.
 */
export type JournalUse = 'run' | 'dry-run' | 'reading';

/**
 * The journal's descriptor: never through a symbolic link, never blocking on a FIFO; anything but
 * a regular file is refused, and so is anything but our own file with a safe mode (file-trust.ts). A missing file is undefined for a run (a new journal) and refused for
 * reading. Every refusal is a JournalRefusedError (exit 2, one line).
 */
export function openJournalFile(file: string, use: 'reading'): number;
export function openJournalFile(file: string, use: JournalUse): number | undefined;
export function openJournalFile(file: string, use: JournalUse): number | undefined {
  const reading = use === 'reading';
  const refuse: (file: string, why: string, advice?: string) => JournalRefusedError = reading ? refusedToRead : refusedToRun;
  let fd: number;
  try {
    fd = fs.openSync(file, (use === 'run' ? fs.constants.O_RDWR | fs.constants.O_APPEND : fs.constants.O_RDONLY) | NO_FOLLOW | NO_BLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !reading) return undefined;
    if (code === 'ENOENT') throw refusedToRead(file, 'there is no such file', 'check the path');
    if (code === 'ELOOP') throw refuse(file, 'it is a symbolic link, which plantstore never follows there', 'give the path it points to');
    if (code === 'EISDIR') throw refuse(file, 'it is a directory');
    if (code === 'ENXIO') throw refuse(file, 'it is not a regular file');
    const { why, advice } = journalFileProblem(code, false);
    throw reading
      ? new JournalRefusedError('unopenable', `cannot read journal ${shownPath(file)}: ${why}; ${advice}`, code)
      : new JournalRefusedError(
          'unopenable',
          `cannot open journal ${shownPath(file)}: ${why}; ${advice}, or give --journal another path`,
          code,
        );
  }
  const stat = fs.fstatSync(fd);
  const problem = fileProblem(stat);
  try {
    if (problem === undefined) {
      // A reader is held to the run's rule: `journal failed` feeds delete --stdin, and lines someone else added would drop ids from it.
      checkJournalMode(file, stat);
      return fd;
    }
    if (problem.kind === 'foreign') {
      throw refusedToRun(file, `it belongs to another user (uid ${problem.owner}, you are ${problem.you}), who may have planted it`);
    }
    throw refuse(file, problem.kind === 'symlink' ? 'it is a symbolic link' : `it is not a regular file (${problem.what})`);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** A run's words: whatever is wrong with the file, the way out is another --journal path. */
function refusedToRun(file: string, why: string): JournalRefusedError {
  return new JournalRefusedError('unsafe-file', `cannot use ${shownPath(file)} as a journal: ${why}; give --journal another path`);
}

function refusedToRead(file: string, why: string, advice = 'give the path of a --journal file'): JournalRefusedError {
  return new JournalRefusedError('unopenable', `cannot read journal ${shownPath(file)}: ${why}; ${advice}`);
}
