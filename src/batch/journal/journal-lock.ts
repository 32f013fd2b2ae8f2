import fs from 'node:fs';
import { breakStaleLock, type Held, LOCK_STALE_MS, releaseLock, renewLock, staleLock, tryLock } from '../../config/lock.js';
import { JournalRefusedError, journalFileProblem, shownPath } from './errors.js';

/**
 * The journal's lock: `<journal>.lock` beside it, the config file's lock (config/lock.ts)
 * held for the whole run. Who may take it over:
 * - at once, when it names a process on this machine that no longer runs (kill -9, a crash);
 * - otherwise once it has not been renewed for LOCK_STALE_MS (30 s): its holder renews it
 *   every second, so only a holder that is gone or stopped stops doing so (a run killed on
 *   another machine sharing the folder, a pid reused after a reboot, a run suspended with Ctrl-Z).
 * A held lock is never waited for: a second run on the same journal is refused at once.
 */
export interface JournalLock {
  readonly path: string;
  /** Renews the lock; false when another process has taken it over (this run was stopped for 30 s). */
  renew(): boolean;
  release(): void;
}

export function lockJournal(file: string): JournalLock {
  const path = `${file}.lock`;
  // Twice at most: a stale lock broken once is either ours on the next attempt or taken by a live run.
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = tryLock(path, file, (code, stage) => cannotLock(path, code, stage));
    if (taken !== undefined) return holding(path, taken);
    const stale = staleLock(path);
    if (stale === undefined) break;
    breakStaleLock(path, stale);
  }
  const owner = foreignOwner(path);
  if (owner !== undefined) {
    // In a sticky shared folder (/tmp) only its owner may remove it: no takeover will ever happen.
    throw new JournalRefusedError(
      'in-use',
      `journal ${shownPath(file)} is locked by ${shownPath(path)}, which belongs to another user (uid ${owner}); plantstore cannot take over another user's lock. Ask them to remove it if no run of theirs uses the journal, or give --journal another path`,
    );
  }
  throw new JournalRefusedError(
    'in-use',
    `journal ${shownPath(file)} is in use by another running plantstore (lock ${shownPath(path)}); wait for it to finish. A lock left by a run that was killed is taken over at once on the same machine, or ${LOCK_STALE_MS / 1000} s after it was last renewed`,
  );
}

/** Whether a live plantstore holds the journal's lock now: a reader's counts are still changing. */
export function runHoldsLock(file: string): boolean {
  try {
    fs.lstatSync(`${file}.lock`);
  } catch {
    return false;
  }
  return staleLock(`${file}.lock`) === undefined;
}

/** The owner of the lock file when it is not this user, else undefined. */
function foreignOwner(path: string): number | undefined {
  const you = process.getuid?.();
  if (you === undefined) return undefined;
  try {
    const { uid } = fs.lstatSync(path);
    return uid === you ? undefined : uid;
  } catch {
    return undefined;
  }
}

function holding(path: string, taken: Held): JournalLock {
  let held: Held | undefined = taken;
  return {
    path,
    renew() {
      if (held !== undefined) held = renewLock(path, held);
      return held !== undefined;
    },
    release() {
      if (held !== undefined) releaseLock(path, held);
      held = undefined;
    },
  };
}

function cannotLock(lock: string, code: string | undefined, stage: 'create' | 'write'): JournalRefusedError {
  // Its write fails only for want of room: the file itself was just created.
  const { why, advice } = journalFileProblem(code, stage === 'create');
  return new JournalRefusedError(
    'unopenable',
    `cannot create journal lock ${shownPath(lock)}: ${why}; ${advice}, or give --journal another path`,
    code,
  );
}
