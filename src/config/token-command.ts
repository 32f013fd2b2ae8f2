import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { AuthError, InterruptedError } from '../errors.js';
import { deadlineTimer } from '../platform/deadline-timer.js';
import type { Env } from '../platform/env.js';
import { errnoWords } from '../text/errno.js';
import { createMask } from '../text/secret-mask.js';
import { shown } from '../text/shown.js';
import { CommandLineProblem, joinWords, splitWords } from './command-words.js';
import { MAX_TOKEN_BYTES, MIN_TOKEN_CHARS } from './token.js';
import { type ObtainedToken, readTokenOutput } from './token-output.js';

export type { ObtainedToken } from './token-output.js';

/** More than any token plus its JSON wrapping; a command printing more is not printing a token. */
export const MAX_TOKEN_COMMAND_OUTPUT = 64 * 1024;
// Only the last line of stderr is kept, for the error message; a command chattering for
// minutes costs this much memory at most.
const STDERR_TAIL_CHARS = 4096;
const STDERR_LINE_CHARS = 200;
/** Held stderr beyond this is not shown (the tail is still quoted in a failure). */
const MAX_HELD_STDERR = 64 * 1024;
/** How long a command has to go after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** After Ctrl-C, SIGTERM or SIGHUP: the same, short, for the run ends within about a second. */
export const INTERRUPT_GRACE_MS = 500;
/**
 * Once the command has exited, how long what it wrote may take to be read, when something it
 * started in the background still holds its stdout or stderr open (`echo tok; sleep 100 &`).
 */
export const DRAIN_MS = 100;

export interface TokenCommandOptions {
  /** The run's request timeout: the command gets as long to answer. */
  timeoutMs: number;
  /** Ctrl-C, SIGTERM, SIGHUP: the command is stopped and the run ends as interrupted. */
  signal?: AbortSignal;
  /**
   * Each piece of text the command writes on stderr: a prompt or a warning for the user.
   * Decoded as UTF-8 across chunk boundaries, so a piece never ends mid-character.
   */
  onStderr?: (text: string) => void;
  /**
   * Hold the command's stderr until it has ended, and pass it on with the token it printed
   * masked (a `set -x` script traces it). Off when stderr is a terminal: a prompt must show as it comes.
   */
  holdStderr?: boolean;
  /**
   * Run the command in a process group of its own, ended as a whole on a signal or when
   * something it started outlives it. Only without a controlling terminal: a prompt must stay
   * in the terminal's foreground group to read it. Decided from /dev/tty when not given.
   */
  ownGroup?: boolean;
  /** Where the command line came from ("PLANTSTORE_TOKEN_COMMAND", "profile 'work' in …"), as every failure names it. */
  source?: string;
  /** The command's environment; the CLI's own when not given. */
  env?: Env;
  /** The current time in epoch ms, to refuse a token that has expired already. */
  now?: () => number;
  killGraceMs?: number;
}

type StoppedFor = 'timeout' | 'too much output' | 'interrupted';

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
    throw new AuthError(`cannot run token command '${shown(commandLine)}'${from(options.source)}: ${error.message}`);
  }
  const named = `token command '${shown(joinWords(words))}'${from(options.source)}`;
  if (options.signal?.aborted) throw new InterruptedError(`interrupted before ${named} ran`);
  const ran = await run(words, options);
  const read = ran.stoppedFor === undefined ? readTokenOutput(ran.stdout) : undefined;
  // Its stderr may hold the token (a trace, an error quoting it): masked before anything of it
  // is shown. Without a token read, whatever on stdout looks like one is masked instead.
  const mask = createMask(read?.ok ? [read.obtained.token] : tokenLike(ran.stdout));
  if (ran.held) options.onStderr?.(mask(ran.held));
  const lastStderrLine = lastLine(mask(ran.stderrTail));
  const failure = describeFailure(named, words[0] as string, ran, lastStderrLine, options.timeoutMs);
  if (failure) throw failure;
  if (!read?.ok) throw new AuthError(`${named} ${read?.reason ?? 'gave no token'}${stderrSuffix(lastStderrLine)}; ${read?.hint ?? RUN_IT}`);
  const { expiresAt } = read.obtained;
  const now = (options.now ?? Date.now)();
  if (expiresAt !== undefined && expiresAt <= now) {
    const ago = Math.ceil((now - expiresAt) / 1000);
    throw new AuthError(`${named} printed a token whose expiresAt passed ${ago} s ago; check that command, and this machine's clock`);
  }
  return read.obtained;
}

interface Ran {
  stdout: string;
  /** Its stderr, when held; '' when passed on as it came. */
  held: string;
  stderrTail: string;
  ending: Ending;
  stoppedFor: StoppedFor | undefined;
  spawnError: NodeJS.ErrnoException | undefined;
}

