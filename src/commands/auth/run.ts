import { assertSafeForToken } from '../../config/base-url.js';
import { MAX_TOKEN_INPUT_BYTES } from '../../config/bounded-read.js';
import { checkProfileExists, commandFor, DEFAULT_PROFILE } from '../../config/profiles.js';
import { isTokenCommand, resolveToken, type Sourced, type TokenSource } from '../../config/resolve.js';
import { maskToken, normalizeToken } from '../../config/token.js';
import { tokenLeases } from '../../config/token-leases.js';
import type { Context } from '../../context.js';
import { ASK_ABOVE } from '../../engine/guard.js';
import { AuthError, Exit, type ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { shown } from '../../text/shown.js';
import { readAllStdin, readHiddenLine } from '../../ui/prompt.js';
import { done } from '../success-line.js';
import type { InForce, LoginOptions, LogoutOptions, StatusOptions, TokenOptions } from './flags.js';

/** Stores a token (and, with --base-url, the base URL) in the selected profile. */
export async function runLogin(opts: LoginOptions, ctx: Context): Promise<ExitCode> {
  const { profile, baseUrl, withToken } = opts;
  // Checked before asking for the token, so a typo costs no paste.
  if (baseUrl) assertSafeForToken(baseUrl, '--base-url');
  const token = tokenToStore(await readToken(withToken, profile, ctx), withToken ? 'standard input' : 'the prompt');
  ctx.io.redact(token);
  // A signal that came as the input ended still means "stop": nothing is stored.
  if (ctx.signal.aborted) throw new InterruptedError(NOT_STORED);
  const config = ctx.config();
  await config.updateProfile(profile, (current) => ({ ...current, token, ...(baseUrl ? { 'base-url': baseUrl } : {}) }));
  if (opts.json) ctx.io.outObject({ profile, stored: true, ...(baseUrl ? { baseUrl } : {}), path: config.path });
  done(ctx, opts.quiet, `Token stored for profile '${profile}' in ${config.path}`);
  // A warning, not a success line: it stays with --quiet.
  if (ctx.env['PLANTSTORE_TOKEN']) ctx.io.err(`note: PLANTSTORE_TOKEN is set and takes precedence over the stored token`);
  return Exit.ok;
}

const NOT_STORED = 'interrupted; nothing was stored';

/** The token to store, or why not: a login that fails says that nothing was stored. */
function tokenToStore(raw: string, source: string): string {
  try {
    return normalizeToken(raw, source);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; nothing was stored`);
  }
}

async function readToken(withToken: boolean, profile: string, ctx: Context): Promise<string> {
  if (withToken) {
    return readAllStdin(ctx.stdin, MAX_TOKEN_INPUT_BYTES, {
      signal: ctx.signal,
      message: 'interrupted while reading the token from standard input; nothing was stored',
    });
  }
  if (!ctx.io.stdinIsTTY) {
    throw new UsageError(`standard input is not a terminal: pipe the token with ${commandFor(profile, 'auth login --with-token')}`);
  }
  return readHiddenLine(ctx.stdin, ctx.io.errText, 'Paste your Plant Store token (input hidden): ', {
    signal: ctx.signal,
    message: 'login cancelled; nothing was stored',
  });
}

/** Removes only the token of the selected profile; other keys and profiles stay. */
export async function runLogout(opts: LogoutOptions, ctx: Context): Promise<ExitCode> {
  const { profile, quiet } = opts;
  const config = ctx.config();
  checkProfileExists(config, profile, opts.profileVariable);
  const { token, ...rest } = config.profile(profile);
  if (token === undefined) {
    if (!quiet) ctx.io.err(`No token was stored for profile '${profile}'; nothing to do`);
  } else {
    await config.updateProfile(profile, ({ token: _removed, ...kept }) => kept);
    // A profile that held only the token is gone with it (config files keep no empty profiles): said, as
    // --profile NAME now answers "unknown profile". The default always exists, so it is not worth a word.
    const gone = Object.keys(rest).length === 0 && profile !== DEFAULT_PROFILE;
    done(ctx, quiet, `Token removed from profile '${profile}'${gone ? `; the profile held nothing else, so it was removed too` : ''}`);
  }
  if (ctx.env['PLANTSTORE_TOKEN']) ctx.io.err('note: PLANTSTORE_TOKEN is still set in this environment');
  return Exit.ok;
}

/**
 * Says where the token and base URL come from. It cannot check the token: the service has no
 * read-only operation. A token command is run once, to show that it works (exit 4 if not).
 */
export async function runStatus(opts: StatusOptions, ctx: Context): Promise<ExitCode> {
  const { profile, baseUrl, missingError, profileSource } = opts;
  const token = await tokenOf(await resolveToken(ctx.env, ctx.config, profile, opts.tokenFile, ctx.signal), opts.timeoutMs, ctx);
  // A profile only the environment backs is fine; one that would have to supply something is checked.
  if (!token || !baseUrl) checkProfileExists(ctx.config(), profile, opts.profileVariable);
  if (opts.json) {
    ctx.io.outObject({
      profile,
      profileSource: profileSource ?? 'default',
      token: token ? { masked: maskToken(token.value), source: token.source } : null,
      baseUrl: baseUrl ? { value: baseUrl.value, source: baseUrl.source } : null,
      missingError: missingError ? { codes: missingError.value, source: missingError.source } : null,
      maxDeletes: opts.maxDeletes ?? null,
      shard: opts.shard ?? null,
      configPath: ctx.config().path,
    });
  } else {
    ctx.io.out(`Profile:  ${profile}${profileSource ? ` (from ${profileSource})` : ''}`);
    // Sources name files and paths the user or the environment supplied: shown, not raw.
    ctx.io.out(`Token:    ${token ? `${maskToken(token.value)} (from ${shown(token.source)})` : 'none'}`);
    ctx.io.out(`Base URL: ${baseUrl ? `${shown(baseUrl.value)} (from ${shown(baseUrl.source)})` : 'not set'}`);
    // What delete counts as "no such plant" besides a 404, when something sets it.
    if (missingError) ctx.io.out(`Missing:  error ${missingError.value.join(',')} (from ${shown(missingError.source)})`);
    // What a batch here is bounded by, and which part of a job it takes: a script's variables decide both.
    ctx.io.out(
      `Guard:    ${inForceWords(opts.maxDeletes, (n) => `--max-deletes ${n}`, `no --max-deletes; at a terminal, a batch of more than ${ASK_ABOVE} ids is asked about`)}`,
    );
    if (opts.shard !== undefined) ctx.io.out(`Shard:    ${inForceWords(opts.shard, (part) => part, '')}`);
    ctx.io.out(`Config:   ${shown(ctx.config().path)}`);
  }
  if (!token) {
    ctx.io.err(`No token for profile '${profile}': run ${commandFor(profile, 'auth login')}, or set PLANTSTORE_TOKEN`);
    return Exit.auth;
  }
  return Exit.ok;
}

/** `--max-deletes 500 (from PLANTSTORE_MAX_DELETES)`, `none` words when unset, or the error a batch would stop on. */
function inForceWords<T>(setting: InForce<T>, words: (value: T) => string, none: string): string {
  if (setting === undefined) return none;
  if ('problem' in setting) return `a batch here stops: ${shown(setting.problem)}`;
  return `${words(setting.value)} (from ${shown(setting.source)})`;
}

/** Prints the token itself (a token command's, once run), for piping into other tools. The one place it is ever shown. */
export async function runToken(opts: TokenOptions, ctx: Context): Promise<ExitCode> {
  const { profile } = opts;
  const token = await tokenOf(await resolveToken(ctx.env, ctx.config, profile, opts.tokenFile, ctx.signal), opts.timeoutMs, ctx);
  if (!token) checkProfileExists(ctx.config(), profile, opts.profileVariable);
  if (!token) throw new AuthError(`no token for profile '${profile}': run ${commandFor(profile, 'auth login')}, or set PLANTSTORE_TOKEN`);
  ctx.io.outUnredacted(token.value);
  return Exit.ok;
}

/** The token and where it came from; a token command is run for it (a failure is exit 4), and named as its source. */
async function tokenOf(token: TokenSource | undefined, timeoutMs: number, ctx: Context): Promise<Sourced<string> | undefined> {
  if (token === undefined) return undefined;
  if (!isTokenCommand(token)) {
    ctx.io.redact(token.value);
    return token;
  }
  const leases = tokenLeases(token, {
    onToken: ctx.io.redactLeased,
    timeoutMs,
    signal: ctx.signal,
    env: ctx.env,
    onStderr: ctx.io.errText,
    holdStderr: !ctx.io.stderrIsTTY,
  });
  const { token: value } = await leases.current();
  return { value, source: `token command '${token.command}' (from ${token.source})` };
}
