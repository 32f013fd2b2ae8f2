// An operation of the test suite (read-operation.ts, patch-operation.ts) run by the real engine
// (runBatch) in this process, against a server on loopback: what its command would do, with no
// command. The options are read from `parsed` flags as commander hands them over.
import { Readable } from 'node:stream';
import { createContext } from '../../src/context.js';
import { batchOptions } from '../../src/engine/batch-flags.js';
import type { Operation } from '../../src/engine/operation.js';
import { runBatch } from '../../src/engine/run-batch.js';
import { CliError } from '../../src/errors.js';
import { flagReader } from '../../src/flags/read.js';
import type { Stdin } from '../../src/platform/stdin.js';
import { serviceSettings } from '../../src/service/settings.js';
import { createTestIO } from '../../src/ui/io.js';

export interface OperationRun {
  exit: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The config folder. */
  dir: string;
  /** The base URL. */
  url: string;
  token: string;
  /** The flags, as commander hands them over (`{ journal: FILE, json: true }`). */
  parsed?: Record<string, unknown>;
  stdin?: string[];
  /** More variables, beside the config folder, base URL and token (`PLANTSTORE_MAX_DELETES`). */
  env?: Record<string, string>;
  /** The run's signal: abort it with 'SIGTERM' for a SIGTERM. */
  signal?: AbortSignal;
}

/** Runs `op` on `args` (ids, and values when its ids carry them); a refusal (CliError) is its line on stderr and its exit code. */
export async function runOperation<R extends { id: string }>(op: Operation<R>, args: string[], options: RunOptions): Promise<OperationRun> {
  const io = createTestIO();
  const ctx = createContext({
    io,
    env: { PLANTSTORE_CONFIG_DIR: options.dir, PLANTSTORE_BASE_URL: options.url, PLANTSTORE_TOKEN: options.token, ...options.env },
    stdin: Readable.from(options.stdin ?? []) as unknown as Stdin,
    version: '0.0.0',
    signal: options.signal ?? new AbortController().signal,
  });
  const flags = flagReader(options.parsed ?? {}, ctx) as never;
  let exit: number;
  try {
    exit = await runBatch(
      op,
      batchOptions(flags, args, () => serviceSettings(flags), op.destructive),
      ctx,
    );
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.err(`plantstore: ${error.message}`);
    exit = error.exit;
  }
  return { exit, stdout: io.stdout(), stderr: io.stderr() };
}
