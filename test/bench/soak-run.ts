// One run of the soak's command (soak.ts): the built CLI under GNU time (as proc.ts measures peak
// RSS: the kernel's ru_maxrss of the child, whatever ends it), stdin the ids file as `< ids.txt`
// gives it, stdout and stderr to files (a CI log, not the harness's memory). The harness signals
// the CLI itself, not time: GNU time ignores SIGINT while it waits, and a signal to it would not
// be the one a user sends. Without /usr/bin/time the CLI runs directly and its peak RSS is read
// from /proc/<pid>/status (VmHWM) every 100 ms, a lower bound that misses its last moments.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { TIME } from './proc.js';
import { epochNow } from './soak-server.js';

export interface SoakCommand {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  stdinFile: string;
  stdoutFile: string;
  stderrFile: string;
}

export interface RunningSoak {
  /** Epoch ms (soak-server.ts epochNow) just before spawn. */
  spawnedAt: number;
  /** Sends a signal to the CLI process (not to GNU time). */
  signal(signal: NodeJS.Signals): void;
  exited: Promise<SoakExit>;
}

export interface SoakExit {
  exitedAt: number;
  code: number | null;
  signal: string | null;
  /** Peak RSS in KiB, and how it was measured. */
  peakKiB: number;
  rssExact: boolean;
  /** CPU time the CLI used (user + system), in ms; undefined without GNU time. */
  cpuMs: number | undefined;
}

const SIGNAL_NAMES: Record<number, string> = { 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM', 1: 'SIGHUP' };

/** The pid of `parent`'s child, from /proc (the CLI that GNU time started). */
function childOf(parent: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name in parentheses, which may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) return Number(entry);
    } catch {
      // The process ended while the folder was read.
    }
  }
  return undefined;
}

const vmHwmKiB = (pid: number): number => {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

export function startSoakRun(command: SoakCommand, rssFile: string): RunningSoak {
  const exact = existsSync(TIME);
  const stdio = [openSync(command.stdinFile, 'r'), openSync(command.stdoutFile, 'a'), openSync(command.stderrFile, 'a')] as const;
  const spawnedAt = epochNow();
  const child = exact
    ? spawn(TIME, ['-f', '%x %M %U %S', '-o', rssFile, command.file, ...command.args], { env: command.env, stdio: [...stdio] })
    : spawn(command.file, command.args, { env: command.env, stdio: [...stdio] });
  for (const fd of stdio) closeSync(fd);
  let cliPid: number | undefined = exact ? undefined : child.pid;
  const cli = (): number | undefined => {
    if (cliPid === undefined && child.pid !== undefined) cliPid = childOf(child.pid);
    return cliPid;
  };
  let polledKiB = 0;
  const poll = exact ? undefined : setInterval(() => (polledKiB = Math.max(polledKiB, vmHwmKiB(child.pid ?? 0))), 100);
  const exited = new Promise<SoakExit>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const exitedAt = epochNow();
      if (poll) clearInterval(poll);
      if (!exact) return resolve({ exitedAt, code, signal, peakKiB: polledKiB, rssExact: false, cpuMs: undefined });
      // GNU time writes "Command terminated by signal 9" (or "exited with non-zero status 1") and then "%x %M %U %S".
      const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
      const [status, kib, user, system] = (lines.at(-1) ?? '').split(' ').map(Number);
      const bySignal = /terminated by signal (\d+)/.exec(lines.join('\n'));
      const signalName = bySignal ? (SIGNAL_NAMES[Number(bySignal[1])] ?? `signal ${bySignal[1]}`) : null;
      resolve({
        exitedAt,
        code: signalName ? null : (status ?? null),
        signal: signalName,
        peakKiB: kib ?? 0,
        rssExact: true,
        cpuMs: ((user ?? 0) + (system ?? 0)) * 1000,
      });
    });
  });
  return {
    spawnedAt,
    signal(name) {
      // The CLI may not be forked yet in the first milliseconds: wait for it.
      const started = Date.now();
      for (;;) {
        const pid = cli();
        if (pid !== undefined) {
          if (!exact && name === 'SIGKILL') polledKiB = Math.max(polledKiB, vmHwmKiB(pid));
          process.kill(pid, name);
          return;
        }
        if (Date.now() - started > 5000) throw new Error(`the CLI under ${TIME} (pid ${child.pid}) could not be found in /proc`);
      }
    },
    exited,
  };
}
