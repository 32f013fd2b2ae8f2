import type { FlagReader } from '../../flags/flag.js';
import { COLOR, JSON_OUTPUT, PROFILE, QUIET } from '../../flags/global.js';
import { profileVariable } from '../../service/settings.js';
import { type InForce, type InForceContext, type InForceFlag, settingsInForce } from './in-force.js';

export const READ_GLOBALS = [PROFILE, JSON_OUTPUT, COLOR] as const;
export const WRITE_GLOBALS = [PROFILE, QUIET, COLOR] as const;
export const PATH_GLOBALS = [JSON_OUTPUT, COLOR] as const;

/** config get, config list; list also reads, as a run here would, each setting that outranks the profile (in-force.ts). */
export type ReadFlags = FlagReader<(typeof READ_GLOBALS)[number] | InForceFlag>;
/** config set, config unset. */
export type WriteFlags = FlagReader<(typeof WRITE_GLOBALS)[number]>;
/** config path. */
export type PathFlags = FlagReader<(typeof PATH_GLOBALS)[number]>;

// Each function below reads every flag its command declares, once, in the order written: a bad
// value is reported by the first read that meets it. The key and value are checked by the run,
// after the flags, as they always were.

/** What `plantstore config get <key>` was asked; the key as typed. */
export interface GetOptions {
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  key: string;
  profile: string;
  json: boolean;
}

export function getOptions(flags: ReadFlags, key: string): GetOptions {
  return { key, profile: flags.value(PROFILE), profileVariable: profileVariable(flags), json: flags.value(JSON_OUTPUT) };
}

/** What `plantstore config set <key> <value>` was asked; the key and value as typed. */
export interface SetOptions {
  key: string;
  value: string;
  profile: string;
  quiet: boolean;
}

export function setOptions(flags: WriteFlags, key: string, value: string): SetOptions {
  return { key, value, profile: flags.value(PROFILE), quiet: flags.value(QUIET) };
}

/** What `plantstore config unset <key>` was asked; the key as typed. */
export interface UnsetOptions {
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  key: string;
  profile: string;
  quiet: boolean;
}

export function unsetOptions(flags: WriteFlags, key: string): UnsetOptions {
  return { key, profile: flags.value(PROFILE), profileVariable: profileVariable(flags), quiet: flags.value(QUIET) };
}

/** What `plantstore config list` was asked. */
export interface ListOptions {
  /** PLANTSTORE_PROFILE when it named the profile, for messages about the name. */
  profileVariable?: string | undefined;
  profile: string;
  /** Where the profile's name came from (--profile, PLANTSTORE_PROFILE); undefined for the default. */
  profileSource?: string | undefined;
  json: boolean;
  /** Each setting a run here would use and its source, read as the run reads it (config list says what outranks the profile). */
  inForce: (ctx: InForceContext) => InForce[];
}

export function listOptions(flags: ReadFlags): ListOptions {
  const profile = flags.value(PROFILE);
  return {
    profile,
    profileVariable: profileVariable(flags),
    profileSource: flags.sourced(PROFILE)?.source,
    json: flags.value(JSON_OUTPUT),
    inForce: (ctx) => settingsInForce(flags, profile, ctx),
  };
}

/** What `plantstore config path` was asked. */
export interface PathOptions {
  json: boolean;
}

export function pathOptions(flags: PathFlags): PathOptions {
  return { json: flags.value(JSON_OUTPUT) };
}
