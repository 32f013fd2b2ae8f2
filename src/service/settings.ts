// What every command that calls the service reads from its flags: where requests go (the
// profile, the base URL, the token file) and how they travel (deadline, retries, trust). A
// command lists SERVICE_GLOBALS among the flags it reads and calls serviceSettings() at the
// point of its own order where these are read.

import type { TargetSettings } from '../config/resolve.js';
import type { FlagReader, Sourced } from '../flags/flag.js';
import { BASE_URL, CACERT, MAX_RETRY_WAIT, PROFILE, RETRIES, TIMEOUT, TOKEN_FILE } from '../flags/global.js';

/** The global flags a call of the service reads. */
export const SERVICE_GLOBALS = [PROFILE, BASE_URL, TOKEN_FILE, TIMEOUT, RETRIES, MAX_RETRY_WAIT, CACERT] as const;

export type ServiceFlags = FlagReader<(typeof SERVICE_GLOBALS)[number]>;

/** How requests travel; the CA bundle is read when a request is about to be sent. */
export interface NetworkSettings {
  timeoutMs: number;
  retries: number;
  maxRetryWaitMs: number;
  caFile: Sourced<string> | undefined;
}

/** Where requests go and how they travel, as the flags, variables and profile say. */
export interface ServiceSettings {
  target: TargetSettings;
  network: NetworkSettings;
}

/**
 * Where the profile's name came from when a variable set it (PLANTSTORE_PROFILE), for messages
 * about that name: one set long ago in a shell is not what the user thinks of. Undefined when
 * it was typed (--profile) or is the default.
 */
export function profileVariable(flags: FlagReader<typeof PROFILE>): string | undefined {
  const source = flags.sourced(PROFILE)?.source;
  return source === undefined || source.startsWith('-') ? undefined : source;
}

/** Reads the target's flags, then the network's, in that order: a bad value is reported by the first read that meets it. */
export function serviceSettings(flags: ServiceFlags): ServiceSettings {
  return {
    target: {
      profile: flags.value(PROFILE),
      profileSource: profileVariable(flags),
      baseUrl: flags.sourced(BASE_URL),
      tokenFile: flags.sourced(TOKEN_FILE),
    },
    network: {
      timeoutMs: flags.value(TIMEOUT),
      retries: flags.value(RETRIES),
      maxRetryWaitMs: flags.value(MAX_RETRY_WAIT),
      caFile: flags.sourced(CACERT),
    },
  };
}
