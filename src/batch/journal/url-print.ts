import crypto from 'node:crypto';

/**
 * A base URL's secrets stay out of the journal (issue 40): a header stores the URL with the run's
 * secrets masked (`…/bot***`), and beside it a print of the whole URL, as the credentials' print
 * is made (scrypt, a random salt: a token in the path cannot be read back, and a guess costs 40
 * ms). A resume matches the print, so the masked URL needs nothing in clear to be compared, and a
 * URL holding another token (which masks alike) is refused as another run. Paid only by a run
 * whose URL holds a secret; any other header stores its URL as before, and compares as before.
 */
export interface UrlPrint {
  kdf: string;
  salt: string;
  hash: string;
}

const URL_KDF = 'scrypt-16384-8-1';
const URL_COST = { N: 16384, r: 8, p: 1 } as const;
const URL_SALT_BYTES = 16;
const URL_HASH_BYTES = 32;

/** The header's URL fields for `run`: its base URL as it is, or masked with a print of the whole. */
export function baseUrlFields(run: { baseUrl: string; maskedBaseUrl?: string }): { baseUrl: string; baseUrlPrint?: UrlPrint } {
  const masked = run.maskedBaseUrl;
  if (masked === undefined || masked === run.baseUrl) return { baseUrl: run.baseUrl };
  const salt = crypto.randomBytes(URL_SALT_BYTES);
  return {
    baseUrl: masked,
    baseUrlPrint: { kdf: URL_KDF, salt: salt.toString('base64'), hash: deriveUrl(run.baseUrl, salt).toString('base64') },
  };
}

/** The header's `baseUrlPrint` field, or why it is not one this plantstore can check. */
export function parseUrlPrint(value: unknown): UrlPrint | { notPrint: string } {
  if (typeof value !== 'object' || value === null) return { notPrint: 'its baseUrlPrint field is not an object' };
  const { kdf, salt, hash } = value as Record<string, unknown>;
  if (kdf !== URL_KDF) return { notPrint: `its base URL was recorded with ${JSON.stringify(kdf)}, which this plantstore cannot check` };
  if (!isBase64(salt, URL_SALT_BYTES) || !isBase64(hash, URL_HASH_BYTES)) {
    return { notPrint: 'its baseUrlPrint field is not in the form plantstore writes' };
  }
  return { kdf, salt, hash };
}

/** Whether `baseUrl` (normalized) is the URL `print` was made from. */
export function matchesUrlPrint(print: UrlPrint, baseUrl: string): boolean {
  const expected = Buffer.from(print.hash, 'base64');
  const actual = deriveUrl(baseUrl, Buffer.from(print.salt, 'base64'));
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/** Synchronous: once per run that opens a journal whose URL holds a secret, where a header is written or checked. */
function deriveUrl(baseUrl: string, salt: Buffer): Buffer {
  return crypto.scryptSync(`base-url\0${baseUrl}`, salt, URL_HASH_BYTES, URL_COST);
}

function isBase64(text: unknown, bytes: number): text is string {
  return typeof text === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, 'base64').length === bytes;
}
