import { MAX_DELETES, SHARD } from '../../engine/batch-flags.js';
import { describeShard } from '../../engine/shard.js';
import { CliError } from '../../errors.js';
import { Flag, type FlagReader, type Sourced } from '../../flags/flag.js';
import { BASE_URL, COLOR, JSON_OUTPUT, PROFILE, QUIET, TIMEOUT, TOKEN_FILE } from '../../flags/global.js';
import { profileVariable } from '../../service/settings.js';
import { MISSING_ERROR } from '../plants/shared/missing.js';

export const WITH_TOKEN = Flag.switch({ key: 'withToken', flags: '--with-token', help: 'read the token from standard input' });

export const LOGIN_GLOBALS = [PROFILE, BASE_URL, JSON_OUTPUT, QUIET, COLOR] as const;
export const LOGOUT_GLOBALS = [PROFILE, QUIET, COLOR] as const;
export const STATUS_GLOBALS = [PROFILE, BASE_URL, JSON_OUTPUT, COLOR, TOKEN_FILE, TIMEOUT] as const;
export const TOKEN_GLOBALS = [PROFILE, COLOR, TOKEN_FILE, TIMEOUT] as const;

export type LoginFlags = FlagReader<typeof WITH_TOKEN | (typeof LOGIN_GLOBALS)[number]>;
export type LogoutFlags = FlagReader<(typeof LOGOUT_GLOBALS)[number]>;
/**
 * Status also reads what a batch here would run with, none an option of its own: delete's
 * missing-error and --max-deletes (from the variable, then the profile) and --shard (its variable).
 */
export type StatusFlags = FlagReader<(typeof STATUS_GLOBALS)[number] | typeof MISSING_ERROR | typeof MAX_DELETES | typeof SHARD>;

/** A setting a batch here would run with, and its source; or the error a batch would stop on (a bad variable). */
export type InForce<T> = Sourced<T> | { problem: string } | undefined;
export type TokenFlags = FlagReader<(typeof TOKEN_GLOBALS)[number]>;

// Each function below reads every flag its command declares, once, in the order written: a bad
// value is reported by the first read that meets it, so that order is the order problems are found.

/** What `plantstore auth login` was asked. */
export interface LoginOptions {
  profile: string;
  /**
   * A --base-url typed on this command line, stored with the token. One from the environment
   * or the profile is not: it is already where it is read.
   */
  baseUrl: string | undefined;
  /** Read the token from standard input rather than a hidden prompt. */
  withToken: boolean;
  json: boolean;
  quiet: boolean;
}

export function loginOptions(flags: LoginFlags): LoginOptions {
  return {
    profile: flags.value(PROFILE),
    baseUrl: flags.given(BASE_URL)?.value,
    withToken: flags.value(WITH_TOKEN),
    json: flags.value(JSON_OUTPUT),
    quiet: flags.value(QUIET),
  };
}

/** What `plantstore auth logout` was asked. */
export interface LogoutOptions {
  profile: string;
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  quiet: boolean;
}

export function logoutOptions(flags: LogoutFlags): LogoutOptions {
  return { profile: flags.value(PROFILE), profileVariable: profileVariable(flags), quiet: flags.value(QUIET) };
}

/** What `plantstore auth status` was asked. */
export interface StatusOptions {
  profile: string;
  /** Where the profile's name came from (--profile, PLANTSTORE_PROFILE); undefined for the default. */
  profileSource: string | undefined;
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  tokenFile: Sourced<string> | undefined;
  /** Where the base URL comes from (flag, variable or profile), as status shows it. */
  baseUrl: Sourced<string> | undefined;
  /** The codes that mean "no such plant" for delete, and where they come from. */
  missingError: Sourced<number[]> | undefined;
  /** The guard a batch here would run with: --max-deletes from its variable or the profile. */
  maxDeletes?: InForce<number>;
  /** The part of a job a batch here would take: PLANTSTORE_SHARD, as `1/4`. */
  shard?: InForce<string>;
  json: boolean;
  /** --timeout: how long a token command may take to answer. */
  timeoutMs: number;
}

export function statusOptions(flags: StatusFlags): StatusOptions {
  return {
    profile: flags.value(PROFILE),
    profileSource: flags.sourced(PROFILE)?.source,
    profileVariable: profileVariable(flags),
    tokenFile: flags.sourced(TOKEN_FILE),
    baseUrl: flags.sourced(BASE_URL),
    missingError: flags.sourced(MISSING_ERROR),
    maxDeletes: inForce(() => flags.sourced(MAX_DELETES)),
    shard: inForce(() => {
      const shard = flags.sourced(SHARD);
      return shard && { value: describeShard(shard.value), source: shard.source };
    }),
    json: flags.value(JSON_OUTPUT),
    timeoutMs: flags.value(TIMEOUT),
  };
}

/** The value a batch here would read, or the one-line error it would stop on: status shows it and goes on. */
function inForce<T>(read: () => Sourced<T> | undefined): InForce<T> {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { problem: error.message };
  }
}

/** What `plantstore auth token` was asked. */
export interface TokenOptions {
  profile: string;
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  tokenFile: Sourced<string> | undefined;
  /** --timeout: how long a token command may take to answer. */
  timeoutMs: number;
}

export function tokenOptions(flags: TokenFlags): TokenOptions {
  return {
    profile: flags.value(PROFILE),
    profileVariable: profileVariable(flags),
    tokenFile: flags.sourced(TOKEN_FILE),
    timeoutMs: flags.value(TIMEOUT),
  };
}
