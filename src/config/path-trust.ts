import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether a folder's path is one only the running user (and root) can change, as ssh checks
 * the path of a key (StrictModes): every folder from `dir` up to `stopAt` (or to `/` when
 * `stopAt` is not above it) must belong to the user or root and must not be writable by
 * group or others unless sticky (/tmp); every symbolic link met on the way, followed one
 * component at a time, must belong to the user or root, since whoever owns a link can point
 * it elsewhere at any time. Folders that do not exist yet are skipped: plantstore creates them 0700.
 */
export interface PathProblem {
  /** A folder another user owns, one others can write without the sticky bit; undefined for a link. */
  kind?: 'foreign' | 'writable';
  /** The folder or link at fault, as a sentence's subject: "folder /srv/shared". */
  what: string;
  /** Why it cannot be trusted: "is writable by others (mode 777)". */
  why: string;
  /** What fixes it: "run chmod go-w /srv/shared". */
  fix: string;
}

/** Links followed before giving up, as the kernel's ELOOP does. */
const MAX_LINKS = 40;

export function pathProblem(dir: string, stopAt: string | undefined): PathProblem | undefined {
  const you = process.getuid?.();
  if (you === undefined || process.platform === 'win32') return undefined;
  const trusted = (uid: number): boolean => uid === you || uid === 0;
  const walked = resolveChecked(path.resolve(dir), trusted);
  if ('problem' in walked) return walked.problem;
  const stop = stopAt === undefined ? undefined : realOrSelf(stopAt);
  let folder = walked.real;
  for (;;) {
    const problem = folderProblem(folder, trusted);
    if (problem !== undefined) return problem;
    const parent = path.dirname(folder);
    if (folder === stop || parent === folder) return undefined;
    folder = parent;
  }
}

/** One folder's own problem: another user's, or writable by others without the sticky bit. */
export function folderProblem(folder: string, trusted: (uid: number) => boolean): PathProblem | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(folder);
  } catch {
    return undefined; // not there (yet): nothing can be planted in it
  }
  if (!trusted(stat.uid)) {
    return {
      kind: 'foreign',
      what: `folder ${folder}`,
      why: `belongs to another user (uid ${stat.uid})`,
      fix: 'use a folder of your own (set PLANTSTORE_CONFIG_DIR)',
    };
  }
  const mode = stat.mode & 0o7777;
  if (mode & 0o022 && !(mode & 0o1000)) {
    return {
      kind: 'writable',
      what: `folder ${folder}`,
      why: `is writable by others (mode ${mode.toString(8)})`,
      fix: `run chmod go-w ${folder}`,
    };
  }
  return undefined;
}

/**
 * The real path of `absolute` (as far as it exists), followed by hand so that every link on
 * the way is seen: realpath would follow a link another user planted without saying so.
 */
function resolveChecked(absolute: string, trusted: (uid: number) => boolean): { real: string } | { problem: PathProblem } {
  const rest = absolute.split(path.sep).filter(Boolean);
  let real = path.parse(absolute).root;
  let links = 0;
  while (rest.length > 0) {
    const part = rest.shift() as string;
    if (part === '.') continue;
    if (part === '..') {
      real = path.dirname(real);
      continue;
    }
    const next = path.join(real, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      // The rest does not exist yet: what exists above it is what is checked.
      return { real };
    }
    if (!stat.isSymbolicLink()) {
      real = next;
      continue;
    }
    if (!trusted(stat.uid)) {
      return {
        problem: {
          what: `symbolic link ${next}`,
          why: `belongs to another user (uid ${stat.uid}), who can point it anywhere`,
          fix: 'remove it, or set PLANTSTORE_CONFIG_DIR to a folder of your own',
        },
      };
    }
    if (++links > MAX_LINKS) return { real };
    const target = fs.readlinkSync(next);
    if (path.isAbsolute(target)) real = path.parse(target).root;
    rest.unshift(...target.split(path.sep).filter(Boolean));
  }
  return { real };
}

function realOrSelf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
