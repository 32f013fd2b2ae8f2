import type { Command } from 'commander';
import type { ConfigFile } from '../config/file.js';
import { checkTrusted } from '../config/trust.js';
import { ConfigError } from '../errors.js';
import type { Env } from '../platform/env.js';
import { shown } from '../text/shown.js';
import { type AnyFlag, FlagReader, type ProfileSettings } from './flag.js';
import { BASE_URL, PROFILE, TOKEN_FILE } from './global.js';

/** Where values come from besides the command line. */
export interface ReaderSources {
  env: Env;
  config: () => ConfigFile;
  /** Where a config file skipped (profileSettings) is said; without it, the skip is silent. */
  io?: { err(line: string): void };
}

/**
 * The flags a command declared, as parsed for this run: its own and the program's,
 * then the environment, then the selected profile's settings.
 */
export function readFlags<F extends AnyFlag>(command: Command, ctx: ReaderSources): FlagReader<F> {
  return flagReader<F>(command.optsWithGlobals(), ctx);
}

/**
 * The same, from options already parsed. Every key follows one order, as gh, kubectl and the
 * AWS CLI do: flag, then variable, then the profile (named, or the default), then the
 * default. The file is read only when a key with a profile key has neither flag nor variable.
 */
export function flagReader<F extends AnyFlag>(parsed: Readonly<Record<string, unknown>>, ctx: ReaderSources): FlagReader<F> {
  let profile: ProfileSettings | undefined;
  const reader: FlagReader<F | typeof PROFILE> = new FlagReader({
    parsed,
    env: ctx.env,
    profile: () => (profile ??= profileSettings(reader.value(PROFILE), parsed, ctx)),
    emptyVariable: (flag, variable, fallback) => warnEmptyVariable(ctx, flag, variable, fallback),
  });
  return reader;
}

/** The variables said to be empty in a run (keyed by its IO): each is said once, however many readers read it. */
const saidEmpty = new WeakMap<object, Set<string>>();

/**
 * `export PLANTSTORE_BASE_URL=$(head -1 url.txt)` with the file still empty reads as unset, as
 * every variable does; but a run that then takes the profile's base URL (or the default profile)
 * talks to another service than the script meant, so it is said. Only for the settings that
 * choose where requests go and what they may do: the profile, and the settings a profile holds.
 */
function warnEmptyVariable(ctx: ReaderSources, flag: AnyFlag, variable: string, fallback: string | undefined): void {
  if (ctx.io === undefined || (flag !== PROFILE && flag.spec.profileKey === undefined)) return;
  const said = saidEmpty.get(ctx.io) ?? new Set<string>();
  saidEmpty.set(ctx.io, said);
  if (said.has(variable)) return;
  said.add(variable);
  const instead =
    fallback !== undefined
      ? `; the ${flag.long.replace(/^--/, '')} comes from ${fallback}`
      : flag === PROFILE
        ? "; the profile is 'default'"
        : '';
  ctx.io.err(shown(`warning: ${variable} is set but empty, so it is not used${instead}`));
}

function profileSettings(name: string, parsed: Readonly<Record<string, unknown>>, ctx: ReaderSources): ProfileSettings {
  const config = ctx.config();
  const source = `profile '${name}' in ${config.path}`;
  if (!configuredOutsideFile(parsed, ctx.env)) {
    return { settings: config.profile(name), source, check: (key) => checkTrusted(config, name, key) };
  }
  try {
    const settings = config.profile(name);
    // Others could have written it: it supplies nothing, and file.ts has already said so in one line.
    if (Object.keys(settings).length > 0 && config.distrust() !== undefined) return { settings: {}, source };
    return { settings, source };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    ctx.io?.err(shown(`warning: config file skipped, its settings not used: ${error.message}`));
    return { settings: {}, source };
  }
}

/**
 * A run with its token and base URL from the command line or the environment needs nothing
 * from the config file: a CI job with PLANTSTORE_TOKEN and PLANTSTORE_BASE_URL must not be
 * stopped by whatever stands at that path. It still takes the profile's other settings
 * (missing-error) from a file it can use; one it cannot (absent, unreadable, not ours, not
 * JSON, writable by others) is skipped, said in at most one line on stderr.
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
