import { ConfigError } from '../errors.js';
import { nearest } from '../text/suggest.js';
import { type ConfigFile, isProfileName } from './file.js';

/** The profile of a run that names none: it exists without being written, so a first `auth login` needs no --profile. */
export const DEFAULT_PROFILE = 'default';

/**
 * A profile is a name in the config file, or `default`. Any other name is unknown where
 * something must be read from it. A name only the environment backs (`--profile ci` with
 * PLANTSTORE_TOKEN and PLANTSTORE_BASE_URL set) is a label: nothing is read from it, so a
 * run with it works; `auth login` and `config set` create a profile by writing it.
 */
export function profileExists(config: ConfigFile, name: string): boolean {
  return name === DEFAULT_PROFILE || config.profileNames().includes(name);
}

/** The names `--profile` accepts, as listed: a name planted in the file that is not one is left out. */
export function profileNames(config: ConfigFile): string[] {
  return config.profileNames().filter(isProfileName);
}

/**
 * A command to copy and paste for the profile in use: `plantstore --profile staging auth login`.
 * The flag is left out for the default profile, where it changes nothing.
 */
export function commandFor(profile: string, command: string): string {
  return profile === DEFAULT_PROFILE ? `plantstore ${command}` : `plantstore --profile ${profile} ${command}`;
}

/**
 * "unknown profile 'stagng' (did you mean staging?): …", exit 3, with the names there are and
 * how to make one. `variable` is the one that named it (PLANTSTORE_PROFILE, as
 * service/settings.ts's profileVariable gives it; undefined when typed or the default), so a
 * name set long ago in a shell is found.
 */
export function unknownProfile(config: ConfigFile, name: string, variable?: string): ConfigError {
  const names = profileNames(config);
  const near = nearest(name, [DEFAULT_PROFILE, ...names]);
  const notes = [...(variable === undefined ? [] : [`from ${variable}`]), ...(near === undefined ? [] : [`did you mean ${near}?`])];
  const there = names.length === 0 ? `${config.path} holds no profiles` : `the profiles in ${config.path} are ${names.join(', ')}`;
  const orChange = variable === undefined ? '' : `, or set ${variable} to a profile there is`;
  return new ConfigError(
    `unknown profile '${name}'${notes.length === 0 ? '' : ` (${notes.join('; ')})`}: ${there}; create it with plantstore --profile ${name} auth login${orChange}`,
  );
}

/** Throws unknownProfile unless the profile exists. */
export function checkProfileExists(config: ConfigFile, name: string, variable?: string): void {
  if (!profileExists(config, name)) throw unknownProfile(config, name, variable);
}
