// Where each setting this run would use comes from: `config list` shows the profile's stored
// settings, and says which of them a flag or a variable outranks. It asks the reader every
// command reads its flags with (flags/read.ts) and the token's own order (config/resolve.ts),
// so it cannot say other than what a run here would do: the same sources, the same blank
// variables, the same values, or the same error a run would stop on. Nothing here reads a token
// file or runs a token command: it names their sources only.

import { formatMissingErrors } from '../../config/missing-errors.js';
import { isTokenCommand, isTokenFile, tokenOrigin } from '../../config/resolve.js';
import { UntrustedFileError } from '../../config/trust.js';
import type { Context } from '../../context.js';
import { MAX_DELETES } from '../../engine/batch-flags.js';
import { CliError } from '../../errors.js';
import type { FlagReader, Sourced } from '../../flags/flag.js';
import { BASE_URL, type PROFILE, TOKEN_FILE } from '../../flags/global.js';
import { MISSING_ERROR } from '../plants/shared/missing.js';

/** What config list reads to say what is in force: the flags every run reads these settings through. */
export type InForceFlag = typeof PROFILE | typeof BASE_URL | typeof TOKEN_FILE | typeof MISSING_ERROR | typeof MAX_DELETES;
type InForceFlags = FlagReader<InForceFlag>;

export type InForceKey = 'base-url' | 'missing-error' | 'max-deletes' | 'token-command' | 'token';

/** A setting in force and its source (`value` left out for the token), or the error a run here would stop on. */
export type InForce = { key: InForceKey; source: string; value?: string } | { key: InForceKey; problem: string; untrustedFile?: true };

/** Each setting in force, in the order `config list` prints them, with where it comes from. */
export function settingsInForce(flags: InForceFlags, profile: string, ctx: InForceContext): InForce[] {
  // The token first, as a run learns it first: no message below (a base URL with it pasted in) can show it.
  const token = read('token', () => {
    const origin = tokenOrigin(ctx.env, ctx.config, profile, flags.sourced(TOKEN_FILE));
    if (origin === undefined) return undefined;
    if (isTokenFile(origin)) return { source: `token file ${origin.file.value} (from ${origin.file.source})` };
    if (isTokenCommand(origin)) return { key: 'token-command', value: origin.command, source: origin.source };
    ctx.io.redact(origin.value);
    return { source: origin.source };
  });
  const settings = [
    read('base-url', () => shown(flags.sourced(BASE_URL), String)),
    read('missing-error', () => shown(flags.sourced(MISSING_ERROR), formatMissingErrors)),
    read('max-deletes', () => shown(flags.sourced(MAX_DELETES), String)),
    token,
  ];
  return settings.filter((setting) => setting !== undefined);
}

/** What settingsInForce reads besides the flags, and where it registers a token it meets so that no line shows it. */
export type InForceContext = Pick<Context, 'env' | 'config'> & { io: Pick<Context['io'], 'redact'> };

type Found = { key?: InForceKey; value?: string; source: string } | undefined;

/** The setting from `find`, or the one-line error a run meeting it would stop on (a bad variable, a distrusted file). */
function read(key: InForceKey, find: () => Found): InForce | undefined {
  try {
    const found = find();
    return found === undefined ? undefined : { key, ...found };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { key, problem: error.message, ...(error instanceof UntrustedFileError ? { untrustedFile: true as const } : {}) };
  }
}

/** The value as the run would use it, written as it would be typed. */
function shown<T>(sourced: Sourced<T> | undefined, write: (value: T) => string): Found {
  return sourced === undefined ? undefined : { value: write(sourced.value), source: sourced.source };
}
