// The token a run sends, wherever it comes from: a static one (the environment, a file, the
// profile) or a token command, run when the first request is about to go out and again
// when the token expires or the server answers 401 (token-lease.ts).

import type { Env } from '../platform/env.js';
import { isTokenCommand, type TokenSource } from './resolve.js';
import { runTokenCommand } from './token-command.js';
import { commandTokens, staticTokens, type TokenEvent, type TokenLeases } from './token-lease.js';

export interface LeaseSetup {
  /** Each token obtained, before any request or output could carry it (the CLI's mask learns it). */
  onToken: (token: string) => void;
  /** --timeout: the longest a token command may take to answer. */
  timeoutMs: number;
  /** Ctrl-C stops a token command still running. */
  signal: AbortSignal;
  env: Env;
  /** The token command's own stderr (a prompt, a warning): passed on as it comes, or held (holdStderr). */
  onStderr: (text: string) => void;
  /** Hold it until the command has ended, and mask the token in it: when stderr is not a terminal (a CI log). */
  holdStderr: boolean;
  onEvent?: (event: TokenEvent) => void;
  now?: () => number;
}

export function tokenLeases(token: TokenSource, setup: LeaseSetup): TokenLeases {
  const now = setup.now ?? Date.now;
  if (!isTokenCommand(token)) return staticTokens(token.value, { now, onToken: setup.onToken });
  return commandTokens(
    () =>
      runTokenCommand(token.command, {
        source: token.source,
        timeoutMs: setup.timeoutMs,
        signal: setup.signal,
        env: setup.env,
        onStderr: setup.onStderr,
        holdStderr: setup.holdStderr,
      }),
    { now, onToken: setup.onToken, ...(setup.onEvent ? { onEvent: setup.onEvent } : {}) },
  );
}
