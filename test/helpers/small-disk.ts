// A full disk for the tests of every file plantstore writes (config, lock, journal): a tmpfs
// small enough to fill, mounted on a new folder. Mounting needs root on Linux; elsewhere the
// callers skip, saying so.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes zeros until ENOSPC (appending to what an earlier fill left): the disk then has no byte free. */
  fill(): void;
  unmount(): void;
}

/** A tmpfs of `size` (such as '64k') on `parent`/disk, or undefined where mounting is not allowed. */
export function smallDisk(parent: string, size: string): SmallDisk | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = path.join(parent, 'disk');
  mkdirSync(dir);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status !== 0) return undefined;
  return {
    dir,
    fill: () => spawnSync('sh', ['-c', `cat /dev/zero >> ${JSON.stringify(path.join(dir, 'filler'))}`]),
    unmount: () => spawnSync('umount', ['-l', dir]),
  };
}
