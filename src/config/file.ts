import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { Env } from '../ui/io.js';

/** One profile's stored settings. Keys are spelled as the user types them. */
export interface Profile {
  token?: string;
  'base-url'?: string;
  /** API error codes meaning "no such plant", comma-separated (missing-errors.ts). */
  'missing-error'?: string;
}

export const PROFILE_KEYS = ['base-url', 'missing-error'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

interface ConfigData {
  profiles?: Record<string, Profile>;
  [other: string]: unknown;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkProfileName(name: string, source: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new ConfigError(`invalid profile name '${name}' (from ${source}): use letters, digits, '-' and '_'`);
  }
  return name;
}

/**
 * The folder conf would choose for project "plantstore" with no suffix, computed
 * here so that reading the config never has to load conf (and ajv) at all.
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
}

export function openConfig(env: Env, warn: (line: string) => void): ConfigFile {
  const file = configPath(env);
  let cached: ConfigData | undefined;
  let folderChecked = false;
  // Once per run, when the folder is first used (a file read from it, or a write).
  const checkFolder = (): void => {
    if (folderChecked) return;
    folderChecked = true;
    warnIfFolderExposed(path.dirname(file), warn);
  };
  const read = (): ConfigData => (cached ??= readConfigData(file, warn, checkFolder));
  return {
    path: file,
    profile: (name) => ({ ...read().profiles?.[name] }),
    profileNames: () => Object.keys(read().profiles ?? {}),
    async updateProfile(name, change) {
      // conf is loaded only here: importing it loads ajv too, and only writes need
      // its atomic temp-file-and-rename and its file mode handling.
      const { default: Conf } = await import('conf');
      if (!ensureFolder(path.dirname(file))) checkFolder();
      // Read, change and write under a lock, so two logins to different profiles both land.
      cached = withLock(file, () => {
        // Re-read right before writing: a corrupt file must stop us before conf touches it.
        const data = readConfigData(file, nothing, nothing);
        const profiles = { ...data.profiles };
        const next = change({ ...profiles[name] });
        if (next === undefined || Object.keys(next).length === 0) delete profiles[name];
        else profiles[name] = next;
        writeProfiles(Conf, file, profiles);
        return { ...data, profiles };
      });
    },
  };
}

const nothing = (): void => {};

function readConfigData(file: string, warn: (line: string) => void, checkFolder: () => void): ConfigData {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file stands where a folder on the path should be, so there is no config here either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    throw new ConfigError(`cannot read config file ${file} (${code ?? 'unknown error'}): check its permissions`);
  }
  checkFolder();
  warnIfExposed(file, warn);
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ConfigError(`config file ${file} is not valid JSON: fix it by hand, or move it away and log in again`);
  }
  const problem = shapeProblem(data);
  if (problem)
    throw new ConfigError(`config file ${file} is not a plantstore config (${problem}): fix it by hand, or move it away and log in again`);
  return data as ConfigData;
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
function warnIfExposed(file: string, warn: (line: string) => void): void {
  if (process.platform === 'win32') return;
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) {
    warn(`warning: config file ${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
  }
}

// A folder others can write is one where they can put a config file of their own (a base URL
// of theirs, so the token goes to them), or replace ours unless the sticky bit stops them.
function warnIfFolderExposed(dir: string, warn: (line: string) => void): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = fs.statSync(dir).mode & 0o7777;
  } catch {
    return; // not there (yet): nothing to say
  }
  if ((mode & 0o022) === 0) return;
  const risk = mode & 0o1000 ? 'others could plant a config file or its lock there' : 'others could replace the config file';
  warn(`warning: config folder ${dir} is writable by others (mode ${mode.toString(8)}): ${risk}; use a folder only you can write`);
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
    throw new ConfigError(
      `cannot create config folder ${dir} (${(error as NodeJS.ErrnoException).code}): set PLANTSTORE_CONFIG_DIR to a writable folder, or use PLANTSTORE_TOKEN`,
    );
  }
}

const LOCK_WAIT_MS = 10_000;
// A lock older than this was left by a process that died mid-write.
const LOCK_STALE_MS = 30_000;

/** An exclusive lock file beside the config (O_EXCL create), held for one read-change-write. */
function withLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const giveUp = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new ConfigError(
          `cannot write in config folder ${path.dirname(file)} (${code}): check it is writable, or use PLANTSTORE_TOKEN`,
        );
      if (isStale(lock)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > giveUp) {
        throw new ConfigError(`config file ${file} is locked by another plantstore (${lock}); if none is running, delete that file`);
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 20);
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function isStale(lock: string): boolean {
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false; // gone already: the next attempt will take it
  }
}

function writeProfiles(Conf: typeof import('conf').default, file: string, profiles: Record<string, Profile>): void {
  const dir = path.dirname(file);
  try {
    const store = new Conf<{ profiles: Record<string, Profile> }>({
      cwd: dir,
      configName: 'config',
      projectSuffix: '',
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
    });
    store.set('profiles', profiles);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`cannot write config file ${file} (${code}): check the folder is writable, or use PLANTSTORE_TOKEN`);
  }
}
