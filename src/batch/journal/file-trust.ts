import fs from 'node:fs';
import path from 'node:path';
import { isYourGroup, pathProblem, sharedWithYourGroup } from '../../config/path-trust.js';
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
 *
 * A folder above the journal's own may be one a group the user is in shares (setgid, group-
 * writable, not others: a Kubernetes volume for the pod's fsGroup). Its members can rename the
 * journal's folder away, but what they put in its place is theirs, and refused on the way down
 * (a folder, a link, a file of another user), or yours. The journal's own folder may not be so
 * shared: in it they could remove the lock of a running job (two runs on one journal), or the
 * journal itself. So on a volume the journals go in a folder of the user's own (mkdir -m 0700).
 */

const you = (): number | undefined => (process.platform === 'win32' ? undefined : process.getuid?.());

/**
 * Refuses a journal whose path another user could change: as the config's path is walked
 * (config/path-trust.ts), every folder from the journal's up to `/` must be the user's or root's
 * and not writable by others (unless sticky, as /tmp, or, above the journal's own folder, shared
 * by a group the user is in: a Kubernetes volume), and every symbolic link met on the way
 * must be the user's or root's, since whoever owns a link can point it at a folder of theirs.
 */
export function checkJournalFolder(file: string): void {
  if (you() === undefined) return;
  const folder = path.dirname(path.resolve(file));
  // Also a missing folder passes: creating the journal says so, as it always has.
  const problem = pathProblem(folder, undefined, { groupSharedAbove: true });
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
  const shared = own ? groupShared(where) : undefined;
  if (shared !== undefined) {
    // A volume's root (Kubernetes: group fsGroup, mode 2775) is made so again at each mount: a folder of one's own in it is the fix.
    const fix =
      shared.uid === you() && shared.uid !== 0
        ? `run chmod g-w ${shownWhere}, or give --journal a path in a folder only you can write`
        : `make a folder only you can write in it (mkdir -p -m 0700 ${shownPath(path.join(where, 'journals'))}) and give --journal a path there`;
    throw refused(
      file,
      `${subject} ${problem.why.replace('by others', 'by its group')}, whose members could remove the journal or its lock; ${fix}${KUBELET}`,
    );
  }
  throw refused(
    file,
    `${subject} ${problem.why}, so anyone could replace it; run chmod go-w ${shownWhere}, or give --journal a path in a folder only you can write`,
  );
}

/** Said where a group-writable mode may be Kubernetes' doing: its default policy makes the volume's every folder and file so at each mount. */
const KUBELET =
  '; on a Kubernetes volume, set fsGroupChangePolicy: OnRootMismatch, or each mount makes your folders and journals group-writable again';

function setgidFolder(file: string): boolean {
  try {
    return (fs.statSync(path.dirname(path.resolve(file))).mode & 0o2000) !== 0;
  } catch {
    return false;
  }
}

/** `folder`'s stat when a group the user is in shares it (path-trust.ts: sharedWithYourGroup). */
function groupShared(folder: string): fs.Stats | undefined {
  try {
    const stat = fs.statSync(folder);
    return sharedWithYourGroup(stat) ? stat : undefined;
  } catch {
    return undefined;
  }
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
  // Writable by its group alone, one the user is in, in a setgid folder: as a Kubernetes volume's default policy leaves every file.
  const kubelet = (mode & 0o002) === 0 && isYourGroup(stat.gid) && setgidFolder(file) ? KUBELET : '';
  throw refused(
    file,
    `it is writable by others (mode ${mode.toString(8)}), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${shownPath(file)}${kubelet}`,
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
