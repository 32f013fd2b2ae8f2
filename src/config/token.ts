import { UsageError } from '../errors.js';

// RFC 6750 b64token. Anything else could break the Authorization header or inject another one.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MAX_TOKEN_BYTES = 4096;
// Every line printed is searched for the token and its encodings (secret-mask.ts): a
// token of a few characters would shred ordinary words ("tok***n r***j***ct***d").
export const MIN_TOKEN_CHARS = 8;

/** Checks a token typed or piped by the user; surrounding whitespace is forgiven, nothing else. */
export function normalizeToken(raw: string, source: string): string {
  const token = raw.trim();
  if (token === '') throw new UsageError(`no token in ${source}: paste the token and press Enter, or pipe it in`);
  if (token.length < MIN_TOKEN_CHARS) {
    throw new UsageError(`the token in ${source} is shorter than ${MIN_TOKEN_CHARS} characters; a bearer token is longer`);
  }
  if (token.length > MAX_TOKEN_BYTES) throw new UsageError(`the token in ${source} is longer than ${MAX_TOKEN_BYTES} characters`);
  if (!B64TOKEN.test(token)) {
    throw new UsageError(
      `the token in ${source} has characters a bearer token cannot hold (whitespace, control or non-ASCII characters); nothing was stored`,
    );
  }
  return token;
}

/** Shows enough of a token to recognise it, never enough to use it. */
export function maskToken(token: string): string {
  return token.length >= 12 ? `${token.slice(0, 4)}…` : '…';
}
