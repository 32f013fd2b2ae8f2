import { assertSafeForToken } from '../../config/base-url.js';
import { MAX_TOKEN_INPUT_BYTES } from '../../config/bounded-read.js';
import { resolveToken } from '../../config/resolve.js';
import { maskToken, normalizeToken } from '../../config/token.js';
import type { Context } from '../../context.js';
import { AuthError, Exit, type ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { BASE_URL, JSON_OUTPUT, PROFILE, QUIET, TOKEN_FILE } from '../../flags/global.js';
import { shown } from '../../text/shown.js';
import { readAllStdin, readHiddenLine } from '../../ui/prompt.js';
import { type LoginFlags, type LogoutFlags, type StatusFlags, type TokenFlags, WITH_TOKEN } from './flags.js';

/** Stores a token (and, with --base-url, the base URL) in the selected profile. */
export async function runLogin(flags: LoginFlags, ctx: Context): Promise<ExitCode> {
  const profile = flags.value(PROFILE);
  // Only a --base-url typed here is stored: one from the environment is already where it is read.
  // It is checked before asking for the token, so a typo costs no paste.
  const baseUrl = flags.given(BASE_URL)?.value;
  if (baseUrl) assertSafeForToken(baseUrl, '--base-url');
  const withToken = flags.value(WITH_TOKEN);
  const token = normalizeToken(await readToken(withToken, ctx), withToken ? 'standard input' : 'the prompt');
  ctx.io.redact(token);
  // A signal that came as the input ended still means "stop": nothing is stored.
  if (ctx.signal.aborted) throw new InterruptedError(NOT_STORED);
  const config = ctx.config();
  await config.updateProfile(profile, (current) => ({ ...current, token, ...(baseUrl ? { 'base-url': baseUrl } : {}) }));
  if (flags.value(JSON_OUTPUT)) ctx.io.outObject({ profile, stored: true, ...(baseUrl ? { baseUrl } : {}), path: config.path });
  done(ctx, flags.value(QUIET), `Token stored for profile '${profile}' in ${config.path}`);
  // A warning, not a success line: it stays with --quiet.
  if (ctx.env['PLANTSTORE_TOKEN']) ctx.io.err(`note: PLANTSTORE_TOKEN is set and takes precedence over the stored token`);
  return Exit.ok;
}

const NOT_STORED = 'interrupted; nothing was stored';

async function readToken(withToken: boolean, ctx: Context): Promise<string> {
  if (withToken) {
    return readAllStdin(ctx.stdin, MAX_TOKEN_INPUT_BYTES, {
      signal: ctx.signal,
      message: 'interrupted while reading the token from standard input; nothing was stored',
    });
  }
  if (!ctx.io.stdinIsTTY) {
    throw new UsageError('standard input is not a terminal: pipe the token with plantstore auth login --with-token');
  }
  return readHiddenLine(ctx.stdin, ctx.io.errText, 'Paste your Plant Store token (input hidden): ', {
    signal: ctx.signal,
    message: 'login cancelled; nothing was stored',
  });
}

/** A success line on stderr (✓ …): what --quiet silences. */
function done(ctx: Context, quiet: boolean, text: string): void {
  if (!quiet) ctx.io.err(`${ctx.io.errStyle().green('✓')} ${text}`);
}

/** Removes only the token of the selected profile; other keys and profiles stay. */
export async function runLogout(flags: LogoutFlags, ctx: Context): Promise<ExitCode> {
  const profile = flags.value(PROFILE);
  const quiet = flags.value(QUIET);
  const config = ctx.config();
  if (config.profile(profile).token === undefined) {
    if (!quiet) ctx.io.err(`No token was stored for profile '${profile}'; nothing to do`);
  } else {
    await config.updateProfile(profile, ({ token: _removed, ...rest }) => rest);
    done(ctx, quiet, `Token removed from profile '${profile}'`);
  }
  if (ctx.env['PLANTSTORE_TOKEN']) ctx.io.err('note: PLANTSTORE_TOKEN is still set in this environment');
  return Exit.ok;
}

/** Says where the token and base URL come from. It cannot check the token: the service has no read-only operation. */
export async function runStatus(flags: StatusFlags, ctx: Context): Promise<ExitCode> {
  const profile = flags.value(PROFILE);
  const token = await resolveToken(ctx.env, ctx.config, profile, flags.sourced(TOKEN_FILE), ctx.signal);
  if (token) ctx.io.redact(token.value);
  const baseUrl = flags.sourced(BASE_URL);
  if (flags.value(JSON_OUTPUT)) {
    ctx.io.outObject({
      profile,
      token: token ? { masked: maskToken(token.value), source: token.source } : null,
      baseUrl: baseUrl ? { value: baseUrl.value, source: baseUrl.source } : null,
      configPath: ctx.config().path,
    });
  } else {
    ctx.io.out(`Profile:  ${profile}`);
    // Sources name files and paths the user or the environment supplied: shown, not raw.
    ctx.io.out(`Token:    ${token ? `${maskToken(token.value)} (from ${shown(token.source)})` : 'none'}`);
    ctx.io.out(`Base URL: ${baseUrl ? `${shown(baseUrl.value)} (from ${shown(baseUrl.source)})` : 'not set'}`);
    ctx.io.out(`Config:   ${shown(ctx.config().path)}`);
  }
  if (!token) {
    ctx.io.err(`No token for profile '${profile}': run plantstore auth login, or set PLANTSTORE_TOKEN`);
    return Exit.auth;
  }
  return Exit.ok;
}

/** Prints the token itself, for piping into other tools. The one place it is ever shown. */
export async function runToken(flags: TokenFlags, ctx: Context): Promise<ExitCode> {
  const profile = flags.value(PROFILE);
  const token = await resolveToken(ctx.env, ctx.config, profile, flags.sourced(TOKEN_FILE), ctx.signal);
  if (!token) throw new AuthError(`no token for profile '${profile}': run plantstore auth login, or set PLANTSTORE_TOKEN`);
  ctx.io.outUnredacted(token.value);
  return Exit.ok;
}
