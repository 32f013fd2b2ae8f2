import { spawn } from 'node:child_process';
import { AuthError, InterruptedError } from '../errors.js';
import type { Env } from '../platform/env.js';
import { shown } from '../text/shown.js';
import { CommandLineProblem, joinWords, splitWords } from './command-words.js';
import { type ObtainedToken, readTokenOutput } from './token-output.js';

export type { ObtainedToken } from './token-output.js';

/** More than any token plus its JSON wrapping; a command printing more is not printing a token. */
export const MAX_TOKEN_COMMAND_OUTPUT = 64 * 1024;
// Only the last line of stderr is kept, for the error message; a command chattering for
// minutes costs this much memory at most.
const STDERR_TAIL_CHARS = 4096;
const STDERR_LINE_CHARS = 200;
/** How long a command has to go after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;

export interface TokenCommandOptions {
  /** The run's request timeout: the command gets as long to answer. */
  timeoutMs: number;
  /** Ctrl-C, SIGTERM, SIGHUP: the command is stopped and the run ends as interrupted. */
  signal?: AbortSignal;
  /**
   * Each piece of text the command writes on stderr, as it comes: a prompt or a warning for
   * the user. Decoded as UTF-8 across chunk boundaries, so a piece never ends mid-character.
   */
  onStderr?: (text: string) => void;
  /** The command's environment; the CLI's own when not given. */
  env?: Env;
  /** The current time in epoch ms, to refuse a token that has expired already. */
  now?: () => number;
  killGraceMs?: number;
}

interface Ending {
  status: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs a token command (the words of `commandLine`, never a shell) and returns the token
 * it printed. Its stdin is closed: ids may be arriving on the CLI's own. Every failure is
 * an AuthError (exit 4) naming the command, and, when it has one, its exit status and the
 * last line it wrote on stderr; its stdout is never shown, since it may hold the token.
 */
export async function runTokenCommand(commandLine: string, options: TokenCommandOptions): Promise<ObtainedToken> {
  let words: string[];
  try {
    words = splitWords(commandLine);
  } catch (error) {
    if (!(error instanceof CommandLineProblem)) throw error;
    throw new AuthError(`cannot run token command '${shown(commandLine)}': ${error.message}`);
  }
  const named = `token command '${shown(joinWords(words))}'`;
  if (options.signal?.aborted) throw new InterruptedError(`interrupted before ${named} ran`);
  const stdout = await collectStdout(words, named, options);
  const read = readTokenOutput(stdout.text);
  if (!read.ok) throw new AuthError(`${named} ${read.reason}${stderrSuffix(stdout.lastStderrLine)}`);
  const { expiresAt } = read.obtained;
  const now = (options.now ?? Date.now)();
  if (expiresAt !== undefined && expiresAt <= now) {
    const ago = Math.ceil((now - expiresAt) / 1000);
    throw new AuthError(`${named} printed a token whose expiresAt passed ${ago} s ago; check that command, and this machine's clock`);
  }
  return read.obtained;
}

interface Collected {
  text: string;
  lastStderrLine: string;
}

function collectStdout(words: string[], named: string, options: TokenCommandOptions): Promise<Collected> {
  const [program, ...args] = words as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...options.env } } : {}),
      // A console window on Windows would flash for every renewal.
      windowsHide: true,
    });
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrTail = '';
    // Why the CLI stopped the command, if it did: decides the message once the child is gone.
    let stoppedFor: 'timeout' | 'too much output' | 'interrupted' | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const stop = (reason: NonNullable<typeof stoppedFor>): void => {
      if (stoppedFor !== undefined) return;
      stoppedFor = reason;
      child.kill('SIGTERM');
      child.stdout.destroy();
      // A command that ignores SIGTERM (or hangs in a prompt that traps it) still goes. Its
      // stderr is let go too: a process it started in the background may hold it open, and
      // 'close' waits for every pipe. (Not its own process group: a prompt on the terminal
      // must stay in the foreground group to read it.)
      killTimer = setTimeout(() => {
        child.kill('SIGKILL');
        child.stderr.destroy();
      }, options.killGraceMs ?? KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = (): void => stop('interrupted');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      if (stoppedFor !== undefined) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_TOKEN_COMMAND_OUTPUT) return stop('too much output');
      chunks.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      options.onStderr?.(text);
      stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      // spawn failed (no such program, not executable): 'close' follows with no status.
      spawnError = error;
    });
    child.on('close', (status: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const lastStderrLine = lastLine(stderrTail);
      const failure = describeFailure(named, { status, signal }, stoppedFor, spawnError, lastStderrLine, options.timeoutMs);
      if (failure) return reject(failure);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), lastStderrLine });
    });
  });
}

function describeFailure(
  named: string,
  ending: Ending,
  stoppedFor: 'timeout' | 'too much output' | 'interrupted' | undefined,
  spawnError: NodeJS.ErrnoException | undefined,
  lastStderrLine: string,
  timeoutMs: number,
): Error | undefined {
  const stderr = stderrSuffix(lastStderrLine);
  if (stoppedFor === 'interrupted') return new InterruptedError(`interrupted while waiting for ${named}`);
  if (stoppedFor === 'timeout') {
    return new AuthError(`${named} gave no token within ${duration(timeoutMs)}, and was stopped${stderr}`);
  }
  if (stoppedFor === 'too much output') {
    const kib = MAX_TOKEN_COMMAND_OUTPUT / 1024;
    return new AuthError(`${named} printed more than ${kib} KiB on stdout, more than any token, and was stopped${stderr}`);
  }
  if (spawnError) return new AuthError(`${named} could not start: ${startProblem(spawnError)}`);
  if (ending.signal) return new AuthError(`${named} was ended by ${ending.signal}${stderr}`);
  if (ending.status !== 0) return new AuthError(`${named} failed with exit status ${ending.status}${stderr}`);
  return undefined;
}

function startProblem(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such program (check its name, its path and PATH)';
  if (error.code === 'EACCES') return 'permission denied (is it executable?)';
  return error.code ?? 'unknown error';
}

function stderrSuffix(line: string): string {
  return line === '' ? '' : ` (its stderr ended: ${line})`;
}

/** The last line with something on it, safe for a terminal and cut to length. */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n|\r/).filter((line) => line.trim() !== '');
  const line = shown((lines.at(-1) ?? '').trim());
  return line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line;
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
