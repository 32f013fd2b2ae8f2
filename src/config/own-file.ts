import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { errnoWords } from '../text/errno.js';

/**
 * The config file and its lock as plantstore reads and writes them, whatever stands
 * at their paths. The folder may be shared (a 1777 folder chosen with
 * PLANTSTORE_CONFIG_DIR), so another user can plant a file, a FIFO or a symlink
 * there; and a snap-packaged terminal sets SNAP, under which conf wrote in place.
 * So this module, not a library, decides:
 * - a symlink is never followed (O_NOFOLLOW; a rename replaces the link itself);
 * - only a regular file is read, and at most MAX_CONFIG_BYTES of it; the open never
 *   blocks (O_NONBLOCK), so a FIFO is refused at once instead of hanging every command;
 * - a file owned by another user is refused: writing over it would keep the
 *   planter's file, or the token would go into a file the planter can read;
 * - a write is a temporary file in the same folder, fsynced, then renamed over the
 *   file: a full disk or a kill leaves the old file whole, in every environment.
 */

/** Far more than any set of profiles needs; /dev/zero behind the path costs no more than this. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows; there, 0 leaves the open as it was.
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = fs.constants.O_NONBLOCK ?? 0;

/** The file's text and its permission bits, or undefined when it does not exist. Anything but our own regular file is a ConfigError. */
export function readOwnFile(file: string): { text: string; mode: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW | NO_BLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file stands where a folder on the path should be, so there is no config here either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw symlinkRefused(file);
    throw new ConfigError(`cannot read config file ${file}: ${errnoWords(code)}; check its permissions`, code);
  }
  try {
    // The mode of the file read, not of whatever stands at the path a moment later.
    const stat = fs.fstatSync(fd);
    checkOwnRegularFile(file, stat);
    const bytes = Buffer.allocUnsafe(MAX_CONFIG_BYTES + 1);
    let total = 0;
    for (;;) {
      const read = fs.readSync(fd, bytes, total, bytes.length - total, null);
      if (read === 0) break;
      total += read;
      if (total > MAX_CONFIG_BYTES) {
        throw new ConfigError(
          `config file ${file} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB: it is not a plantstore config; move it away`,
        );
      }
    }
    return { text: bytes.toString('utf8', 0, total), mode: stat.mode & 0o7777 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Why a file plantstore keeps (the config, a journal) cannot be used as it stands; each caller words it. */
export type FileProblem = { kind: 'symlink' } | { kind: 'not-regular'; what: string } | { kind: 'foreign'; owner: number; you: number };

/** What is wrong with `stat` as a file of ours: undefined for a regular file that the running user owns. */
export function fileProblem(stat: fs.Stats): FileProblem | undefined {
  if (stat.isSymbolicLink()) return { kind: 'symlink' };
  if (!stat.isFile()) return { kind: 'not-regular', what: kindOf(stat) };
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return { kind: 'foreign', owner: stat.uid, you: uid };
  return undefined;
}

/** Stops the run unless `stat` is a regular file that the running user owns. */
export function checkOwnRegularFile(file: string, stat: fs.Stats): void {
  const problem = fileProblem(stat);
  if (problem?.kind === 'symlink') throw symlinkRefused(file);
  if (problem?.kind === 'not-regular') {
    throw new ConfigError(`config file ${file} is not a regular file (${problem.what}): move it away, or set PLANTSTORE_CONFIG_DIR`);
  }
  if (problem?.kind === 'foreign') {
    throw new ConfigError(
      `config file ${file} belongs to another user (uid ${problem.owner}, you are ${problem.you}): plantstore does not use a file someone else may have planted; remove it, or set PLANTSTORE_CONFIG_DIR to a folder only you can write`,
    );
  }
}

/**
 * Replaces `file` with `text`: a new file of mode 0600, owned by the running user,
 * fsynced, renamed over the old one, then the folder fsynced so the rename itself
 * survives a crash. On any failure the old file is untouched and the temporary file removed.
 */
export function writeFileAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  let fd: number | undefined;
  try {
    // O_EXCL: never reuse, or write through, whatever already stands at the name.
    fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NO_FOLLOW, 0o600);
    const data = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(path.dirname(file));
}

/** Makes a new or renamed entry in `dir` survive a power cut. */
export function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY);
    fs.fsyncSync(fd);
  } catch {
    // Not every system lets a folder be opened or synced (Windows): the rename is done either way.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function symlinkRefused(file: string): ConfigError {
  return new ConfigError(
    `config file ${file} is a symbolic link: plantstore never follows one there, since anyone who can write the folder could point it elsewhere; put the file itself there, or set PLANTSTORE_CONFIG_DIR`,
  );
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a file';
}
