import fs from 'node:fs';
import path from 'node:path';
import { folderProblem } from '../../config/path-trust.js';
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

/** Refuses a journal whose folder another user owns, or others can write without the sticky bit. */
export function checkJournalFolder(file: string): void {
  const uid = you();
  if (uid === undefined) return;
  const folder = path.dirname(path.resolve(file));
  // The rule the config folder is held to (config/path-trust.ts), in the journal's words.
  const problem = folderProblem(folder, (owner) => owner === uid || owner === 0);
  if (problem === undefined) return; // also a missing folder: creating the journal says so, as it always has
  const shownFolder = shownPath(folder);
  if (problem.kind === 'foreign') {
    throw refused(
      file,
      `its folder ${shownFolder} ${problem.why}, who could replace it or add lines to it; give --journal a path in a folder of your own`,
    );
  }
  throw refused(
    file,
    `its folder ${shownFolder} ${problem.why}, so anyone could replace it; run chmod go-w ${shownFolder}, or give --journal a path in a folder only you can write`,
  );
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
