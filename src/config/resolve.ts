import { AuthError, ConfigError } from '../errors.js';
import type { FlagReader, Sourced } from '../flags/flag.js';
import { BASE_URL, PROFILE, TOKEN_FILE } from '../flags/global.js';
import type { Env } from '../platform/env.js';
import { assertSafeForToken } from './base-url.js';
import { MAX_TOKEN_INPUT_BYTES, readConfiguredFile } from './bounded-read.js';
import type { ConfigFile } from './file.js';
import { normalizeToken } from './token.js';

/** The flags that choose where requests go and with which token. */
export type TargetFlags = FlagReader<typeof PROFILE | typeof BASE_URL | typeof TOKEN_FILE>;

/**
 * Token = PLANTSTORE_TOKEN, else a token file (--token-file, PLANTSTORE_TOKEN_FILE:
 * secrets mounted in CI), else the profile's stored token. The config file is not
 * read when an earlier source has one.
 */
export async function resolveToken(
  env: Env,
  config: () => ConfigFile,
  profile: string,
  tokenFile: Sourced<string> | undefined,
  signal?: AbortSignal,
): Promise<Sourced<string> | undefined> {
  const fromEnv = env['PLANTSTORE_TOKEN'];
  if (fromEnv) return { value: checkConfiguredToken(fromEnv, 'PLANTSTORE_TOKEN'), source: 'PLANTSTORE_TOKEN' };
  if (tokenFile !== undefined) {
    const source = `token file ${tokenFile.value}`;
    return { value: checkConfiguredToken(await readTokenFile(tokenFile.value, tokenFile.source, signal), source), source };
  }
  const stored = config().profile(profile).token;
  if (stored) {
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
      tooLarge: `token file ${file} (from ${origin}) holds more than ${MAX_TOKEN_INPUT_BYTES} bytes: too large to hold a token`,
    },
    signal,
  );
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
export async function resolveTarget(
  flags: TargetFlags,
  env: Env,
  config: () => ConfigFile,
  redact: (secret: string) => void = () => {},
  signal?: AbortSignal,
): Promise<Target> {
  const profile = flags.value(PROFILE);
  const token = await resolveToken(env, config, profile, flags.sourced(TOKEN_FILE), signal);
  if (token) redact(token.value);
  const baseUrl = flags.sourced(BASE_URL);
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
