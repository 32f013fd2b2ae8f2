import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { Env } from '../platform/env.js';
import { errnoWords } from '../text/errno.js';
import { withLock } from './lock.js';
import { readOwnFile, writeFileAtomically } from './own-file.js';
import { type PathProblem, type WalkedPath, walkPath, writableByOthers } from './path-trust.js';

/** One profile's stored settings. Keys are spelled as the user types them. */
export interface Profile {
  token?: string;
  'base-url'?: string;
  /** API error codes meaning "no such plant", comma-separated (missing-errors.ts). */
  'missing-error'?: string;
  /** A command that prints the token (token-command.ts), run instead of storing one. */
  'token-command'?: string;
  /** The most ids a batch may send (--max-deletes): a guard against the wrong list for this profile's service. */
  'max-deletes'?: string;
}

export const PROFILE_KEYS = ['base-url', 'missing-error', 'token-command', 'max-deletes'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

interface ConfigData {
  profiles?: Record<string, Profile>;
  [other: string]: unknown;
}

/** The file as read: what it holds, its mode when others can write it (undefined when only we can), and why it is not trusted. */
interface ReadConfig {
  data: ConfigData;
  writableByOthers: number | undefined;
  /** Why nothing in it may be used (the path to it, or its own mode); undefined for a file only we could have written. */
  distrust: Distrust | undefined;
}

/**
 * Why nothing in the config file may be used: others can write it, or change the path to it
 * (a folder on it others can write, another user's, or a link another user owns). `what` is a
 * sentence's subject and verb ("config file … is writable by others (mode 666)"); `fix` is what to do.
 */
export interface Distrust {
  what: string;
  fix: string;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}

/** The message for a name that is not one; the caller decides the exit class (a typo on the command line is exit 2). */
export function badProfileName(name: string, source: string): string {
  return `invalid profile name '${name}' (from ${source}): use letters, digits, '-' and '_'`;
}

export function checkProfileName(name: string, source: string): string {
  if (!isProfileName(name)) throw new ConfigError(badProfileName(name, source));
  return name;
}

/**
 * Where the config lives: the folder conf chose for project "plantstore" (no suffix) when
 * plantstore 1.0 used it, so files written then are found where they are.
 */
export function configDir(env: Env): string {
  const override = env['PLANTSTORE_CONFIG_DIR'];
  if (override) return path.resolve(override);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'plantstore');
  if (process.platform === 'win32') {
    return path.join(env['APPDATA'] ?? path.join(home, 'AppData', 'Roaming'), 'plantstore', 'Config');
  }
  return path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'plantstore');
}

export function configPath(env: Env): string {
  return path.join(configDir(env), 'config.json');
}

export interface ConfigFile {
  readonly path: string;
  /** The stored settings of a profile; empty when the file or the profile does not exist. */
  profile(name: string): Profile;
  /** Names of the stored profiles. */
  profileNames(): string[];
  /** Rewrites one profile atomically; `undefined` removes it. Other profiles and keys are kept. */
  updateProfile(name: string, change: (current: Profile) => Profile | undefined): Promise<void>;
  /** Whether others can write the config folder, so what the file says may be theirs: its mode, or undefined when only we can. */
  folderWritableByOthers(): number | undefined;
  /** Why nothing the file says may be used (trust.ts), or undefined when only we (and root) could have written it. */
  distrust(): Distrust | undefined;
}

