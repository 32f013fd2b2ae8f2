import { type ConfigFile, openConfig } from './config/file.js';
import type { Target } from './config/resolve.js';
import type { NetworkOptions, PlantApi } from './http/client.js';
import type { AttemptGate } from './http/gate.js';
import type { FailedAttempt } from './http/outcome.js';
import type { Env, IO } from './ui/io.js';
import { shown } from './ui/shown.js';

export interface ApiRequest {
  target: Target;
  network: NetworkOptions;
  verbose: boolean;
  /** The run's throttle, shared by every request. */
  gate?: AttemptGate;
  /** How the command words a failed attempt in --verbose lines. */
  describe?: (attempt: FailedAttempt) => string;
}

/** What stdin offers a command: a stream, and raw mode for the hidden token prompt. */
export interface Stdin extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  /** `< /`: Node reads a directory as an empty stream, which would pass for "no ids". */
  isDirectory?(): boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * Everything a command may use. Heavy parts (undici, the config file) are built on first
 * use, so `--help` and `--version` never load them, and tests replace any piece.
 */
export interface Context {
  io: IO;
  env: Env;
  stdin: Stdin;
  version: string;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  config(): ConfigFile;
  api(request: ApiRequest): Promise<PlantApi>;
}

export function userAgent(version: string): string {
  return `plantstore/${version} node/${process.versions.node}`;
}

export interface ContextParts {
  io: IO;
  env: Env;
  stdin: Stdin;
  version: string;
  signal: AbortSignal;
}

/** The config file, its warnings on stderr. They name its path, which PLANTSTORE_CONFIG_DIR supplies: shown, not raw. */
export function openConfigFor(env: Env, io: IO): ConfigFile {
  return openConfig(env, (line) => io.err(shown(line)));
}

export function createContext(parts: ContextParts): Context {
  let config: ConfigFile | undefined;
  return {
    ...parts,
    config: () => (config ??= openConfigFor(parts.env, parts.io)),
    async api({ target, network, verbose, gate, describe }) {
      // undici is loaded only by commands that send requests: --help never pays for it.
      const { createPlantApi } = await import('./http/client.js');
      return createPlantApi({
        ...network,
        target,
        env: parts.env,
        userAgent: userAgent(parts.version),
        ...(gate ? { gate } : {}),
        ...(verbose ? { trace: (line: string) => parts.io.err(line), ...(describe ? { describe } : {}) } : {}),
      });
    },
  };
}
