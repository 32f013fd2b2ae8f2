// A command run on a real pseudo-terminal (util-linux `script`, which passes the exit code on),
// with what a person types written to it once the CLI is reading its terminal.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import { finished, type RunResult } from './cli.js';

function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const HAS_SCRIPT = process.platform === 'linux' && commandExists('script');

/** Resolves once `child`, or a process it started, holds `file` open (its /proc/<pid>/fd says so). */
export async function untilOpen(child: ChildProcess, file: string): Promise<void> {
  const holds = (pid: number): boolean => {
    try {
      if (readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`) === file)) return true;
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      return children !== '' && children.split(' ').some((next) => holds(Number(next)));
    } catch {
      return false; // not started yet, or a descriptor closed while we looked
    }
  };
  // Polls a condition, not the clock: the test's own timeout is the only limit.
  while (child.pid === undefined || !holds(child.pid)) {
    if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before opening ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Runs `command` (a shell command line) on a terminal. With `typed`, waits until the CLI opens
 * /dev/tty, then types it; without, types nothing and waits for the end.
 */
export async function runAtTerminal(command: string, env: Record<string, string>, typed?: string): Promise<RunResult> {
  const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const done = finished(child);
  if (typed !== undefined) {
    await untilOpen(child, '/dev/tty');
    child.stdin?.write(typed);
  }
  return done;
}

/** Whether tmux is here: the terminal tests that read a screen drive it (`send-keys`, `capture-pane`). */
export const HAS_TMUX = process.platform === 'linux' && commandExists('tmux');

/** tmux on its own server socket (`-L`), so a test's sessions never meet a user's. */
export function tmux(socket: string, ...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
}

/**
 * Polls the pane until `done` says so: waiting for what the screen shows, with a hang guard. Each
 * look spawns tmux: every 100 ms, so several terminal tests at once leave the CPU to what they test.
 */
export async function untilScreen(read: () => string, done: (screen: string) => boolean, limitMs = 60_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const screen = read();
    if (done(screen)) return screen;
    if (Date.now() - started > limitMs) throw new Error(`the screen never showed what was awaited:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
