// A --token-file or --cacert that is a FIFO nobody writes to (a secrets agent that died,
// `mkfifo` left behind) must not hang the CLI beyond the reach of Ctrl-C and SIGTERM:
// exit 130 or 143, saying which file it waited for, nothing sent. A writer that comes
// late is simply waited for. The signal goes only once the process has the FIFO open.
// A terminal (--token-file /dev/tty) is not a pipe: it is read as typed, up to Ctrl-D.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, finished, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { untilOpen } from '../helpers/terminal.js';

const LINUX = process.platform === 'linux';
const HAS_SCRIPT = LINUX && commandExists('script');

function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
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
  await untilOpen(child, file);
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

// Only pipes are read without blocking: a terminal is read as typed, up to Ctrl-D.
describe.skipIf(!HAS_SCRIPT)('a terminal', () => {
  it('--token-file /dev/tty reads the token typed there', async () => {
    // script(1) gives the CLI a terminal; what is written to script's stdin is typed into it.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --token-file /dev/tty auth status`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: cleanEnv({ PLANTSTORE_CONFIG_DIR: config.dir }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const done = finished(child);
    // Typed only once the CLI is reading the terminal, as a person would.
    await untilOpen(child, '/dev/tty');
    child.stdin?.end(`${TOKEN}\n\u0004`);
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Token: +fifo… \(from token file \/dev\/tty\)/);
  });
});
