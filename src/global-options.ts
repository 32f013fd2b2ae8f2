import { ConfigError, UsageError } from './errors.js';
import type { Env } from './io.js';
import type { OutputMode } from './output.js';
import type { GlobalFlags } from './settings.js';

/** Options every command accepts, as commander hands them over. */
export interface GlobalOptions extends GlobalFlags, OutputMode {
  timeout?: string;
}

const DEFAULT_TIMEOUT_SECONDS = 30;

/** --timeout, else PLANTSTORE_TIMEOUT, else 30 s; in milliseconds. */
export function resolveTimeoutMs(options: GlobalOptions, env: Env): number {
  if (options.timeout !== undefined) return secondsToMs(options.timeout, '--timeout', UsageError);
  const fromEnv = env['PLANTSTORE_TIMEOUT'];
  if (fromEnv) return secondsToMs(fromEnv, 'PLANTSTORE_TIMEOUT', ConfigError);
  return DEFAULT_TIMEOUT_SECONDS * 1000;
}

function secondsToMs(raw: string, source: string, Problem: typeof UsageError | typeof ConfigError): number {
  const seconds = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(seconds > 0) || seconds > 86_400) {
    throw new Problem(`invalid ${source} '${raw}': give a number of seconds greater than 0, such as 30 or 2.5`);
  }
  return Math.round(seconds * 1000);
}
