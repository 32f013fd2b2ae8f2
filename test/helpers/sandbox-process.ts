import type { ChildProcess } from 'node:child_process';
import { finished, type RunResult, startPlantstore } from './cli.js';

export interface SandboxProcess {
  url: string;
  /** Request log lines the sandbox wrote so far (one per request). */
  requestLog(): string[];
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
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
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
    requestLog: () => stderr.split('\n').filter((line) => /^[A-Z]+ \/\S* \d{3} /.test(line)),
    stop(signal = 'SIGINT') {
      child.kill(signal);
      return done;
    },
  };
}
