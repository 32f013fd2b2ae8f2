import type { ApiOptions, PlantApi } from './api.js';
import { openConfig, type ConfigFile } from './config.js';
import type { Env, IO } from './io.js';

/** What stdin offers a command: a stream, and raw mode for the hidden token prompt. */
export interface Stdin extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * Everything a command may use. Heavy parts (undici, conf) are built on first
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
  api(options: Omit<ApiOptions, 'userAgent'>): Promise<PlantApi>;
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

export function createContext(parts: ContextParts): Context {
  let config: ConfigFile | undefined;
  return {
    ...parts,
    config: () => (config ??= openConfig(parts.env, (line) => parts.io.err(line))),
    async api(options) {
      const { createPlantApi } = await import('./api.js');
      return createPlantApi({ ...options, userAgent: userAgent(parts.version) });
    },
  };
}