export function openConfig(env: Env, warn: (line: string) => void): ConfigFile {
  const file = configPath(env);
  const folder = path.dirname(file);
  let cached: ReadConfig | undefined;
  // Like ssh's StrictModes: the folders up to the home folder (up to / for a folder chosen
  // with PLANTSTORE_CONFIG_DIR, or one outside home), checked once per run, when first used.
  let walked: { path: WalkedPath; distrust: Distrust | undefined } | undefined;
  const walk = () => {
    if (walked === undefined) {
      const walkedPath = walkPath(folder, env['PLANTSTORE_CONFIG_DIR'] ? undefined : os.homedir());
      walked = { path: walkedPath, distrust: walkedPath.problem && pathDistrustOf(file, walkedPath.problem) };
    }
    return walked;
  };
  const pathDistrust = (): Distrust | undefined => walk().distrust;
  // The folder's mode, from the stat the walk took: one stat per folder per run. One not there
  // yet (or past a problem the walk stopped at) is asked when needed: this run may create it.
  let folderStat: fs.Stats | undefined;
  const folderShared = (): number | undefined => {
    folderStat ??= walk().path.stat ?? statIfThere(folder);
    return folderStat === undefined ? undefined : sharedMode(folderStat.mode);
  };
  let folderChecked = false;
  // Once per run, when the folder is first used (a file read from it, or a write).
  const checkFolder = (): void => {
    if (folderChecked) return;
    folderChecked = true;
    if (pathDistrust() === undefined) warnIfFolderShared(folder, folderShared(), warn);
  };
  const read = (): ReadConfig => (cached ??= readConfigData(file, warn, checkFolder, pathDistrust));
  return {
    path: file,
    profile: (name) => ({ ...read().data.profiles?.[name] }),
    profileNames: () => Object.keys(read().data.profiles ?? {}),
    folderWritableByOthers: folderShared,
    // A file not there has no mode to distrust: only the path to it.
    distrust: () => read().distrust ?? pathDistrust(),
    async updateProfile(name, change) {
      // The token would go where others can replace or read it, and the next read would not use it.
      const problem = pathDistrust();
      if (problem !== undefined) throw new ConfigError(`refusing to write config file ${file}: ${problem.what}; ${problem.fix}`);
      if (!ensureFolder(folder)) checkFolder();
      // Read, change and write under a lock, so two logins to different profiles both land.
      cached = withLock(file, () => {
        // Re-read right before writing: a corrupt, planted or foreign file must stop us before we replace it.
        const { data, writableByOthers: mode } = readConfigData(file, nothing, nothing, () => undefined);
        // Our 0600 rewrite would keep whatever others wrote into it, and make it look like ours.
        if (mode !== undefined) throw rewriteRefused(file, mode);
        const profiles = { ...data.profiles };
        const next = change({ ...profiles[name] });
        if (next === undefined || Object.keys(next).length === 0) delete profiles[name];
        else profiles[name] = next;
        writeProfiles(file, { ...data, profiles });
        return { data: { ...data, profiles }, writableByOthers: undefined, distrust: undefined };
      });
    },
  };
}

const nothing = (): void => {};

function readConfigData(
  file: string,
  warn: (line: string) => void,
  checkFolder: () => void,
  pathDistrust: () => Distrust | undefined,
): ReadConfig {
  // Bounded, never blocking, never through a symlink, only our own regular file (own-file.ts).
  const read = readOwnFile(file);
  if (read === undefined) return { data: {}, writableByOthers: undefined, distrust: undefined };
  const { text } = read;
  // Shown as chmod takes it: the file's own bits, without setuid, setgid or sticky.
  const mode = read.mode & 0o777;
  const shared = sharedMode(mode);
  checkFolder();
  const distrust = pathDistrust() ?? (shared === undefined ? undefined : fileDistrust(file, shared));
  if (distrust !== undefined) warn(distrustWarning(distrust));
  else warnIfReadable(file, mode, warn);
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ConfigError(`config file ${file} is not valid JSON: fix it by hand, or move it away and log in again`);
  }
  const problem = shapeProblem(data);
  if (problem)
    throw new ConfigError(`config file ${file} is not a plantstore config (${problem}): fix it by hand, or move it away and log in again`);
  return { data: data as ConfigData, writableByOthers: shared, distrust };
}

