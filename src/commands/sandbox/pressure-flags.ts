// The sandbox's options for rehearsing a busy service (src/sandbox/pressure.ts): slow, failing,
// rate-limited, or serving only K at once. Each reads as the client's own options do: a time as
// --timeout takes it (seconds) or with a unit (50ms), a rate as --rate takes it (100/s).
import { Flag, invalid, type Parse } from '../../flags/flag.js';
import { rate, time, wholeNumber } from '../../flags/kinds.js';

/** The longest latency or jitter accepted: longer than any client's timeout worth rehearsing. */
const MAX_WAIT_MS = 600_000;

/** A time, as every option of the client takes it (flags/kinds.ts): `50ms`, `0.5s`, `2` (seconds). In milliseconds. */
export const waitTime: Parse<number> = time({ minMs: 0, maxMs: MAX_WAIT_MS, of: 'time' });

/** A share of requests: `10%` or `0.1`, from 0 to all of them. */
export const share: Parse<number> = (raw, origin) => {
  const match = /^(\d+(?:\.\d+)?)(%)?$/.exec(raw.trim());
  const value = match ? Number(match[1]) / (match[2] ? 100 : 1) : Number.NaN;
  if (!(value >= 0 && value <= 1)) throw invalid(raw, origin, 'give a share of requests such as 10% or 0.1 (from 0 to 100%)');
  return value;
};

export const LATENCY = Flag.valued(
  {
    key: 'latency',
    flags: '--latency <time>',
    help: 'answer each request after this long, such as 50ms or 0.5s (a bare number is seconds)',
    default: '0',
  },
  waitTime,
);

export const JITTER = Flag.valued(
  { key: 'jitter', flags: '--jitter <time>', help: 'spread each latency by up to this much either way, evenly', default: '0' },
  waitTime,
);

export const FAIL = Flag.valued(
  {
    key: 'fail',
    flags: '--fail <share>',
    help: 'answer this share of requests with 503 and Retry-After, such as 10% or 0.1',
    default: '0',
  },
  share,
);

export const RETRY_AFTER = Flag.valued(
  { key: 'retryAfter', flags: '--retry-after <seconds>', help: 'the Retry-After of the --fail answers', default: '1' },
  wholeNumber(0, 3600),
);

export const RATE = Flag.valued(
  {
    key: 'rate',
    flags: '--rate <n/period>',
    help: 'answer 429 with Retry-After past this many requests, such as 100/s or 3000/m (a burst of n, then n per period)',
  },
  rate,
);

/** Enough for any client's concurrency; each slot is one pending request, nothing more. */
const MAX_CAPACITY = 100_000;

export const CAPACITY = Flag.valued(
  {
    key: 'capacity',
    flags: '--capacity <n>',
    help: 'serve at most n requests at once and queue the rest, as a busy server does (use with --latency)',
  },
  wholeNumber(1, MAX_CAPACITY),
);

export const SEED = Flag.valued(
  {
    key: 'seed',
    flags: '--seed <n>',
    help: 'another choice of which requests fail and how each latency spreads; one seed, one run',
    default: '0',
  },
  wholeNumber(0, 2 ** 32 - 1),
);

export const LOG = Flag.switch({
  key: 'log',
  flags: '--log',
  help: 'print the request log on stderr even when it is not a terminal or the sandbox runs in the background',
});

/**
 * The program's -q, as the sandbox reads it (commander takes it before or after `sandbox`, into
 * the same key): declared here for help that says what it silences, since the sandbox's
 * "success" is serving, and its URL line is still printed.
 */
export const SANDBOX_QUIET = Flag.switch({
  key: 'quiet',
  flags: '-q, --quiet',
  help: 'print only the base URL (stdout), warnings and errors: no banner, no request log',
});

export const PRESSURE_FLAGS = [LATENCY, JITTER, FAIL, RETRY_AFTER, RATE, CAPACITY, SEED, SANDBOX_QUIET, LOG] as const;
