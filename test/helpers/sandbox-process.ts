import type { ChildProcess } from 'node:child_process';
import { DEFAULT_SANDBOX_TOKEN, PLANTS } from '../../src/commands/sandbox/flags.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { finished, type RunResult, startPlantstore } from './cli.js';

/**
 * The server a plain `plantstore sandbox` runs (its default token and plants, no pressure), in
 * this process on a free port: for tests about what the client does against it, not about the
 * sandbox command (which startSandboxProcess runs).
 */
export function startDefaultSandbox(): Promise<Sandbox> {
  return startSandbox({ host: '127.0.0.1', port: 0, token: DEFAULT_SANDBOX_TOKEN, plants: PLANTS.spec.default?.value as number });
}

/** A line of the sandbox's request log: the method, the path and the status. */
const REQUEST_LINE = /^[A-Z]+ \/\S* \d{3} /;
const logLines = (text: string): string[] => text.split('\n').filter((line) => REQUEST_LINE.test(line));

export interface SandboxProcess {
  url: string;
  /** Request log lines the sandbox wrote so far (one per request). */
  requestLog(): string[];
  /** Resolves once the request log has `count` lines (as the sandbox writes them: no polling), or the sandbox has ended. */
  logged(count: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<RunResult>;
}

/**
 * Runs `plantstore sandbox --port 0` as a user would and reads its base URL from the first stdout line.
 * With --log, so that requestLog() has the lines a terminal would show (stderr is a pipe here,
 * where the sandbox prints no request log of itself); `{ log: false }` runs it as given.
 */
export async function startSandboxProcess(
  args: readonly string[] = [],
  env: Record<string, string> = {},
  { log = true }: { log?: boolean } = {},
): Promise<SandboxProcess> {
  const child: ChildProcess = startPlantstore(['sandbox', '--port', '0', ...(log ? ['--log'] : []), ...args], { env });
  const done = finished(child);
  let stderr = '';
  // For logged(): the log's lines counted up to the end of the last complete line, as they come.
  const counted = { upTo: 0, lines: 0 };
  const recount = (): number => {
    const upTo = stderr.lastIndexOf('\n') + 1;
    counted.lines += logLines(stderr.slice(counted.upTo, upTo)).length;
    counted.upTo = upTo;
    return counted.lines;
  };
  let waiters: Array<{ count: number; resolve(): void }> = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (waiters.length === 0) return;
    const lines = recount();
    for (const waiter of waiters.filter((w) => lines >= w.count)) waiter.resolve();
    waiters = waiters.filter((w) => lines < w.count);
  });
  void done.then(() => {
    for (const waiter of waiters.splice(0)) waiter.resolve();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline !== -1) resolve(stdout.slice(0, newline));
    });
    void done.then((result) => reject(new Error(`sandbox ended early (${result.code}): ${result.stderr}`)));
  });
  return {
    url,
    requestLog: () => logLines(stderr),
    logged(count) {
      if (recount() >= count || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    stop(signal = 'SIGINT') {
      child.kill(signal);
      return done;
    },
  };
}
