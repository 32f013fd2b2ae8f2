import { badValue } from '../errors.js';

// RFC 6750 b64token. Anything else could break the Authorization header or inject another one.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MAX_TOKEN_BYTES = 4096;
// Every line printed is searched for the token and its encodings (secret-mask.ts): a
// token of a few characters would shred ordinary words ("tok***n r***j***ct***d").
export const MIN_TOKEN_CHARS = 8;

/**
 * The rule a token breaks, as the end of a sentence about it ("is shorter than 8
 * characters; a bearer token is longer"); undefined when it keeps them all. It never
 * quotes the token: callers put it in messages about output nobody may see.
 */
export function tokenRuleBroken(token: string): string | undefined {
  if (token.length < MIN_TOKEN_CHARS) return `is shorter than ${MIN_TOKEN_CHARS} characters; a bearer token is longer`;
  if (token.length > MAX_TOKEN_BYTES) return `is longer than ${MAX_TOKEN_BYTES} characters`;
  if (!B64TOKEN.test(token)) return 'has characters a bearer token cannot hold (whitespace, control or non-ASCII characters)';
  return undefined;
}

/**
 * A token from `source`, surrounding whitespace forgiven and nothing else: typed on this
 * command line (or at its prompt), a bad one is a usage error; from the environment, a
 * file or a profile, a configuration error.
 */
export function normalizeToken(raw: string, source: string, onCommandLine = true): string {
  const token = raw.trim();
  if (token === '') {
    // Typed here, it can be typed again; a blank variable, file or profile must be filled or unset where it is.
    const advice = onCommandLine ? 'paste the token and press Enter, or pipe it in' : `it is blank; check that ${source} holds the token`;
    throw badValue(`no token in ${source}: ${advice}`, onCommandLine);
  }
  const broken = tokenRuleBroken(token);
  if (broken !== undefined) {
    throw badValue(`the token in ${source} ${broken}; check that ${source} holds the whole token and nothing else`, onCommandLine);
  }
  return token;
}

/** Shows enough of a token to recognise it, never enough to use it. */
export function maskToken(token: string): string {
  return token.length >= 12 ? `${token.slice(0, 4)}…` : '…';
}
