import type { Dispatcher } from 'undici';
import { type ConfigFile, openConfig } from './config/file.js';
import type { AttemptGate } from './http/gate.js';
import type { TransportEvent } from './http/outcome.js';
import type { Endpoint, NetworkOptions, Transport } from './http/transport.js';
import type { Env } from './platform/env.js';
import type { Stdin } from './platform/stdin.js';
import { shown } from './text/shown.js';
import type { IO } from './ui/io.js';

/** What a command asks the transport for: where, how, paced by which gate, traced to whom. */
export interface TransportRequest {
  endpoint: Endpoint;
  network: NetworkOptions;
  /** The run's throttle, shared by every request. */
  gate?: AttemptGate;
  /** --verbose: each step of each request, as data the command words. */
  onEvent?: (event: TransportEvent) => void;
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
  /** Aborted on Ctrl-C / SIGTERM / SIGHUP. */
  signal: AbortSignal;
  config(): ConfigFile;
  transport(request: TransportRequest): Promise<Transport>;
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
  /**
   * Only the wire, swapped (tests): the real transport, retry loop and all, over a scripted
   * dispatcher, with the backoff's jitter fixed.
   */
  http?: { dispatcher?: Dispatcher; random?: () => number };
}

/** The config file, its warnings on stderr. They name its path, which PLANTSTORE_CONFIG_DIR supplies: shown, not raw. */
function openConfigFor(env: Env, io: IO): ConfigFile {
  return openConfig(env, (line) => io.err(shown(line)));
}

export function createContext(parts: ContextParts): Context {
  const { http, ...rest } = parts;
  let config: ConfigFile | undefined;
  return {
    ...rest,
    config: () => (config ??= openConfigFor(parts.env, parts.io)),
    async transport({ endpoint, network, gate, onEvent }) {
      // undici is loaded only by commands that send requests: --help never pays for it.
      const { createTransport } = await import('./http/transport.js');
      return createTransport({
        ...network,
        endpoint,
        env: parts.env,
        userAgent: userAgent(parts.version),
        ...(gate ? { gate } : {}),
        ...(onEvent ? { onEvent } : {}),
        ...(http?.dispatcher ? { dispatcher: http.dispatcher } : {}),
        ...(http?.random ? { random: http.random } : {}),
      });
    },
  };
}
