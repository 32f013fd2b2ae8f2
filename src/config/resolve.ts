import { AuthError, ConfigError } from '../errors.js';
import type { Env } from '../ui/io.js';
import { assertSafeForToken, normalizeBaseUrl } from './base-url.js';
import { MAX_TOKEN_INPUT_BYTES, readConfiguredFile } from './bounded-read.js';
import { type ConfigFile, checkProfileName } from './file.js';
import { normalizeToken } from './token.js';

/** A resolved value and where it came from, so `auth status` and errors can say so. */
export interface Sourced {
  value: string;
  source: string;
}

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  tokenFile?: string;
}

/** Profile = --profile, else PLANTSTORE_PROFILE, else "default". */
export function resolveProfile(flags: GlobalFlags, env: Env): string {
  if (flags.profile !== undefined) return checkProfileName(flags.profile, '--profile');
  const fromEnv = env['PLANTSTORE_PROFILE'];
  if (fromEnv) return checkProfileName(fromEnv, 'PLANTSTORE_PROFILE');
  return 'default';
}

/** Base URL = --base-url, else PLANTSTORE_BASE_URL, else the profile's base-url. */
export function resolveBaseUrl(flags: GlobalFlags, env: Env, config: () => ConfigFile, profile: string): Sourced | undefined {
  const candidate = pickBaseUrl(flags, env, config, profile);
  if (!candidate) return undefined;
  return { value: normalizeBaseUrl(candidate.value, candidate.source), source: candidate.source };
}

function pickBaseUrl(flags: GlobalFlags, env: Env, config: () => ConfigFile, profile: string): Sourced | undefined {
  if (flags.baseUrl !== undefined) return { value: flags.baseUrl, source: '--base-url' };
  const fromEnv = env['PLANTSTORE_BASE_URL'];
  if (fromEnv) return { value: fromEnv, source: 'PLANTSTORE_BASE_URL' };
  const stored = config().profile(profile)['base-url'];
  if (stored) return { value: stored, source: `profile '${profile}' in ${config().path}` };
  return undefined;
}

/**
 * Token = PLANTSTORE_TOKEN, else a token file (--token-file, PLANTSTORE_TOKEN_FILE:
 * secrets mounted in CI), else the profile's stored token. The config file is not
 * read when an earlier source has one.
 */
export function resolveToken(env: Env, config: () => ConfigFile, profile: string, tokenFileFlag?: string): Sourced | undefined {
  const fromEnv = env['PLANTSTORE_TOKEN'];
  if (fromEnv) return { value: checkConfiguredToken(fromEnv, 'PLANTSTORE_TOKEN'), source: 'PLANTSTORE_TOKEN' };
  const file = tokenFileFlag ?? (env['PLANTSTORE_TOKEN_FILE'] || undefined);
  if (file !== undefined) {
    const source = `token file ${file}`;
    return {
      value: checkConfiguredToken(readTokenFile(file, tokenFileFlag === undefined ? 'PLANTSTORE_TOKEN_FILE' : '--token-file'), source),
      source,
    };
  }
  const stored = config().profile(profile).token;
  if (stored) {
    const source = `profile '${profile}' in ${config().path}`;
    return { value: checkConfiguredToken(stored, source), source };
  }
  return undefined;
}

function readTokenFile(file: string, origin: string): string {
  // Bounded: /dev/zero, a FIFO that never ends or a huge file cost at most this much.
  return readConfiguredFile(file, MAX_TOKEN_INPUT_BYTES, {
    unreadable: `cannot read token file ${file} (from ${origin})`,
    tooLarge: `token file ${file} (from ${origin}) holds more than ${MAX_TOKEN_INPUT_BYTES} bytes: too large to hold a token`,
  });
}

// A malformed token already in the environment or the file is a configuration problem, not a typo on this command line.
function checkConfiguredToken(raw: string, source: string): string {
  try {
    return normalizeToken(raw, source);
  } catch (error) {
    throw new ConfigError((error as Error).message.replace('; nothing was stored', ''));
  }
}

export interface Target {
  profile: string;
  baseUrl: string;
  token: string;
}

/**
 * Everything a request needs, or the configuration error that stops it.
 * `redact` learns the token before anything else can fail, so no later error
 * message (a base URL with the token pasted into it, say) can show it.
 */
export function resolveTarget(flags: GlobalFlags, env: Env, config: () => ConfigFile, redact: (secret: string) => void = () => {}): Target {
  const profile = resolveProfile(flags, env);
  const token = resolveToken(env, config, profile, flags.tokenFile);
  if (token) redact(token.value);
  const baseUrl = resolveBaseUrl(flags, env, config, profile);
  if (!baseUrl) {
    throw new ConfigError(
      `no base URL for profile '${profile}': pass --base-url, set PLANTSTORE_BASE_URL, or run plantstore config set base-url <url>`,
    );
  }
  if (!token) {
    throw new AuthError(`no token for profile '${profile}': run plantstore auth login, or set PLANTSTORE_TOKEN`);
  }
  assertSafeForToken(baseUrl.value, baseUrl.source);
  return { profile, baseUrl: baseUrl.value, token: token.value };
}
