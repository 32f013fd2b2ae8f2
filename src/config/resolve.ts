import { ConfigError } from '../errors.js';
import type { Env } from '../platform/env.js';
import { firstControl } from '../text/shown.js';
import { assertSafeForToken } from './base-url.js';
import { MAX_TOKEN_INPUT_BYTES, readConfiguredFile } from './bounded-read.js';
import type { ConfigFile } from './file.js';
import { commandFor } from './profiles.js';
import { normalizeToken } from './token.js';
import { checkTrusted } from './trust.js';

/** A value and where it came from ("--timeout", "PLANTSTORE_TIMEOUT", "profile 'work' in …"), as messages name it. */
export interface Sourced<T> {
  value: T;
  source: string;
}

/** What chooses where requests go and with which token, as the command read it. */
export interface TargetSettings {
  profile: string;
  /** The variable that named the profile (PLANTSTORE_PROFILE), for messages; undefined when typed or the default. */
  profileSource?: string | undefined;
  baseUrl: Sourced<string> | undefined;
  tokenFile: Sourced<string> | undefined;
}

/** A token, or the command that prints one (run only when a request is about to be sent). */
export type TokenSource = Sourced<string> | TokenCommand;

export interface TokenCommand {
  /** The command line, as the user wrote it (token-command.ts splits it into words). */
  command: string;
  source: string;
}

export function isTokenCommand(token: TokenSource): token is TokenCommand {
  return 'command' in token;
}

/** A token file named by --token-file or PLANTSTORE_TOKEN_FILE, not read yet. */
export interface TokenFile {
  file: Sourced<string>;
}

/** Where the token of a run comes from, found without reading a token file or running a command. */
export type TokenOrigin = TokenSource | TokenFile;

export function isTokenFile(origin: TokenOrigin): origin is TokenFile {
  return 'file' in origin;
}

/**
 * Token, strongest first, as every setting: the command line (--token-file), then the
 * environment (PLANTSTORE_TOKEN, PLANTSTORE_TOKEN_FILE: secrets mounted in CI,
 * PLANTSTORE_TOKEN_COMMAND), then the profile (its token-command, its stored token). The
 * config file is not read when an earlier source has one. The token file is read here.
 */
export async function resolveToken(
  env: Env,
  config: () => ConfigFile,
  profile: string,
  tokenFile: Sourced<string> | undefined,
  signal?: AbortSignal,
): Promise<TokenSource | undefined> {
  const origin = tokenOrigin(env, config, profile, tokenFile);
  if (origin === undefined || !isTokenFile(origin)) return origin;
  const { file } = origin;
  const source = `token file ${file.value}`;
  return { value: checkConfiguredToken(await readTokenFile(file.value, file.source, signal), source), source };
}

/**
 * The order of resolveToken, and every check it makes before a token file is read or a command
 * run: what `config list` says is in force is what a run would use, or the error it would stop on.
 */
export function tokenOrigin(
  env: Env,
  config: () => ConfigFile,
  profile: string,
  tokenFile: Sourced<string> | undefined,
): TokenOrigin | undefined {
  // Typed on this command line: it outranks the environment, as a flag always does.
  if (tokenFile !== undefined && tokenFile.source !== 'PLANTSTORE_TOKEN_FILE') return { file: tokenFile };
  const fromEnv = env['PLANTSTORE_TOKEN'];
  if (fromEnv) return { value: checkConfiguredToken(fromEnv, 'PLANTSTORE_TOKEN'), source: 'PLANTSTORE_TOKEN' };
  if (tokenFile !== undefined) return { file: tokenFile };
  const commandFromEnv = env['PLANTSTORE_TOKEN_COMMAND']?.trim();
  if (commandFromEnv) {
    const control = firstControl(commandFromEnv);
    if (control !== undefined) {
      throw new ConfigError(
        `the token command in PLANTSTORE_TOKEN_COMMAND holds the control character ${control}, which could rewrite the terminal wherever the command is shown; write it on one line, without control or bidi characters`,
      );
    }
    return { command: commandFromEnv, source: 'PLANTSTORE_TOKEN_COMMAND' };
  }
  const { 'token-command': command, token: stored } = config().profile(profile);
  if (command) {
    // The command runs with our privileges: from a file others could have written, it would be theirs to choose.
    checkTrusted(config(), profile, 'token-command');
    const source = `profile '${profile}' in ${config().path}`;
    // config set refuses these now; a file written by hand or by an older plantstore may still hold one.
    const control = firstControl(command);
    if (control !== undefined) {
      throw new ConfigError(
        `the token-command of ${source} holds the control character ${control}, which could rewrite the terminal wherever the command is shown; set it again on one line, without control or bidi characters (${commandFor(profile, 'config set token-command')})`,
      );
    }
    return { command, source };
  }
  if (stored) {
    checkTrusted(config(), profile, 'token');
    const source = `profile '${profile}' in ${config().path}`;
    return { value: checkConfiguredToken(stored, source), source };
  }
  return undefined;
}

function readTokenFile(file: string, origin: string, signal: AbortSignal | undefined): Promise<string> {
  // Bounded: /dev/zero, a FIFO that never ends or a huge file cost at most this much.
  return readConfiguredFile(
    file,
    MAX_TOKEN_INPUT_BYTES,
    {
      unreadable: `cannot read token file ${file} (from ${origin})`,
      advice: `point ${origin} at a readable file that holds the token`,
      tooLarge: `token file ${file} (from ${origin}) holds more than ${MAX_TOKEN_INPUT_BYTES} bytes: too large to hold a token`,
    },
    signal,
  );
}

// A malformed token already in the environment or the file is a configuration problem, not a typo on this command line.
function checkConfiguredToken(raw: string, source: string): string {
  return normalizeToken(raw, source, false);
}

export interface Target {
  profile: string;
  baseUrl: string;
  token: TokenSource;
}

/** What the target lacks: the command says how to supply it, since only it knows its flags. */
export interface MissingSetting {
  missing: 'base-url' | 'token';
  profile: string;
  profileSource?: string | undefined;
}

/**
 * Everything a request needs, or what is missing. `redact` learns the token before
 * anything else can fail, so no later error message (a base URL with the token pasted
 * into it, say) can show it.
 */
export async function resolveTarget(
  settings: TargetSettings,
  env: Env,
  config: () => ConfigFile,
  redact: (secret: string) => void = () => {},
  signal?: AbortSignal,
): Promise<Target | MissingSetting> {
  const { profile, profileSource, baseUrl } = settings;
  const token = await resolveToken(env, config, profile, settings.tokenFile, signal);
  if (token && !isTokenCommand(token)) redact(token.value);
  if (!baseUrl) return { missing: 'base-url', profile, profileSource };
  if (!token) return { missing: 'token', profile, profileSource };
  assertSafeForToken(baseUrl.value, baseUrl.source);
  return { profile, baseUrl: baseUrl.value, token };
}
