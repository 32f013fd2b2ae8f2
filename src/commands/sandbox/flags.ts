import { normalizeToken } from '../../config/token.js';
import { Flag, type FlagReader, problem } from '../../flags/flag.js';
import { COLOR } from '../../flags/global.js';
import { wholeNumber } from '../../flags/kinds.js';
import type { Pressure } from '../../sandbox/pressure.js';
import { CAPACITY, FAIL, JITTER, LATENCY, LOG, PRESSURE_FLAGS, RATE, RETRY_AFTER, SANDBOX_QUIET, SEED } from './pressure-flags.js';

export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';
export const SANDBOX_TOKEN_ENV = 'PLANTSTORE_SANDBOX_TOKEN';

export const PORT = Flag.valued(
  { key: 'port', flags: '--port <n>', help: 'port to listen on (0 picks a free one)', default: '8080' },
  wholeNumber(0, 65_535),
);

export const HOST = Flag.valued(
  {
    key: 'host',
    flags: '--host <addr>',
    help: 'address to listen on; any but loopback opens the sandbox to the network',
    default: '127.0.0.1',
  },
  (raw, origin) => {
    if (raw.trim() === '') throw problem(origin, `invalid ${origin.source} '': give an address to listen on, such as 127.0.0.1`);
    return raw;
  },
);

/**
 * --token, else PLANTSTORE_SANDBOX_TOKEN, else the public default. Checked like any
 * bearer token. An empty variable is refused rather than skipped: falling back to the
 * public token because `$SECRET` was unset would open the sandbox to anyone.
 */
export const SANDBOX_TOKEN = Flag.valued(
  {
    key: 'token',
    flags: '--token <t>',
    help: 'bearer token the sandbox accepts, for throwaway tokens: other users see it in ps',
    env: SANDBOX_TOKEN_ENV,
    envHelp: 'the token plantstore sandbox accepts; unlike --token, ps does not show it',
    preferEnv: true,
    emptyEnvCounts: true,
    default: DEFAULT_SANDBOX_TOKEN,
  },
  (raw, origin) => {
    if (raw.trim() === '') {
      const instead = origin.onCommandLine ? 'leave --token out' : `unset ${SANDBOX_TOKEN_ENV}`;
      throw problem(
        origin,
        `the sandbox token (from ${origin.source}) is empty: give a token of at least 8 characters (letters, digits, - . _ ~ + /), or ${instead} for the public default ${DEFAULT_SANDBOX_TOKEN}`,
      );
    }
    return normalizeToken(raw, origin.source, origin.onCommandLine);
  },
);

export const PLANTS = Flag.valued(
  {
    key: 'plants',
    flags: '--plants <n>',
    help: 'number of plants to start with: ids 1..n; 0 for none, so every delete is refused',
    default: '100',
  },
  // Only deleted ids are stored, so any count starts at once; a safe integer keeps it exact.
  wholeNumber(0, Number.MAX_SAFE_INTEGER),
);

export const SANDBOX_FLAGS = [PORT, HOST, SANDBOX_TOKEN, PLANTS, ...PRESSURE_FLAGS] as const;
export const SANDBOX_GLOBALS = [COLOR] as const;

export type SandboxFlags = FlagReader<(typeof SANDBOX_FLAGS)[number] | (typeof SANDBOX_GLOBALS)[number]>;

/** The token the sandbox accepts, and where it came from: what the run prints depends on it. */
export interface SandboxToken {
  value: string;
  source: '--token' | typeof SANDBOX_TOKEN_ENV | 'default';
}

/** What `plantstore sandbox` was asked. */
export interface SandboxOptions {
  port: number;
  plants: number;
  host: string;
  token: SandboxToken;
  pressure: Pressure;
  /** --quiet: no banner, no hints, no request log unless --log. */
  quiet: boolean;
  /** --log: the request log wherever stderr goes. */
  log: boolean;
}

/**
 * Reads every flag the command declares, once, in this order: a bad value is reported by the
 * first read that meets it, so the order below is the order in which problems are found.
 */
export function sandboxOptions(flags: SandboxFlags): SandboxOptions {
  return {
    port: flags.value(PORT),
    plants: flags.value(PLANTS),
    host: flags.value(HOST),
    // Where it came from decides what to print: "$PLANTSTORE_SANDBOX_TOKEN", not its value.
    token: (flags.sourced(SANDBOX_TOKEN) ?? { value: DEFAULT_SANDBOX_TOKEN, source: 'default' }) as SandboxToken,
    pressure: {
      latencyMs: flags.value(LATENCY),
      jitterMs: flags.value(JITTER),
      failShare: flags.value(FAIL),
      retryAfterSeconds: flags.value(RETRY_AFTER),
      ...optional('rate', flags.value(RATE)),
      ...optional('capacity', flags.value(CAPACITY)),
      seed: flags.value(SEED),
    },
    quiet: flags.value(SANDBOX_QUIET),
    log: flags.value(LOG),
  };
}

/** `{ key: value }`, or nothing for a value not given: the options hold no undefined keys. */
function optional<K extends string, T>(key: K, value: T | undefined): Partial<Record<K, T>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, T>);
}
