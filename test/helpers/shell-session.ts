// One long-lived POSIX shell, fed one step at a time, as a reader types a page's commands into
// one terminal: cd, export, shell variables, `$?` and files carry from each step to the next.
//
// - Each step is written to the shell's stdin wrapped as `{ STEP\n} </dev/null 2>&1`, so that
//   it cannot read the steps that follow (a `<` or a pipe inside it still wins), and its stderr
//   joins its stdout as a terminal shows them. A line with a random token and `$?` follows it:
//   the output before that line is the step's, and the number its exit code. `$?` is then set
//   back to that code, so a `case $?` in the next step reads the step before, not the marker.
// - onTerminal() runs a command on a pseudo-terminal inside the same shell, with util-linux
//   `script -qec CMD /dev/null` (it passes the exit code on). It inherits the shell's cwd and
//   exported environment, but runs CMD with $SHELL (set to /bin/sh here), a new shell: a
//   variable set without `export`, a function or an alias does not reach it.
// - The shell is spawned detached, the leader of its own process group. Background jobs it
//   starts (`plantstore sandbox --port 0 > sandbox.url &`) stay in that group (a non-interactive
//   shell has no job control), so close() ends them all: SIGTERM to the group (a background job
//   of a non-interactive shell ignores SIGINT), SIGKILL to whatever is left after a grace.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export interface StepResult {
  exit: number;
  /** Its stdout and stderr as one stream, split into lines, without the last newline. */
  lines: string[];
}

export interface ShellSession {
  /** Runs `command` (one command, possibly over several lines) and reads its output and exit code. */
  run(command: string): Promise<StepResult>;
  /** The same, on a pseudo-terminal (without color). */
  onTerminal(command: string): Promise<StepResult>;
  /** The shell's pid, which is also its process group's id. */
  readonly pid: number;
  /** Ends the shell and every process of its group; resolves once none is left. */
  close(): Promise<void>;
}

const GRACE_MS = 3000;

export function startShellSession({ cwd, env }: { cwd: string; env: Record<string, string> }): ShellSession {
  const shell: ChildProcessWithoutNullStreams = spawn('sh', [], { cwd, env: { ...env, SHELL: '/bin/sh' }, detached: true });
  const token = `step-done-${randomBytes(8).toString('hex')}`;
  const marker = new RegExp(`\n${token} (\\d+)\n`);
  let buffered = '';
  let stderr = '';
  let ended = false;
  let waiting: { resolve: (result: StepResult) => void; reject: (error: Error) => void } | undefined;
  const gone = new Promise<void>((resolve) => shell.on('close', () => resolve()));

  const settle = () => {
    const found = marker.exec(buffered);
    if (!found || waiting === undefined) return;
    const text = buffered.slice(0, found.index).replace(/\r\n/g, '\n').replace(/\n$/, '');
    buffered = buffered.slice(found.index + found[0].length);
    const done = waiting;
    waiting = undefined;
    done.resolve({ exit: Number(found[1]), lines: text === '' ? [] : text.split('\n') });
  };
  shell.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    settle();
  });
  shell.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  shell.stdin.on('error', () => {}); // a shell that ended: the step's promise says so
  shell.on('close', (code, signal) => {
    ended = true;
    waiting?.reject(new Error(`the shell ended (${signal ?? code}) before the step did: ${stderr.trim()}`));
    waiting = undefined;
  });
  // `$?` back to the step's own code after the marker line, for the next step to read.
  shell.stdin.write('__step_status() { return "$1"; }\n');

  const run = (command: string): Promise<StepResult> =>
    new Promise((resolve, reject) => {
      if (ended) return reject(new Error(`the shell has ended: ${stderr.trim()}`));
      if (waiting !== undefined) return reject(new Error('one step at a time'));
      waiting = { resolve, reject };
      shell.stdin.write(`{ ${command}\n} </dev/null 2>&1; __step=$?; printf '\\n%s %d\\n' ${token} "$__step"; __step_status "$__step"\n`);
    });

  return {
    pid: shell.pid as number,
    run,
    onTerminal: (command) => run(`NO_COLOR=1 script -qec ${quoted(command)} /dev/null`),
    async close() {
      signalGroup(shell.pid as number, 'SIGTERM');
      if (!(await groupGoneWithin(shell.pid as number, GRACE_MS))) signalGroup(shell.pid as number, 'SIGKILL');
      await gone;
      await groupGoneWithin(shell.pid as number, GRACE_MS);
    },
  };
}

/** `text` as one single-quoted sh word. */
export function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** The live (not zombie) processes of group `pgid`, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Whether group `pgid` has no live process left within `ms`, looking again on each turn of a short poll. */
async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupMembers(pgid).length > 0) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
