import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CliError, ConfigError } from '../errors.js';
import { errnoWords } from '../text/errno.js';

const LOCK_WAIT_MS = 10_000;
// A lock older than this was left by a process that died mid-write.
export const LOCK_STALE_MS = 30_000;

const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Which lock file this is. The inode alone is not enough: a file system hands a freed
 * inode number to the next file created, so a fresh lock often has the stale one's.
 * The modification time tells them apart (a rename does not change it).
 */
export interface Held {
  dev: number;
  ino: number;
  mtimeMs: number;
}

const identity = (stat: fs.Stats): Held => ({ dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs });
const same = (a: Held, b: Held): boolean => a.dev === b.dev && a.ino === b.ino && a.mtimeMs === b.mtimeMs;

/**
 * An exclusive lock file beside the config (`config.json.lock`, O_EXCL create, never
 * through a symlink), held for one read-change-write, so two logins at once both land.
 */
export function withLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const giveUp = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const taken = tryLock(lock, file);
    if (taken !== undefined) return holding(lock, taken, work);
    const stale = staleLock(lock);
    if (stale) {
      breakStaleLock(lock, stale);
      continue;
    }
    if (Date.now() > giveUp) {
      throw new ConfigError(`config file ${file} is locked by another plantstore (${lock}); if none is running, delete that file`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 20);
  }
}

function holding<T>(lock: string, held: Held, work: () => T): T {
  try {
    return work();
  } finally {
    releaseLock(lock, held);
  }
}

/** Why a lock could not be written: the error the user sees, with the errno code. */
export type LockFailure = (code: string | undefined, stage: 'create' | 'write') => CliError;

const configLockFailure =
  (file: string): LockFailure =>
  (code, stage) =>
    new ConfigError(
      // The lock's write fails only for want of room: the file itself was just created.
      stage === 'create'
        ? `cannot write in config folder ${path.dirname(file)}: ${code === 'ENOENT' ? 'it does not exist' : errnoWords(code)}; set PLANTSTORE_CONFIG_DIR to a writable folder, or use PLANTSTORE_TOKEN`
        : `cannot write in config folder ${path.dirname(file)}: ${errnoWords(code)}; free some space, or use PLANTSTORE_TOKEN`,
      code,
    );

/**
 * Takes the lock, or returns undefined when another process holds it. `failure` words
 * a lock that cannot be written (the config file's words unless another file is locked).
 */
export function tryLock(lock: string, file: string, failure: LockFailure = configLockFailure(file)): Held | undefined {
  let fd: number;
  try {
    fd = fs.openSync(lock, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NO_FOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return undefined;
    throw failure(code, 'create');
  }
  let wrote = false;
  try {
    // Who holds it, for a person wondering and for staleLock; a lock we could not finish writing
    // (a full disk) is removed at once, or every write would wait 30 s for it to go stale.
    try {
      fs.writeSync(fd, lockText());
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
      throw failure((error as NodeJS.ErrnoException).code, 'write');
    }
    wrote = true;
    const held = identity(fs.fstatSync(fd));
    fs.closeSync(fd);
    return held;
  } catch (error) {
    if (wrote) fs.closeSync(fd);
    throw error;
  }
}

/**
 * Renews our lock's modification time, for a lock held through a whole run rather than one
 * write: a holder that renews it every second is never judged stale, and one that stopped
 * renewing (killed on another machine, whose pid cannot be checked here) is, LOCK_STALE_MS
 * later. The time is set through a descriptor checked to be our lock file, so a lock that
 * another process broke and replaced is never touched. Returns the lock's new identity, or
 * undefined when the lock is no longer ours.
 */
export function renewLock(lock: string, held: Held, now = new Date()): Held | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(lock, fs.constants.O_RDONLY | NO_FOLLOW | NO_BLOCK);
    if (!same(identity(fs.fstatSync(fd)), held)) return undefined;
    fs.futimesSync(fd, now, now);
    return identity(fs.fstatSync(fd));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The lock file's identity when it was left behind: older than LOCK_STALE_MS, or written
 * on this machine by a process that no longer runs (killed with -9 mid-write: the next
 * write need not wait 30 s for it). Undefined when it is held, or gone.
 */
export function staleLock(lock: string, now = Date.now()): Held | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(lock);
  } catch {
    return undefined; // gone already: the next attempt will take it
  }
  if (now - stat.mtimeMs > LOCK_STALE_MS || ownerIsGone(lock)) return identity(stat);
  return undefined;
}

/** What a lock file says of its owner: "<pid> <host>", so that only the same machine judges the pid. */
function lockText(): string {
  return `${process.pid} ${os.hostname()}`;
}

function ownerIsGone(lock: string): boolean {
  let text: string;
  let fd: number | undefined;
  try {
    // Never blocking, never through a link: a FIFO planted as the lock must not hang us.
    fd = fs.openSync(lock, fs.constants.O_RDONLY | NO_FOLLOW | NO_BLOCK);
    if (!fs.fstatSync(fd).isFile()) return false;
    const bytes = Buffer.alloc(300);
    text = bytes.toString('utf8', 0, fs.readSync(fd, bytes, 0, bytes.length, 0));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const [pid, host] = text.split(' ');
  if (host !== os.hostname() || !/^[1-9][0-9]*$/.test(pid ?? '')) return false;
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return isZombie(Number(pid));
}

/**
 * A process that was killed but not yet reaped by its parent (state Z: a container whose PID 1
 * does not reap) still answers kill(pid, 0), yet it will never renew or release a lock.
 * Linux says so in /proc; elsewhere (no /proc) it is judged alive, and stale after LOCK_STALE_MS.
 */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}

/**
 * Removes the lock judged stale, and only that one. Between judging and removing,
 * another process may have broken the same stale lock and taken a fresh one of its
 * own; removing by name would then remove that live lock, and two writers would
 * run at once (one login lost). So the lock is first renamed to a name only we use
 * (rename is atomic: exactly one process gets any given file), and what we got is
 * compared with what we judged. A live lock taken by mistake is linked back in place.
 */
export function breakStaleLock(lock: string, judged: Held): void {
  const grave = `${lock}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.stale`;
  try {
    fs.renameSync(lock, grave);
  } catch {
    return; // already broken by someone else, or replaced: the next attempt sees what is there
  }
  if (!same(identity(fs.lstatSync(grave)), judged)) {
    try {
      // link, not rename: it fails rather than replace a lock taken in the meantime.
      fs.linkSync(grave, lock);
    } catch {
      // A third process took the lock meanwhile; the one we moved is released by its owner (releaseLock).
    }
  }
  fs.rmSync(grave, { force: true });
}

/** Removes our lock file, unless it is no longer ours. */
export function releaseLock(lock: string, held: Held): void {
  try {
    if (same(identity(fs.lstatSync(lock)), held)) fs.rmSync(lock, { force: true });
  } catch {
    // gone already
  }
}
