// A --token-file or --cacert that is a FIFO nobody writes to (a secrets agent that died,
// `mkfifo` left behind) must not hang the CLI beyond the reach of Ctrl-C and SIGTERM:
// exit 130 or 143, saying which file it waited for, nothing sent. A writer that comes
// late is simply waited for. The signal goes only once the process has the FIFO open.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, finished, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const LINUX = process.platform === 'linux';
const TOKEN = 'fifo-Token-0a1b2c3d4e';

let config: ReturnType<typeof tempConfigDir>;
let server: ScriptedServer;
let requests = 0;
beforeEach(async () => {
  config = tempConfigDir();
  requests = 0;
  server = await startScriptedServer((_req, res) => {
    requests++;
    res.writeHead(204).end();
  });
});
afterEach(async () => {
  await server.close();
  config.cleanup();
});

function fifo(name: string): string {
  const file = path.join(config.dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/** Spawns the CLI and resolves once it holds `file` open (its /proc/<pid>/fd says so). */
async function holding(file: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({ PLANTSTORE_CONFIG_DIR: config.dir, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const opened = (): boolean => {
    try {
      return readdirSync(`/proc/${child.pid}/fd`).some((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`) === file);
    } catch {
      return false; // not started yet, or a descriptor closed while we looked
    }
  };
  // Polls a condition, not the clock: the test's own timeout is the only limit.
  while (!opened()) {
    if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before opening ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return child;
}

const signals = [
  { signal: 'SIGINT', code: 130 },
  { signal: 'SIGTERM', code: 143 },
] as const;

describe.skipIf(!LINUX)('a FIFO nobody writes to', () => {
  it.each(signals)('--token-file: $signal ends the wait, exit $code, nothing sent', async ({ signal, code }) => {
    const file = fifo('token');
    const child = await holding(file, ['--token-file', file, 'delete', '42'], { PLANTSTORE_BASE_URL: server.url });
    const done = finished(child);
    child.kill(signal);
    const run = await done;
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(`interrupted while waiting for ${file} to be written`);
    expect(requests).toBe(0);
  });

  it('--cacert: SIGTERM ends the wait, exit 143, nothing sent', async () => {
    const file = fifo('ca.pem');
    const child = await holding(file, ['--cacert', file, 'delete', '42'], {
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_BASE_URL: server.url,
    });
    const done = finished(child);
    child.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(143);
    expect(run.stderr).toContain(`interrupted while waiting for ${file} to be written`);
    expect(run.stderr).not.toContain(TOKEN);
    expect(requests).toBe(0);
  });

  it('auth status waits for a writer that comes late, and reads the token it writes', async () => {
    const file = fifo('late-token');
    const child = await holding(file, ['--token-file', file, 'auth', 'status'], {});
    const done = finished(child);
    const writer = openSync(file, 'w');
    writeSync(writer, `${TOKEN}\n`);
    closeSync(writer);
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`(from token file ${file})`);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });
});
