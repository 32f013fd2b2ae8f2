import { ConfigError, UsageError } from '../errors.js';
import type { NetworkOptions } from '../http/client.js';
import type { Env } from '../ui/io.js';
import type { OutputMode } from '../ui/report.js';
import { MAX_CA_BUNDLE_BYTES, readConfiguredFile } from './bounded-read.js';
import type { GlobalFlags } from './resolve.js';

/** Options every command accepts, as commander hands them over. */
export interface GlobalOptions extends GlobalFlags, OutputMode {
  timeout?: string;
  retries?: string;
  maxRetryWait?: string;
  cacert?: string;
  verbose?: boolean;
}

type Problem = typeof UsageError | typeof ConfigError;

/** A flag, else its environment variable, else the default. Bad flags are usage errors; bad env values, configuration errors. */
function pick(
  flag: string | undefined,
  flagName: string,
  env: Env,
  envName: string,
): { raw: string; source: string; Problem: Problem } | undefined {
  if (flag !== undefined) return { raw: flag, source: flagName, Problem: UsageError };
  const fromEnv = env[envName];
  if (fromEnv) return { raw: fromEnv, source: envName, Problem: ConfigError };
  return undefined;
}

function seconds(value: { raw: string; source: string; Problem: Problem }, allowZero: boolean): number {
  const parsed = /^\d+(\.\d+)?$/.test(value.raw.trim()) ? Number(value.raw) : Number.NaN;
  if (!(parsed >= 0) || (!allowZero && parsed === 0) || parsed > 86_400) {
    throw new value.Problem(
      `invalid ${value.source} '${value.raw}': give a number of seconds${allowZero ? '' : ' greater than 0'}, such as 30 or 2.5`,
    );
  }
  return Math.round(parsed * 1000);
}

/**
 * The shortest --timeout. Below it no attempt could even connect, and a timeout
 * reported in whole milliseconds or tenths of a second would read "within 0s".
 */
export const MIN_TIMEOUT_SECONDS = 0.01;

/** --timeout, else PLANTSTORE_TIMEOUT, else 30 s; in milliseconds. */
export function resolveTimeoutMs(options: GlobalOptions, env: Env): number {
  const value = pick(options.timeout, '--timeout', env, 'PLANTSTORE_TIMEOUT');
  if (!value) return 30_000;
  // Zero passes this check on purpose: the minimum below refuses it, and says what the minimum is.
  const ms = seconds(value, true);
  if (Number(value.raw) < MIN_TIMEOUT_SECONDS) {
    throw new value.Problem(
      `invalid ${value.source} '${value.raw}': the shortest timeout is ${MIN_TIMEOUT_SECONDS} seconds (${MIN_TIMEOUT_SECONDS * 1000} ms); give a number of seconds such as 30 or 2.5`,
    );
  }
  return ms;
}

/** Everything that shapes how requests travel: deadline, retries, trust. */
export function resolveNetwork(options: GlobalOptions, env: Env): NetworkOptions {
  const retries = pick(options.retries, '--retries', env, 'PLANTSTORE_RETRIES');
  const maxWait = pick(options.maxRetryWait, '--max-retry-wait', env, 'PLANTSTORE_MAX_RETRY_WAIT');
  const caFile = pick(options.cacert, '--cacert', env, 'PLANTSTORE_CA_CERT');
  return {
    timeoutMs: resolveTimeoutMs(options, env),
    retries: retries ? count(retries, 10) : 2,
    maxRetryWaitMs: maxWait ? seconds(maxWait, true) : 30_000,
    ...(caFile ? { caPem: readPem(caFile.raw, caFile.source) } : {}),
  };
}

export function isVerbose(options: GlobalOptions, env: Env): boolean {
  return options.verbose === true || env['PLANTSTORE_DEBUG'] === '1';
}

function count(value: { raw: string; source: string; Problem: Problem }, max: number): number {
  const parsed = /^\d+$/.test(value.raw.trim()) ? Number(value.raw) : Number.NaN;
  if (!(parsed >= 0 && parsed <= max))
    throw new value.Problem(`invalid ${value.source} '${value.raw}': give a whole number from 0 to ${max}`);
  return parsed;
}

function readPem(file: string, source: string): string {
  // Bounded: --cacert /dev/zero, or a FIFO that never ends, stops here instead of filling memory.
  const text = readConfiguredFile(file, MAX_CA_BUNDLE_BYTES, {
    unreadable: `cannot read the CA bundle ${file} (from ${source})`,
    tooLarge: `the CA bundle ${file} (from ${source}) holds more than ${MAX_CA_BUNDLE_BYTES / (1024 * 1024)} MiB: too large to be a PEM bundle of CA certificates`,
  });
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(`${file} (from ${source}) holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return text;
}
