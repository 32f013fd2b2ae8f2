import { tokenRuleBroken } from './token.js';

/** A token as a token command gave it: `expiresAt` in epoch milliseconds, when the command said. */
export interface ObtainedToken {
  token: string;
  expiresAt?: number;
}

/**
 * What the command's stdout said, or why it is not a token. The reasons never quote the
 * output: whatever the command printed may be the token, or part of it.
 */
export type ReadOutput = { ok: true; obtained: ObtainedToken } | { ok: false; reason: string; hint: string };

/** What a command printing something else should print instead. */
const PRINT_THE_TOKEN = 'it must print the token alone, or a JSON object {"token": "…"}';

const EXAMPLE_TIME = '2030-01-02T15:04:05Z';

/**
 * The command prints the token alone (surrounding whitespace forgiven), or a JSON object
 * {"token": "…", "expiresAt": "<RFC 3339 time>"}, with expiresAt optional, as the AWS
 * CLI's credential_process and kubectl's exec plugins print theirs. Other members of the
 * object are left alone, so a command can serve other tools too.
 */
export function readTokenOutput(stdout: string): ReadOutput {
  const text = stdout.trim();
  if (text === '') return { ok: false, reason: 'printed no token on stdout', hint: PRINT_THE_TOKEN };
  if (text.startsWith('{')) return readJson(text);
  if (/[\r\n]/.test(text)) {
    return {
      ok: false,
      reason: 'printed more than one line on stdout',
      hint: "it must print the token alone (sh -c '… | head -n 1' keeps the first line)",
    };
  }
  return checked(text, undefined);
}

function readJson(text: string): ReadOutput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text around the fault: it is never passed on.
    return { ok: false, reason: 'printed text that begins with { but is not valid JSON', hint: PRINT_THE_TOKEN };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'printed JSON that is not an object', hint: PRINT_THE_TOKEN };
  }
  const fields = value as Record<string, unknown>;
  if (typeof fields['token'] !== 'string')
    return { ok: false, reason: 'printed a JSON object without a "token" string', hint: PRINT_THE_TOKEN };
  const expires = fields['expiresAt'];
  if (expires === undefined || expires === null) return checked(fields['token'], undefined);
  const expiresAt = typeof expires === 'string' ? parseRfc3339(expires) : undefined;
  if (expiresAt === undefined) {
    return {
      ok: false,
      reason: 'printed an "expiresAt" that is not an RFC 3339 time',
      hint: `write it as ${EXAMPLE_TIME}, or leave it out`,
    };
  }
  return checked(fields['token'], expiresAt);
}

function checked(raw: string, expiresAt: number | undefined): ReadOutput {
  if (raw.trim() === '') return { ok: false, reason: 'printed an empty token', hint: PRINT_THE_TOKEN };
  const token = raw.trim();
  // jq without -r prints a string as JSON, quotes and all: say so, not "characters a token cannot hold".
  if (token.length >= 2 && token.startsWith('"') && token.endsWith('"')) {
    return { ok: false, reason: 'printed the token in double quotes, as a JSON string', hint: 'print it bare (jq -r, not jq)' };
  }
  const rule = tokenRuleBroken(token);
  if (rule !== undefined) return { ok: false, reason: `printed a token that ${rule}`, hint: 'check what it prints when run by itself' };
  return { ok: true, obtained: expiresAt === undefined ? { token } : { token, expiresAt } };
}

// RFC 3339 section 5.6: date-time = full-date "T" full-time; "T", "Z" in either case, and a space for "T" (section 5.6 note).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 time in epoch milliseconds, or undefined when the text is not one (a day 31 of April included). */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(`0${match[7]}`) * 1000);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A day 31 of April would roll over into May: the date must survive the round trip.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (match[9] !== undefined) {
    const offsetHour = Number(match[10]);
    const offsetMinute = Number(match[11]);
    if (offsetHour > 23 || offsetMinute > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  // A leap second (:60) is taken as the last instant of its minute: JavaScript time has no room for it.
  if (second === 60) date.setUTCHours(hour, minute, 59, 999);
  else date.setUTCHours(hour, minute, second, fraction);
  return date.getTime() - offsetMinutes * 60_000;
}