function shapeProblem(data: unknown): string | undefined {
  if (!isPlainObject(data)) return 'the top level is not an object';
  const profiles = data['profiles'];
  if (profiles === undefined) return undefined;
  if (!isPlainObject(profiles)) return '"profiles" is not an object';
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isPlainObject(profile)) return `profile "${name}" is not an object`;
    for (const key of ['token', ...PROFILE_KEYS]) {
      if (profile[key] !== undefined && typeof profile[key] !== 'string') return `"${key}" of profile "${name}" is not a string`;
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Like ssh: a token others can read is a token others can use.
function warnIfReadable(file: string, mode: number, warn: (line: string) => void): void {
  if (process.platform === 'win32') return;
  if (mode & 0o077) warn(`warning: config file ${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
}

/**
 * What others could have written is not yours (issue 34): nothing in the file is used, and
 * trust.ts stops a run that needs any of it. A run that needs none of it is told once, and goes on.
 */
function distrustWarning({ what, fix }: Distrust): string {
  return `warning: ${what}: nothing in it is used (${['token', ...PROFILE_KEYS].join(', ')}), and it is not rewritten; to use it, ${fix}`;
}

function fileDistrust(file: string, mode: number): Distrust {
  return { what: `config file ${file} is writable by others (mode ${mode.toString(8)})`, fix: `check it, then run chmod 600 ${file}` };
}

function pathDistrustOf(file: string, problem: PathProblem): Distrust {
  return {
    what: `config file ${file} is reached through ${problem.what}, which ${problem.why}`,
    fix: `check the file, then ${problem.fix}`,
  };
}

function rewriteRefused(file: string, mode: number): ConfigError {
  return new ConfigError(
    `config file ${file} is writable by others (mode ${mode.toString(8)}): plantstore does not rewrite it, since the new file would keep what someone else may have written there as if it were yours; check it, then run chmod 600 ${file}`,
  );
}

// A sticky folder others can write (/tmp, a shared 1777 folder) keeps ours ours, but lets them
// plant a config file or its lock while there is none. Without the sticky bit, pathProblem refuses it.
function warnIfFolderShared(dir: string, mode: number | undefined, warn: (line: string) => void): void {
  if (mode === undefined) return;
  warn(
    `warning: config folder ${dir} is writable by others (mode ${mode.toString(8)}): others could plant a config file or its lock there; use a folder only you can write`,
  );
}

/** The mode when others can write the file or folder (path-trust.ts); never on Windows, where the bits say nothing. */
function sharedMode(mode: number): number | undefined {
  return process.platform === 'win32' ? undefined : writableByOthers(mode);
}

/** The folder's stat; undefined when it is not there (yet). */
function statIfThere(dir: string): fs.Stats | undefined {
  try {
    return fs.statSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * Creates the folder (and any missing parent) with mode 0700. An existing folder keeps its
 * mode: it may be one the user chose and shares (PLANTSTORE_CONFIG_DIR=., a sticky 1777
 * folder), which is not ours to lock or unlock. Returns whether the folder was created.
 */
function ensureFolder(dir: string): boolean {
  try {
    const created = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (created === undefined) return false;
    // A folder we made is ours: exactly 0700, whatever the umask took.
    fs.chmodSync(dir, 0o700);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot create config folder ${dir}: ${errnoWords(code)}; set PLANTSTORE_CONFIG_DIR to a writable folder, or use PLANTSTORE_TOKEN`,
      code,
    );
  }
}

/**
 * Written by own-file.ts, not by conf: conf writes in place when SNAP is set (a
 * full disk then truncates the file) and gives its new file the old file's owner
 * (a planted file's owner would get the token). Tab-indented, as conf wrote it.
 */
function writeProfiles(file: string, data: ConfigData): void {
  try {
    writeFileAtomically(file, `${JSON.stringify(data, undefined, '\t')}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot write config file ${file}: ${code === undefined ? (error as Error).message : errnoWords(code)}; check the folder is writable and has room, or use PLANTSTORE_TOKEN`,
      code,
    );
  }
}
