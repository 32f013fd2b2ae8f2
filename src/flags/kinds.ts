import { parseRate, type Rate } from '../batch/rate-limit.js';
import type { Concurrency } from '../batch/throttle/throttle.js';
import { normalizeBaseUrl } from '../config/base-url.js';
import { badProfileName, isProfileName } from '../config/file.js';
import { missingErrorsFrom } from '../config/missing-errors.js';
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
 * A number of seconds, such as 30 or 2.5, in milliseconds. `shortest` names what
 * it is when there is a lower bound: "the shortest timeout is 0.01 seconds (10 ms)".
 */
export function seconds(shortest?: { seconds: number; of: string }): Parse<number> {
  return (raw, origin) => {
    const parsed = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
    if (!(parsed >= 0) || parsed > MAX_SECONDS) throw invalid(raw, origin, 'give a number of seconds, such as 30 or 2.5');
    if (shortest && parsed < shortest.seconds) {
      throw invalid(
        raw,
        origin,
        `the shortest ${shortest.of} is ${shortest.seconds} seconds (${shortest.seconds * 1000} ms); give a number of seconds such as 30 or 2.5`,
      );
    }
    return Math.round(parsed * 1000);
  };
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

const DURATION_UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The longest --max-duration: setTimeout's limit (about 24.8 days). */
const MAX_DURATION_MS = 2 ** 31 - 1;

/** `90s`, `45m`, `5h` (a whole number and a unit), in milliseconds. */
export const duration: Parse<number> = (raw, origin) => {
  const match = /^(\d+)([smh])$/.exec(raw);
  const ms = match ? Number(match[1]) * DURATION_UNIT_MS[match[2] as keyof typeof DURATION_UNIT_MS] : Number.NaN;
  if (!(ms >= 1000 && ms <= MAX_DURATION_MS)) {
    throw invalid(raw, origin, 'give a whole number of seconds, minutes or hours with its unit, such as 90s, 45m or 5h (at least 1s)');
  }
  return ms;
};
