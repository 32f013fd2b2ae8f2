import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { ConfigError, InterruptedError } from '../errors.js';
import { errnoWords } from '../text/errno.js';
import { MAX_TOKEN_BYTES } from './token.js';

/** The most read of a token file or of stdin piped to a login: room for whitespace around the longest token. */
export const MAX_TOKEN_INPUT_BYTES = 2 * MAX_TOKEN_BYTES;

/** The most read of a --cacert bundle: a distribution's whole bundle is about 200 KB. */
export const MAX_CA_BUNDLE_BYTES = 4 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a small file (a token, a CA bundle) whole, but never more than `maxBytes`:
 * resolves undefined when it holds more. readFileSync would read /dev/zero, or a
 * FIFO that never ends, until memory runs out; this stops one byte past the limit
 * (the byte that tells "exactly maxBytes" from "more") and closes the file.
 *
 * A FIFO or pipe (`--token-file <(pass show plantstore)`) is read without blocking
 * the process: until its writer shows up, Ctrl-C and SIGTERM still work, and
 * `signal` ends the wait with an InterruptedError. A blocking open or read would
 * leave no signal handler able to run, and only SIGKILL could stop the CLI.
 * Errors from open and read (ENOENT, EISDIR...) are thrown as is.
 */
export async function readFileUpTo(file: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer | undefined> {
  // Only a pipe is opened non-blocking: opening a FIFO for reading otherwise waits in the
  // kernel for a writer. A terminal (--token-file /dev/tty) must block, to read what is typed.
  if (isPipe(file)) {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    // Loaded only for a pipe: most runs read a token from the environment or a plain file.
    const { Socket } = await import('node:net');
    return readPipeUpTo(new Socket({ fd, readable: true, writable: false }), maxBytes, signal);
  }
  const fd = openSync(file, 'r');
  try {
    return readFdUpTo(fd, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** A FIFO or socket, `/dev/stdin` on a pipe included (stat follows the link). Errors are left to the open. */
function isPipe(file: string): boolean {
  try {
    const stat = statSync(file);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** A file or device, read as it comes: a terminal waits for what is typed. */
function readFdUpTo(fd: number, maxBytes: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= maxBytes) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
    // Position null: read on from the current offset, which character devices need.
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, read));
    total += read;
  }
  return undefined;
}

/** A FIFO or pipe, read through the event loop, which waits for the writer without blocking. */
function readPipeUpTo(pipe: Socket, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer | undefined> {
  // The socket owns the descriptor from here on, and closes it when destroyed.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (settle: () => void): void => {
      signal?.removeEventListener('abort', onAbort);
      pipe.destroy();
      settle();
    };
    const onAbort = (): void => finish(() => reject(new InterruptedError()));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    pipe.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total > maxBytes) finish(() => resolve(undefined));
    });
    pipe.on('end', () => finish(() => resolve(Buffer.concat(chunks, total))));
    pipe.on('error', (error) => finish(() => reject(error)));
  });
}

/**
 * A configured file read as text with readFileUpTo, its failures as configuration
 * errors (exit 3): `unreadable` names the file, then the error in words (its code is the
 * error's detail, for --verbose) and `advice`, what to do about it; `tooLarge` says
 * what the file was supposed to hold.
 */
export async function readConfiguredFile(
  file: string,
  maxBytes: number,
  say: { unreadable: string; tooLarge: string; advice: string },
  signal?: AbortSignal,
): Promise<string> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readFileUpTo(file, maxBytes, signal);
  } catch (error) {
    // Most likely a pipe whose writer never came: say which file was waited for.
    if (error instanceof InterruptedError) throw new InterruptedError(`interrupted while waiting for ${file} to be written`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${say.unreadable}: ${errnoWords(code)}; ${say.advice}`, code);
  }
  if (bytes === undefined) throw new ConfigError(say.tooLarge);
  return bytes.toString('utf8');
}
