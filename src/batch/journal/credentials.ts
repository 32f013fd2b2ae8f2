import crypto from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Which credentials a journal was written with, recorded in its header without the token:
 * a journal of one account resumed with another's token would skip the plants the first
 * account deleted, which the second may still have (issue 34).
 *
 * The print is scrypt (N=2^14, r=8: about 40 ms, once per run that opens a journal) of the
 * token, or of the token command's text, with a random salt kept beside it. A token cannot
 * be read back from it; a short or guessable one could be guessed, at 40 ms a guess, by
 * someone who can read the journal, which is why a journal is created 0600. The command's
 * text is hashed too: it may name a vault path or an account.
 */
export type RunCredentials = { kind: 'token'; token: string } | { kind: 'token-command'; command: string };

export type CredentialKind = RunCredentials['kind'];

/** What the header holds. `kdf` names the function and its costs, so a later plantstore can change them. */
export interface CredentialPrint {
  kind: CredentialKind;
  kdf: string;
  salt: string;
  hash: string;
}

const KDF = 'scrypt-16384-8-1';
const COST = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

const scrypt = promisify(crypto.scrypt) as (secret: string, salt: Buffer, length: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/** The print of `credentials` for a new journal, with a new salt. */
export async function printCredentials(credentials: RunCredentials): Promise<CredentialPrint> {
  const salt = crypto.randomBytes(SALT_BYTES);
  return { kind: credentials.kind, kdf: KDF, salt: salt.toString('base64'), hash: (await derive(credentials, salt)).toString('base64') };
}

/** Whether `credentials` are the ones `print` was made from. */
export async function matchesPrint(print: CredentialPrint, credentials: RunCredentials): Promise<boolean> {
  if (print.kind !== credentials.kind) return false;
  const expected = Buffer.from(print.hash, 'base64');
  const actual = await derive(credentials, Buffer.from(print.salt, 'base64'));
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/** The header's `credentials` field, or why it is not one this plantstore can check. */
export function parsePrint(value: unknown): CredentialPrint | { notPrint: string } {
  if (typeof value !== 'object' || value === null) return { notPrint: 'its credentials field is not an object' };
  const { kind, kdf, salt, hash } = value as Record<string, unknown>;
  if (kind !== 'token' && kind !== 'token-command') return { notPrint: 'its credentials field names no known kind of credentials' };
  if (kdf !== KDF) return { notPrint: `its credentials were recorded with ${JSON.stringify(kdf)}, which this plantstore cannot check` };
  if (typeof salt !== 'string' || typeof hash !== 'string' || !isBase64(salt, SALT_BYTES) || !isBase64(hash, HASH_BYTES)) {
    return { notPrint: 'its credentials field is not in the form plantstore writes' };
  }
  return { kind, kdf, salt, hash };
}

/** "a token", "a token command": what the user would recognise, never the secret. */
export function credentialWords(kind: CredentialKind): string {
  return kind === 'token' ? 'a token' : 'a token command';
}

function derive(credentials: RunCredentials, salt: Buffer): Promise<Buffer> {
  // The kind goes in too: a token that happens to equal a command's text is other credentials.
  const secret = credentials.kind === 'token' ? `token\0${credentials.token}` : `token-command\0${credentials.command}`;
  return scrypt(secret, salt, HASH_BYTES, COST);
}

function isBase64(text: string, bytes: number): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, 'base64').length === bytes;
}
