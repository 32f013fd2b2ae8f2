import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether a folder's path is one only the running user (and root) can change, as ssh checks
 * the path of a key (StrictModes): every folder from `dir` up to `stopAt` (or to `/` when
 * `stopAt` is not above it) must belong to the user or root and must not be writable by
 * group or others unless sticky (/tmp); every symbolic link met on the way, followed one
 * component at a time, must belong to the user or root, since whoever owns a link can point
 * it elsewhere at any time. Folders that do not exist yet are skipped: plantstore creates them 0700.
 * A journal's walk alone also takes, above the journal's own folder, a folder shared by a group
 * the user is in (sharedWithYourGroup: a Kubernetes volume); the config's walk never does.
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

export function pathProblem(dir: string, stopAt: string | undefined, options: WalkOptions = {}): PathProblem | undefined {
  return walkPath(dir, stopAt, options).problem;
}

export interface WalkOptions {
  /**
   * A folder above `dir` (never `dir` itself) may be a group's shared folder the user is in
   * (sharedWithYourGroup): a journal's walk says so, the config's never does.
   */
  groupSharedAbove?: boolean;
}

/** What walking the path found: its problem, and `dir`'s own stat when the walk took one (it exists). */
export interface WalkedPath {
  problem: PathProblem | undefined;
  /** Taken by the walk: a caller that needs the folder's mode too need not stat it again. */
  stat?: fs.Stats;
}

/** pathProblem, with the stat of `dir` the walk took on its way. Each folder is stat'ed once. */
export function walkPath(dir: string, stopAt: string | undefined, options: WalkOptions = {}): WalkedPath {
  const you = process.getuid?.();
  if (you === undefined || process.platform === 'win32') return { problem: undefined };
  const trusted = (uid: number): boolean => uid === you || uid === 0;
  // The lstat of each folder met on the way that is not a link: what stat would say of it.
  const seen = new Map<string, fs.Stats>();
  const walked = resolveChecked(path.resolve(dir), trusted, seen);
  if ('problem' in walked) return { problem: walked.problem };
  const stop = stopAt === undefined ? undefined : realOrSelf(stopAt);
  const stat = walked.whole ? seen.get(walked.real) : undefined;
  let folder = walked.real;
  // `dir` itself, when it exists: never excused as shared.
  const own = walked.whole ? walked.real : undefined;
  const excused = (at: string, problem: PathProblem): boolean =>
    options.groupSharedAbove === true && at !== own && problem.kind === 'writable' && sharedWithYourGroup(seen.get(at) ?? fs.statSync(at));
  for (;;) {
    const problem = folderProblem(folder, trusted, seen.get(folder));
    if (problem !== undefined && !excused(folder, problem)) return { problem, ...(stat === undefined ? {} : { stat }) };
    const parent = path.dirname(folder);
    if (folder === stop || parent === folder) return { problem: undefined, ...(stat === undefined ? {} : { stat }) };
    folder = parent;
  }
}

/** One folder's own problem: another user's, or writable by others without the sticky bit. `known`: its stat, already taken. */
export function folderProblem(folder: string, trusted: (uid: number) => boolean, known?: fs.Stats): PathProblem | undefined {
  let stat: fs.Stats;
  try {
    stat = known ?? fs.statSync(folder);
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
  const mode = writableByOthers(stat.mode);
  if (mode !== undefined && !(mode & 0o1000)) {
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
function resolveChecked(
  absolute: string,
  trusted: (uid: number) => boolean,
  seen: Map<string, fs.Stats>,
): { real: string; whole: boolean } | { problem: PathProblem } {
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
      return { real, whole: false };
    }
    if (!stat.isSymbolicLink()) {
      real = next;
      seen.set(real, stat);
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
    if (++links > MAX_LINKS) return { real, whole: false };
    const target = fs.readlinkSync(next);
    if (path.isAbsolute(target)) real = path.parse(target).root;
    rest.unshift(...target.split(path.sep).filter(Boolean));
  }
  return { real, whole: true };
}

/**
 * A folder a group shares, the user among them: setgid, writable by its group but not by others,
 * its group one this process is in. Kubernetes makes a volume so for a pod's fsGroup (mode 2775,
 * group fsGroup, the pod's process in that group), and `chmod 2775` a group's project folder.
 * Its members can rename what is in it, and put there only what is theirs or yours: above a
 * journal's own folder, what is theirs is refused on the way down (file-trust.ts).
 */
export function sharedWithYourGroup(stat: { mode: number; gid: number }): boolean {
  const bits = stat.mode & 0o7777;
  if ((bits & 0o2000) === 0 || (bits & 0o020) === 0 || (bits & 0o002) !== 0) return false;
  return isYourGroup(stat.gid);
}

/** Whether this process is in group `gid` (its effective group, or one of its supplementary groups). */
export function isYourGroup(gid: number): boolean {
  return process.getegid?.() === gid || (process.getgroups?.() ?? []).includes(gid);
}

/**
 * The permission bits of `mode` when group or others may write there (a file, a folder: the
 * sticky bit is the caller's to judge); undefined when only the owner can. The one test of
 * "writable by others" for the config file, its folder and the folders above it.
 */
export function writableByOthers(mode: number): number | undefined {
  const bits = mode & 0o7777;
  return bits & 0o022 ? bits : undefined;
}

function realOrSelf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
