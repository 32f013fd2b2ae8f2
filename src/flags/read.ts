import type { Command } from 'commander';
import type { ConfigFile } from '../config/file.js';
import { checkTrusted } from '../config/trust.js';
import type { Env } from '../platform/env.js';
import { type AnyFlag, FlagReader } from './flag.js';
import { BASE_URL, PROFILE, TOKEN_FILE } from './global.js';

/** Where values come from besides the command line. */
export interface ReaderSources {
  env: Env;
  config: () => ConfigFile;
}

/**
 * The flags a command declared, as parsed for this run: its own and the program's,
 * then the environment, then the selected profile's settings.
 */
export function readFlags<F extends AnyFlag>(command: Command, ctx: ReaderSources): FlagReader<F> {
  return flagReader<F>(command.optsWithGlobals(), ctx);
}

/** The same, from options already parsed. */
export function flagReader<F extends AnyFlag>(parsed: Readonly<Record<string, unknown>>, ctx: ReaderSources): FlagReader<F> {
  const reader: FlagReader<F | typeof PROFILE> = new FlagReader({
    parsed,
    env: ctx.env,
    profile() {
      const name = reader.value(PROFILE);
      if (reader.sourced(PROFILE) === undefined && configuredOutsideFile(parsed, ctx.env)) {
        return { settings: {}, source: 'no profile: token and base URL come from the environment' };
      }
      const config = ctx.config();
      return {
        settings: config.profile(name),
        source: `profile '${name}' in ${config.path}`,
        check: (key) => checkTrusted(config, name, key),
      };
    },
  });
  return reader;
}

/**
 * A run with its token and base URL from the command line or the environment, and no
 * profile named, never opens the config file: a CI job with PLANTSTORE_TOKEN and
 * PLANTSTORE_BASE_URL must not be stopped or steered by whatever stands at that path.
 * Its other profile settings (missing-error) then come from flags and variables only.
 */
function configuredOutsideFile(parsed: Readonly<Record<string, unknown>>, env: Env): boolean {
  const token =
    Boolean(env['PLANTSTORE_TOKEN']) ||
    typeof parsed[TOKEN_FILE.key] === 'string' ||
    Boolean(env['PLANTSTORE_TOKEN_FILE']) ||
    Boolean(env['PLANTSTORE_TOKEN_COMMAND']?.trim());
  const baseUrl = typeof parsed[BASE_URL.key] === 'string' || Boolean(env['PLANTSTORE_BASE_URL']);
  return token && baseUrl;
}
