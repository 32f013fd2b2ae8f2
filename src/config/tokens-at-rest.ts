import fs from 'node:fs';
import type { Env } from '../platform/env.js';
import { MAX_TOKEN_INPUT_BYTES } from './bounded-read.js';
import { configPath } from './file.js';
import { readOwnFile } from './own-file.js';
import { tokenRuleBroken } from './token.js';

/**
 * The tokens this machine keeps for plantstore (every profile's stored token, and the token
 * file named by PLANTSTORE_TOKEN_FILE or --token-file), handed to the mask before an error
 * that ended a run is printed. A run learns its own token only when it resolves it, which is
 * after the base URL and the profile: a stored token pasted into PLANTSTORE_BASE_URL, or typed
 * as --profile, was quoted back in full by their errors. Read on that path only (it costs a
 * start-up nothing), quietly: a file that cannot be read holds nothing to learn, and masking a
 * token from a file we would not trust hides more, never less.
 */
export function learnTokensAtRest(env: Env, argv: readonly string[], redact: (token: string) => void): void {
  const tokens = [...storedTokens(env), ...tokenFiles(env, argv).map((file) => regularFileText(file)?.trim())];
  // Only what a run could have used as a token: a run refuses the rest (a 1 GiB file of zeros)
  // before any request, and a mask of 8 KiB of it would be a pattern too large to run.
  for (const token of tokens) if (token !== undefined && tokenRuleBroken(token) === undefined) redact(token);
}

function storedTokens(env: Env): string[] {
  try {
    const read = readOwnFile(configPath(env));
    if (read === undefined) return [];
    const profiles = (JSON.parse(read.text.replace(/^\uFEFF/, '')) as { profiles?: unknown }).profiles;
    if (typeof profiles !== 'object' || profiles === null) return [];
    return Object.values(profiles).flatMap((profile: unknown) => {
      const token = (profile as { token?: unknown } | null)?.token;
      return typeof token === 'string' ? [token.trim()] : [];
    });
  } catch {
    return [];
  }
}

/** PLANTSTORE_TOKEN_FILE, and each --token-file typed before `--`. */
function tokenFiles(env: Env, argv: readonly string[]): string[] {
  const files = env['PLANTSTORE_TOKEN_FILE'] ? [env['PLANTSTORE_TOKEN_FILE']] : [];
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  words.forEach((word, i) => {
    if (word === '--token-file' && words[i + 1] !== undefined) files.push(words[i + 1] as string);
    else if (word.startsWith('--token-file=')) files.push(word.slice('--token-file='.length));
  });
  return files;
}

/** A regular file's first bytes as text; never a FIFO or a device, which a read could hang on or drain. */
function regularFileText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const bytes = Buffer.alloc(MAX_TOKEN_INPUT_BYTES);
    return bytes.toString('utf8', 0, fs.readSync(fd, bytes, 0, bytes.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
