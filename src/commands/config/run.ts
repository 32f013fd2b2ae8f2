import { assertSafeForToken, maskedBaseUrl, normalizeBaseUrl } from '../../config/base-url.js';
import { CommandLineProblem, splitWords } from '../../config/command-words.js';
import { PROFILE_KEYS, type ProfileKey } from '../../config/file.js';
import { formatMissingErrors, missingErrorsFrom } from '../../config/missing-errors.js';
import { checkProfileExists, commandFor } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { maxDeletes } from '../../engine/guard.js';
import { ConfigError, Exit, type ExitCode, UsageError } from '../../errors.js';
import { firstControl, shown, shownOnOneLine } from '../../text/shown.js';
import { done } from '../success-line.js';
import type { GetOptions, ListOptions, PathOptions, SetOptions, UnsetOptions } from './flags.js';
import { hideStoredToken } from './stored-token.js';

// The non-secret settings of a profile. The token has its own commands (auth).

export async function runPath(opts: PathOptions, ctx: Context): Promise<ExitCode> {
  const path = ctx.config().path;
  if (opts.json) ctx.io.outObject({ path });
  else ctx.io.out(shown(path));
  return Exit.ok;
}

export async function runList(opts: ListOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const { profile } = opts;
  checkProfileExists(config, profile, opts.profileVariable);
  const stored = config.profile(profile);
  hideStoredToken(stored.token, ctx);
  const entries = PROFILE_KEYS.filter((key) => stored[key] !== undefined).map(
    (key) => [key, shownSetting(key, stored[key] ?? '')] as const,
  );
  const inForce = opts.inForce(ctx);
  if (opts.json) {
    const sources = Object.fromEntries(inForce.map(({ key, ...found }) => [key, 'problem' in found ? { problem: found.problem } : found]));
    ctx.io.outObject({ profile, ...Object.fromEntries(entries), token: stored.token ? 'stored' : null, inForce: sources });
    return Exit.ok;
  }
  // Which profile this is, on stderr: stdout stays `key=value` lines for scripts, and --json names it already.
  const from = opts.profileSource === undefined ? '' : ` (from ${opts.profileSource})`;
  ctx.io.err(`profile '${profile}'${from}${entries.length === 0 ? ': no settings stored' : ':'}`);
  for (const [key, value] of entries) ctx.io.out(`${key}=${shownOnOneLine(value ?? '')}`);
  // stdout lists the profile; what outranks it for a run here is said on stderr, one line each.
  const untrusted: string[] = [];
  for (const setting of inForce) {
    if ('problem' in setting) {
      if (setting.untrustedFile) untrusted.push(setting.key);
      else ctx.io.err(`note: ${setting.key}: a run here stops: ${shown(setting.problem)}`);
      continue;
    }
    const { key, source, value } = setting;
    if (source.startsWith('profile ')) continue;
    const what = value === undefined ? key : `${key} ${shownOnOneLine(value)}`;
    const profileHasOne = key === 'token' || key === 'token-command' ? (stored.token ?? stored['token-command']) : stored[key];
    ctx.io.err(`note: ${what} comes from ${shown(source)} here${profileHasOne === undefined ? '' : ', which outranks the profile'}`);
  }
  // The file's warning above has said why and how to fix it: once, not once per setting.
  if (untrusted.length > 0)
    ctx.io.err(
      `note: ${untrusted.join(', ')}: a run here stops on ${untrusted.length === 1 ? 'it' : 'each'}, as the file is not trusted (the warning above)`,
    );
  return Exit.ok;
}

