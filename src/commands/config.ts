import { assertSafeForToken, normalizeBaseUrl } from '../config/base-url.js';
import { PROFILE_KEYS, type ProfileKey } from '../config/file.js';
import type { GlobalOptions } from '../config/global-options.js';
import { formatMissingErrors, missingErrorsFrom } from '../config/missing-errors.js';
import { resolveProfile } from '../config/resolve.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode, UsageError } from '../errors.js';

export interface ConfigOptions {
  action: 'get' | 'set' | 'unset' | 'list' | 'path';
  key?: string;
  value?: string;
  global: GlobalOptions;
}

/** Reads and writes the non-secret settings of a profile. The token has its own commands (auth). */
export async function runConfig(opts: ConfigOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  if (opts.action === 'path') {
    ctx.io.out(config.path);
    return Exit.ok;
  }
  const profile = resolveProfile(opts.global, ctx.env);
  if (opts.action === 'list') {
    const stored = config.profile(profile);
    const entries = PROFILE_KEYS.filter((key) => stored[key] !== undefined).map((key) => [key, stored[key]] as const);
    if (opts.global.json) ctx.io.outObject({ profile, ...Object.fromEntries(entries), token: stored.token ? 'stored' : null });
    else for (const [key, value] of entries) ctx.io.out(`${key}=${value}`);
    return Exit.ok;
  }
  const key = checkKey(opts.key);
  switch (opts.action) {
    case 'get': {
      const value = config.profile(profile)[key];
      // Nothing on stdout, so `$(plantstore config get base-url)` is empty; exit 3 like any missing setting.
      if (value === undefined) {
        ctx.io.err(`${key} is not set for profile '${profile}'`);
        return Exit.config;
      }
      if (opts.global.json) ctx.io.outObject({ profile, key, value });
      else ctx.io.out(value);
      return Exit.ok;
    }
    case 'set': {
      if (opts.value === undefined) throw new UsageError(`config set needs a value: plantstore config set ${key} <value>`);
      const value =
        key === 'base-url' ? checkedBaseUrl(opts.value) : formatMissingErrors(missingErrorsFrom(opts.value, 'the command line', true));
      await config.updateProfile(profile, (current) => ({ ...current, [key]: value }));
      done(ctx, opts.global, `Set ${key} for profile '${profile}' to ${value}`);
      return Exit.ok;
    }
    case 'unset': {
      await config.updateProfile(profile, ({ [key]: _removed, ...rest }) => rest);
      done(ctx, opts.global, `Unset ${key} for profile '${profile}'`);
      return Exit.ok;
    }
  }
}

// The same rule as auth login --base-url and every request: a URL the token may not travel to is not stored.
function checkedBaseUrl(raw: string): string {
  const value = normalizeBaseUrl(raw, 'the command line');
  assertSafeForToken(value, 'the command line');
  return value;
}

/** A success line on stderr (✓ …): what --quiet silences. */
function done(ctx: Context, global: GlobalOptions, text: string): void {
  if (!global.quiet) ctx.io.err(`${ctx.io.errStyle().green('✓')} ${text}`);
}

function checkKey(key: string | undefined): ProfileKey {
  const known = PROFILE_KEYS as readonly string[];
  if (key !== undefined && known.includes(key)) return key as ProfileKey;
  const hint = key === 'token' ? '; the token is managed by plantstore auth login/logout' : '';
  throw new UsageError(`unknown config key '${key ?? ''}': known keys are ${PROFILE_KEYS.join(', ')}${hint}`);
}
