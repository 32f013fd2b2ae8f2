import fs from 'node:fs';
import path from 'node:path';
import { pathProblem } from '../../config/path-trust.js';
import { JournalRefusedError, shownPath } from './errors.js';

/**
 * A journal says which plants not to send: lines someone else added to it ("deleted" for 42)
 * would keep plants from ever being deleted, and the run would report them done. So, as ssh
 * refuses a key with loose modes, a journal is used only where no one else could have written
 * it (issue 34): the file, its lock and its folder must not be writable by group or others
 * (the folder may be, with the sticky bit, as /tmp is), and the folder must be the user's or
 * root's (the file and lock must be the user's: open.ts and journal-lock.ts refuse another
 * user's). Each refusal is exit 2, before anything is sent or written. Not checked on Windows,
 * which has no such bits.
 */

const you = (): number | undefined => (process.platform === 'win32' ? undefined : process.getuid?.());

/**
 * Refuses a journal whose path another user could change: as the config's path is walked
 * (config/path-trust.ts), every folder from the journal's up to `/` must be the user's or root's
 * and not writable by others (unless sticky, as /tmp), and every symbolic link met on the way
 * must be the user's or root's, since whoever owns a link can point it at a folder of theirs.
 */
export function checkJournalFolder(file: string): void {
  if (you() === undefined) return;
  const folder = path.dirname(path.resolve(file));
  // Also a missing folder passes: creating the journal says so, as it always has.
  const problem = pathProblem(folder, undefined);
  if (problem === undefined) return;
  const where = problem.what.replace(/^(folder|symbolic link) /, '');
  const shownWhere = shownPath(where);
  const own = problem.kind !== undefined && where === realFolder(folder);
  const subject = own
    ? `its folder ${shownWhere}`
    : `${problem.what.startsWith('folder') ? 'the folder' : 'the symbolic link'} ${shownWhere} on its path`;
  if (problem.kind === undefined) {
    throw refused(file, `${subject} ${problem.why}; give --journal a path that does not go through it`);
  }
  if (problem.kind === 'foreign') {
    throw refused(
      file,
      `${subject} ${problem.why}, who could replace it or add lines to it; give --journal a path in a folder of your own`,
    );
  }
  throw refused(
    file,
    `${subject} ${problem.why}, so anyone could replace it; run chmod go-w ${shownWhere}, or give --journal a path in a folder only you can write`,
  );
}

function realFolder(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}

/** Refuses a journal file (`stat` of what was opened) that others can write. */
export function checkJournalMode(file: string, stat: fs.Stats): void {
  if (you() === undefined) return;
  const mode = stat.mode & 0o777;
  if ((mode & 0o022) === 0) return;
  throw refused(
    file,
    `it is writable by others (mode ${mode.toString(8)}), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${shownPath(file)}`,
  );
}

/** Refuses a journal lock of ours that others can write (a foreign one, journal-lock.ts refuses). */
export function checkLockMode(file: string, lock: string): void {
  if (you() === undefined) return;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(lock);
  } catch {
    return; // no lock: this run makes its own, 0600
  }
  const mode = stat.mode & 0o777;
  if (!stat.isFile() || stat.uid !== you() || (mode & 0o022) === 0) return;
  throw refused(
    file,
    `its lock ${shownPath(lock)} is writable by others (mode ${mode.toString(8)}), so anyone could hold or forge it; if no plantstore is running on this journal, remove it (rm ${shownPath(lock)})`,
  );
}

function refused(file: string, why: string): JournalRefusedError {
  return new JournalRefusedError('unsafe-file', `cannot use ${shownPath(file)} as a journal: ${why}`);
}