export async function runGet(opts: GetOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const { profile } = opts;
  const key = checkKey(opts.key, profile);
  checkProfileExists(config, profile, opts.profileVariable);
  const stored = config.profile(profile);
  hideStoredToken(stored.token, ctx);
  const value = stored[key] === undefined ? undefined : shownSetting(key, stored[key]);
  // Nothing on stdout, so `$(plantstore config get base-url)` is empty; exit 3 like any missing
  // setting, and with --json the one object every failure prints.
  if (value === undefined) {
    throw new ConfigError(`${key} is not set for profile '${profile}'; set it with ${commandFor(profile, `config set ${key} <value>`)}`);
  }
  if (opts.json) ctx.io.outObject({ profile, key, value });
  else ctx.io.out(shownOnOneLine(value));
  return Exit.ok;
}

/**
 * A setting as `config list` and `config get` show it: a base URL with its password, its query
 * values and any token in it masked (a URL written by hand, a token pasted into it), as every
 * message shows one; the others as stored.
 */
function shownSetting(key: ProfileKey, value: string): string {
  if (key !== 'base-url' || !URL.canParse(value)) return value;
  // Only a URL with a part to mask is rewritten: any other is shown as stored, its controls escaped by the caller.
  const url = new URL(value);
  const hidden = url.username !== '' || url.password !== '' || url.href.includes('?') || url.href.includes('#');
  return hidden ? (maskedBaseUrl(value) ?? value) : value;
}

export async function runSet(opts: SetOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const { profile } = opts;
  const key = checkKey(opts.key, profile);
  const value = checkedValue(key, opts.value);
  await config.updateProfile(profile, (current) => ({ ...current, [key]: value }));
  hideStoredToken(config.profile(profile).token, ctx);
  done(ctx, opts.quiet, `Set ${key} for profile '${profile}' to ${shown(shownSetting(key, value))}`);
  return Exit.ok;
}

/** The value to store, in its canonical spelling, or the usage error that says what is wrong with it. */
function checkedValue(key: ProfileKey, raw: string): string {
  switch (key) {
    case 'base-url':
      return checkedBaseUrl(raw);
    case 'missing-error':
      return formatMissingErrors(missingErrorsFrom(raw, 'the command line', true));
    case 'token-command':
      return checkedTokenCommand(raw);
    case 'max-deletes':
      return String(maxDeletes(raw, { source: 'max-deletes', onCommandLine: true }));
  }
}

// Split now, as it will be split when it runs, so a quote left open is a typo found here, not at the next delete.
function checkedTokenCommand(raw: string): string {
  // Echoed here, listed by config list, named by every failure: plain text on one line, or refused (issue 27).
  const control = firstControl(raw.trim());
  if (control !== undefined) {
    throw new UsageError(
      `invalid token-command: it holds the control character ${control}, which could rewrite the terminal wherever the command is shown; type it on one line, without control or bidi characters`,
    );
  }
  try {
    splitWords(raw);
  } catch (error) {
    if (!(error instanceof CommandLineProblem)) throw error;
    throw new UsageError(`invalid token-command '${shown(raw)}': ${error.message}`);
  }
  return raw.trim();
}

export async function runUnset(opts: UnsetOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const { profile } = opts;
  const key = checkKey(opts.key, profile);
  checkProfileExists(config, profile, opts.profileVariable);
  await config.updateProfile(profile, ({ [key]: _removed, ...rest }) => rest);
  done(ctx, opts.quiet, `Unset ${key} for profile '${profile}'`);
  return Exit.ok;
}

// The same rule as auth login --base-url and every request: a URL the token may not travel to is not stored.
function checkedBaseUrl(raw: string): string {
  const value = normalizeBaseUrl(raw, 'the command line');
  assertSafeForToken(value, 'the command line');
  return value;
}

function checkKey(key: string, profile: string): ProfileKey {
  const known = PROFILE_KEYS as readonly string[];
  if (known.includes(key)) return key as ProfileKey;
  const hint = key === 'token' ? `; the token is managed by ${commandFor(profile, 'auth login/logout')}` : '';
  throw new UsageError(`unknown config key '${key}': known keys are ${PROFILE_KEYS.join(', ')}${hint}`);
}
