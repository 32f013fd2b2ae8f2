import { parseRate, type Rate } from '../batch/rate-limit.js';
import type { Concurrency } from '../batch/throttle/throttle.js';
import { normalizeBaseUrl } from '../config/base-url.js';
import { badProfileName, isProfileName } from '../config/file.js';
import { missingErrorsFrom } from '../config/missing-errors.js';
import { describeDuration } from '../ui/duration.js';
import { invalid, type Parse, problem } from './flag.js';

// One parser per kind of value, shared by every flag of that kind, so that
// `--retries x` and `--port x` are refused in the same words.

/** A whole number from `min` to `max`, such as --retries or --port. */
export function wholeNumber(min: number, max: number): Parse<number> {
  return (raw, origin) => {
    const value = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) throw invalid(raw, origin, `give a whole number from ${min} to ${max}`);
    return value;
  };
}

/**
 * --concurrency: a whole number from 1 to `max` (that many in flight, fixed); `auto`, the limit
 * found from the server's latency up to `autoCeiling`; or `auto:N`, the same up to N (1 to `max`).
 * Refused in one sentence naming all three.
 */
export function concurrency(max: number, autoCeiling: number): Parse<Concurrency> {
  const number = wholeNumber(1, max);
  return (raw, origin) => {
    const text = raw.trim();
    try {
      if (text === 'auto') return { auto: autoCeiling };
      if (text.startsWith('auto:')) return { auto: number(text.slice('auto:'.length), origin) };
      return number(text, origin);
    } catch {
      throw invalid(
        raw,
        origin,
        `give a whole number from 1 to ${max}, auto (up to ${autoCeiling}), or auto:N to let auto go up to N (at most ${max})`,
      );
    }
  };
}

/** The longest wait or timeout accepted: a day. */
const MAX_SECONDS = 86_400;

/**
 * One grammar for every option that takes a time (issue 41): a number and a unit, `500ms`,
 * `5s`, `2m`, `1h`, or a bare number, which is seconds everywhere (`30`, `2.5`). Before it,
 * `--timeout 5s` was refused, `--max-duration 5` was refused, and each option said its own rule.
 */
export const TIME_FORMS = 'such as 500ms, 30s, 2m or 1h (a bare number is seconds)';

const TIME_UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A bound as it would be typed: `10ms`, `1s`, `24h`. */
const describeTime = (ms: number): string => (ms < 1000 ? `${ms}ms` : describeDuration(ms));

/** The milliseconds `raw` says, or NaN when it is not a time of the one grammar. */
export function timeMs(raw: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) return Number.NaN;
  return Math.round(Number(match[1]) * TIME_UNIT_MS[(match[2] ?? 's') as keyof typeof TIME_UNIT_MS]);
}

/** A time in milliseconds between `minMs` and `maxMs`; `of` names what it is in the message about the bounds. */
export function time(bounds: { minMs: number; maxMs: number; of: string }): Parse<number> {
  return (raw, origin) => {
    const ms = timeMs(raw);
    if (Number.isNaN(ms)) throw invalid(raw, origin, `give a time ${TIME_FORMS}`);
    if (ms < bounds.minMs)
      throw invalid(raw, origin, `the shortest ${bounds.of} is ${describeTime(bounds.minMs)}; give a time ${TIME_FORMS}`);
    if (ms > bounds.maxMs)
      throw invalid(raw, origin, `the longest ${bounds.of} is ${describeTime(bounds.maxMs)}; give a time ${TIME_FORMS}`);
    return ms;
  };
}

/**
 * A wait or timeout of at most a day, in milliseconds. `shortest` names what it is when there
 * is a lower bound: "the shortest timeout is 10ms".
 */
export function seconds(shortest?: { seconds: number; of: string }): Parse<number> {
  return time({ minMs: Math.round((shortest?.seconds ?? 0) * 1000), maxMs: MAX_SECONDS * 1000, of: shortest?.of ?? 'wait' });
}

/** curl's --rate syntax: 40/s, 300/m, 1000/h, 5000/d; a bare 40 is per second (curl: per hour). */
export const rate: Parse<Rate> = (raw, origin) => {
  const parsed = parseRate(raw.trim());
  if (parsed === undefined) {
    throw invalid(
      raw,
      origin,
      'give a number of requests per second, minute, hour or day, such as 40/s, 300/m, 1000/h or 5000/d (a bare 40 is per second)',
    );
  }
  return parsed;
};

/** API error codes, comma-separated: 1 or 1,7. */
export const missingErrors: Parse<number[]> = (raw, origin) => missingErrorsFrom(raw, origin.source, origin.onCommandLine);

/** A profile name: a bad one typed on the command line is a usage error (exit 2), from elsewhere exit 3. */
export const profileName: Parse<string> = (raw, origin) => {
  if (!isProfileName(raw)) throw problem(origin, badProfileName(raw, origin.source));
  return raw;
};

/** A base URL, without its trailing slash. Exit 3 wherever it comes from, as the exit-code table says. */
export const baseUrl: Parse<string> = (raw, origin) => normalizeBaseUrl(raw, origin.source);

/**
 * A file plantstore writes and reads back (--journal): a real path. An empty one names no file,
 * and `-` would read as "standard output", which a file that must be read back cannot be.
 */
export const filePath: Parse<string> = (raw, origin) => {
  if (raw === '' || raw === '-') throw invalid(raw, origin, 'give the path of a file, such as dead-plants.journal');
  return raw;
};

/** Text taken as given: a path, a name. */
export const text: Parse<string> = (raw) => raw;

/** The longest --max-duration: 24 days, within setTimeout's limit (about 24.8 days), and said in whole hours (576h). */
const MAX_DURATION_MS = 24 * 24 * 3_600_000;

/** A run's time limit (`90s`, `45m`, `5h`, or `90`: seconds), in milliseconds: at least a second. */
export const duration: Parse<number> = time({ minMs: 1000, maxMs: MAX_DURATION_MS, of: 'time limit' });
