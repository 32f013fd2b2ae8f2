import { closeSync, openSync, readSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { MAX_TOKEN_BYTES } from './token.js';

/** The most read of a token file or of stdin piped to a login: room for whitespace around the longest token. */
export const MAX_TOKEN_INPUT_BYTES = 2 * MAX_TOKEN_BYTES;

/** The most read of a --cacert bundle: a distribution's whole bundle is about 200 KB. */
export const MAX_CA_BUNDLE_BYTES = 4 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a small file (a token, a CA bundle) whole, but never more than
 * `maxBytes`: returns undefined when it holds more. readFileSync would read
 * /dev/zero, or a FIFO that never ends, until memory runs out; this stops one
 * byte past the limit (the byte that tells "exactly maxBytes" from "more") and
 * closes the file. Errors from open and read (ENOENT, EISDIR...) are thrown as is.
 */
export function readFileUpTo(file: string, maxBytes: number): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      // Position null: read on from the current offset, which FIFOs and character devices need.
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A configured file read as text with readFileUpTo, its failures as configuration
 * errors (exit 3): `unreadable` names the file and the error code, `tooLarge` says
 * what the file was supposed to hold.
 */
export function readConfiguredFile(file: string, maxBytes: number, say: { unreadable: string; tooLarge: string }): string {
  let bytes: Buffer | undefined;
  try {
    bytes = readFileUpTo(file, maxBytes);
  } catch (error) {
    throw new ConfigError(`${say.unreadable}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  if (bytes === undefined) throw new ConfigError(say.tooLarge);
  return bytes.toString('utf8');
}
