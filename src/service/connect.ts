// What every call of the service needs before a request can leave: the target resolved (or
// the missing setting named, with how to supply it), the network options with the CA bundle
// read, and the first token (a token command run now, so that one that fails stops the run,
// exit 4, before anything is sent). The command then asks ctx.transport() for its client.

import { readCaBundle } from '../config/ca-bundle.js';
import type { ConfigFile } from '../config/file.js';
import { checkProfileExists, commandFor } from '../config/profiles.js';
import { isTokenCommand, type MissingSetting, resolveTarget, type Target } from '../config/resolve.js';
import type { TokenEvent, TokenLeases } from '../config/token-lease.js';
import { tokenLeases } from '../config/token-leases.js';
import type { Context } from '../context.js';
import { AuthError, ConfigError } from '../errors.js';
import type { NetworkOptions } from '../http/transport.js';
import { describeTokenEvent } from '../ui/token-words.js';
import type { NetworkSettings, ServiceSettings } from './settings.js';

/** Where requests go and how they travel, resolved: nothing sent yet, no token command run. */
export interface Service {
  target: Target;
  network: NetworkOptions;
}

/**
 * The target, then the network options (the CA bundle read): a missing base URL or token is
 * reported before a bad CA bundle, as delete always has.
 */
export async function resolveService(settings: ServiceSettings, ctx: Context): Promise<Service> {
  const target = found(await resolveTarget(settings.target, ctx.env, ctx.config, ctx.io.redact, ctx.signal), ctx.config);
  const network = await networkOptions(settings.network, ctx.signal);
  return { target, network };
}

/** The target, or what the user must supply, and how. */
export function found(target: Target | MissingSetting, config: () => ConfigFile): Target {
  if (!('missing' in target)) return target;
  // What is missing was to come from the profile: a typo in its name is the better thing to report.
  const { profile, profileSource } = target;
  checkProfileExists(config(), profile, profileSource);
  if (target.missing === 'base-url') {
    throw new ConfigError(
      `no base URL for profile '${profile}': pass --base-url, set PLANTSTORE_BASE_URL, or run ${commandFor(profile, 'config set base-url <url>')}`,
    );
  }
  throw new AuthError(`no token for profile '${profile}': run ${commandFor(profile, 'auth login')}, or set PLANTSTORE_TOKEN`);
}

/** Everything that shapes how requests travel: deadline, retries, trust. */
export async function networkOptions(settings: NetworkSettings, signal: AbortSignal): Promise<NetworkOptions> {
  const { caFile, ...network } = settings;
  if (caFile === undefined) return network;
  return { ...network, caPem: await readCaBundle(caFile.value, caFile.source, signal), caFile: caFile.value };
}

/**
 * The token for the run: a static one as it is, or a token command's leases, run now for the
 * first token, so that a command that fails stops the run (exit 4) before anything is sent.
 * With `verbose`, each token obtained and each renewal is a `* ` line on stderr.
 */
export async function firstToken(target: Target, network: NetworkOptions, verbose: boolean, ctx: Context): Promise<string | TokenLeases> {
  if (!isTokenCommand(target.token)) return target.token.value;
  const leases = tokenLeases(target.token, {
    onToken: ctx.io.redactLeased,
    timeoutMs: network.timeoutMs,
    signal: ctx.signal,
    env: ctx.env,
    onStderr: ctx.io.errText,
    // On a terminal it shows as it comes, so that a prompt works; elsewhere (a CI log) it is held and masked.
    holdStderr: !ctx.io.stderrIsTTY,
    ...(verbose ? { onEvent: (event: TokenEvent) => ctx.io.err(`* ${describeTokenEvent(event)}`) } : {}),
  });
  await leases.current();
  return leases;
}