function run(words: string[], options: TokenCommandOptions): Promise<Ran> {
  const [program, ...args] = words as [string, ...string[]];
  const ownGroup = options.ownGroup ?? (process.platform !== 'win32' && !hasTerminal());
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...options.env } } : {}),
      // A console window on Windows would flash for every renewal.
      windowsHide: true,
      detached: ownGroup,
    });
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let held = '';
    let stderrTail = '';
    let ending: Ending = { status: null, signal: null };
    // Why the CLI stopped the command, if it did: decides the message once the child is gone.
    let stoppedFor: StoppedFor | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let open = 2;
    let exited = false;
    let done = false;

    /** The command, and with its own group everything it started. */
    const signalAll = (signal: NodeJS.Signals): void => {
      if (ownGroup && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // ESRCH: nothing of it is left.
        }
      } else child.kill(signal);
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      timer.clear();
      clearTimeout(drainTimer);
      // After a stop, the SIGKILL still comes for whatever outlived the SIGTERM (unref'd).
      if (stoppedFor === undefined) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const stdout = Buffer.concat(chunks).toString('utf8');
      resolve({ stdout, held, stderrTail, ending, stoppedFor, spawnError });
    };
    const stop = (reason: StoppedFor): void => {
      if (stoppedFor !== undefined || done) return;
      stoppedFor = reason;
      signalAll('SIGTERM');
      child.stdout.destroy();
      // A command that ignores SIGTERM (or hangs in a prompt that traps it) still goes.
      const grace = reason === 'interrupted' ? INTERRUPT_GRACE_MS : (options.killGraceMs ?? KILL_GRACE_MS);
      // Its 'exit' then ends the wait: the pipes, which a process it left may hold, are let go.
      killTimer = setTimeout(() => {
        signalAll('SIGKILL');
        child.stdout.destroy();
        child.stderr.destroy();
      }, grace);
      killTimer.unref();
    };
    // A command that exited in time is not timed out: after a suspend (Ctrl-Z, a laptop lid), the
    // timer comes before its output and its exit are read, and deadlineTimer waits for them.
    const timer = deadlineTimer(options.timeoutMs, () => {
      if (!exited) stop('timeout');
    });
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
      if (!options.holdStderr) options.onStderr?.(text);
      else if (held.length < MAX_HELD_STDERR) held += text.slice(0, MAX_HELD_STDERR - held.length);
      stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    const ended = (): void => {
      if (--open === 0 && exited) finish();
    };
    child.stdout.once('end', ended);
    child.stderr.once('end', ended);
    child.on('error', (error: NodeJS.ErrnoException) => {
      // spawn failed (no such program, not executable): 'close' follows with no status.
      spawnError = error;
    });
    child.on('exit', (status: number | null, signal: NodeJS.Signals | null) => {
      ending = { status, signal };
      exited = true;
      if (stoppedFor !== undefined || open === 0) return finish();
      // What it wrote before exiting is read first; then whatever it started and left holding
      // its output is ended with it. (A timer can come before the pipes are read in a turn of
      // the event loop; setImmediate comes after.)
      drainTimer = setTimeout(() => {
        setImmediate(() => {
          signalAll('SIGTERM');
          finish();
        });
      }, DRAIN_MS);
    });
    child.on('close', finish);
  });
}

/** Whether this process has a controlling terminal, where a token command may prompt. */
function hasTerminal(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

/** Words on stdout that could be a token: masked in its stderr when no token could be read. */
function tokenLike(stdout: string): string[] {
  return stdout
    .split(/[\s"'{}[\],:]+/)
    .filter((word) => word.length >= MIN_TOKEN_CHARS && word.length <= MAX_TOKEN_BYTES && /^[\x21-\x7e]+$/.test(word))
    .slice(0, 8);
}

/** The next step for a command that failed for its own reasons: the user sees them by running it. */
const RUN_IT = 'run it by itself to see why';

function from(source: string | undefined): string {
  return source === undefined ? '' : ` (from ${shown(source)})`;
}

function describeFailure(named: string, program: string, ran: Ran, lastStderrLine: string, timeoutMs: number): Error | undefined {
  const { ending, stoppedFor, spawnError } = ran;
  const stderr = stderrSuffix(lastStderrLine);
  if (stoppedFor === 'interrupted') return new InterruptedError(`interrupted while waiting for ${named}`);
  if (stoppedFor === 'timeout') {
    return new AuthError(
      `${named} gave no token within ${duration(timeoutMs)}, and was stopped${stderr}; run it by itself to see where it waits, or allow it longer with --timeout`,
    );
  }
  if (stoppedFor === 'too much output') {
    const kib = MAX_TOKEN_COMMAND_OUTPUT / 1024;
    return new AuthError(
      `${named} printed more than ${kib} KiB on stdout, more than any token, and was stopped${stderr}; it must print the token alone, or a JSON object {"token": "…"}`,
    );
  }
  if (spawnError) return new AuthError(`${named} could not start: ${startProblem(program, spawnError.code)}`, spawnError.code);
  if (ending.signal) return new AuthError(`${named} was ended by ${ending.signal}${stderr}; ${RUN_IT}`);
  if (ending.status !== 0) return new AuthError(`${named} failed with exit status ${ending.status}${stderr}; ${RUN_IT}`);
  return undefined;
}

/** Why the program did not start, in words (its errno is the error's detail, for --verbose), and what to do. */
function startProblem(program: string, code: string | undefined): string {
  const name = shown(program);
  // A name without a slash is looked up in PATH; with one, it is a path (a missing #! interpreter fails the same way).
  const onPath = !program.includes('/') && !(process.platform === 'win32' && program.includes('\\'));
  if (code === 'ENOENT' && onPath) return `no program ${name} on PATH; install it, or give its full path`;
  if (code === 'ENOENT') return `no such file ${name} (or the interpreter on its #! line); check the path`;
  if (code === 'EACCES') return `permission denied on ${name}; make it executable (chmod +x), or check that it is a program`;
  return `${errnoWords(code)}; check the command`;
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
