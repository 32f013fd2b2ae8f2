import { assertSafeForToken, normalizeBaseUrl } from '../../config/base-url.js';
import { PROFILE_KEYS, type ProfileKey } from '../../config/file.js';
import { formatMissingErrors, missingErrorsFrom } from '../../config/missing-errors.js';
import type { Context } from '../../context.js';
import { ConfigError, Exit, type ExitCode, UsageError } from '../../errors.js';
import { JSON_OUTPUT, PROFILE, QUIET } from '../../flags/global.js';
import { shown } from '../../text/shown.js';
import type { PathFlags, ReadFlags, WriteFlags } from './flags.js';

// The non-secret settings of a profile. The token has its own commands (auth).

export async function runPath(flags: PathFlags, ctx: Context): Promise<ExitCode> {
  const path = ctx.config().path;
  if (flags.value(JSON_OUTPUT)) ctx.io.outObject({ path });
  else ctx.io.out(shown(path));
  return Exit.ok;
}

export async function runList(flags: ReadFlags, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const profile = flags.value(PROFILE);
  const stored = config.profile(profile);
  const entries = PROFILE_KEYS.filter((key) => stored[key] !== undefined).map((key) => [key, stored[key]] as const);
  if (flags.value(JSON_OUTPUT)) ctx.io.outObject({ profile, ...Object.fromEntries(entries), token: stored.token ? 'stored' : null });
  else for (const [key, value] of entries) ctx.io.out(`${key}=${shown(value ?? '')}`);
  return Exit.ok;
}

export async function runGet(flags: ReadFlags, rawKey: string, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const profile = flags.value(PROFILE);
  const key = checkKey(rawKey);
  const value = config.profile(profile)[key];
  // Nothing on stdout, so `$(plantstore config get base-url)` is empty; exit 3 like any missing
  // setting, and with --json the one object every failure prints.
  if (value === undefined) throw new ConfigError(`${key} is not set for profile '${profile}'`);
  if (flags.value(JSON_OUTPUT)) ctx.io.outObject({ profile, key, value });
  else ctx.io.out(shown(value));
  return Exit.ok;
}

export async function runSet(flags: WriteFlags, rawKey: string, rawValue: string, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const profile = flags.value(PROFILE);
  const key = checkKey(rawKey);
  const value = key === 'base-url' ? checkedBaseUrl(rawValue) : formatMissingErrors(missingErrorsFrom(rawValue, 'the command line', true));
  await config.updateProfile(profile, (current) => ({ ...current, [key]: value }));
  done(ctx, flags, `Set ${key} for profile '${profile}' to ${value}`);
  return Exit.ok;
}

export async function runUnset(flags: WriteFlags, rawKey: string, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const profile = flags.value(PROFILE);
  const key = checkKey(rawKey);
  await config.updateProfile(profile, ({ [key]: _removed, ...rest }) => rest);
  done(ctx, flags, `Unset ${key} for profile '${profile}'`);
  return Exit.ok;
}

// The same rule as auth login --base-url and every request: a URL the token may not travel to is not stored.
function checkedBaseUrl(raw: string): string {
  const value = normalizeBaseUrl(raw, 'the command line');
  assertSafeForToken(value, 'the command line');
  return value;
}

/** A success line on stderr (✓ …): what --quiet silences. */
function done(ctx: Context, flags: WriteFlags, text: string): void {
  if (!flags.value(QUIET)) ctx.io.err(`${ctx.io.errStyle().green('✓')} ${text}`);
}

function checkKey(key: string): ProfileKey {
  const known = PROFILE_KEYS as readonly string[];
  if (known.includes(key)) return key as ProfileKey;
  const hint = key === 'token' ? '; the token is managed by plantstore auth login/logout' : '';
  throw new UsageError(`unknown config key '${key}': known keys are ${PROFILE_KEYS.join(', ')}${hint}`);
}
