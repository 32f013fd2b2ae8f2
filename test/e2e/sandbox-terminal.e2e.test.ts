// Who sees the sandbox's request log and its "Ctrl-C stops it": an operator watching it at a
// terminal, in the foreground. Played on a real pseudo-terminal (util-linux `script`), with the
// sandbox's stdout in a FIFO the test reads the URL from, as a script reads sandbox.url:
// in the foreground Ctrl-C (a ^C typed into the terminal) stops it and its log shows; started
// with `&` under job control (`set -m`) it stays silent but for its banner, which says how
// to stop it instead; -q leaves the terminal to warnings and errors.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

interface Terminal {
  child: ChildProcess;
  screen(): string;
  /** Until the screen shows `pattern`: the match. */
  shows(pattern: RegExp): Promise<RegExpExecArray>;
  closed: Promise<string>;
}

/** `sh -c shell` on a pseudo-terminal; what it shows, as the terminal would (no color). */
function onTerminal(shell: string, cwd: string): Terminal {
  const child = spawn('script', ['-qec', shell, '/dev/null'], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let out = '';
  const watchers: Array<() => void> = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const watcher of [...watchers]) watcher();
  });
  const closed = new Promise<string>((resolve) => child.on('close', () => resolve(out.replace(/\r\n/g, '\n'))));
  cleanups.push(() => child.kill('SIGKILL'));
  return {
    child,
    screen: () => out.replace(/\r\n/g, '\n'),
    closed,
    shows: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            watchers.splice(watchers.indexOf(check), 1);
            resolve(match);
          }
        };
        watchers.push(check);
        void closed.then(() => reject(new Error(`the terminal closed without ${pattern}: ${out}`)));
        check();
      }),
  };
}

/** A folder with a FIFO for the sandbox's stdout; resolves the first line written to it. */
function urlFifo(): { dir: string; fifo: string; url: Promise<string> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-sandbox-tty-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = path.join(dir, 'sandbox.url');
  execFileSync('mkfifo', [fifo]);
  const url = new Promise<string>((resolve, reject) => {
    let text = '';
    createReadStream(fifo, 'utf8')
      .on('data', (chunk) => {
        text += chunk;
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      })
      .on('error', reject);
  });
  return { dir, fifo, url };
}

const sandboxCommand = (args: string): string => `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} sandbox --port 0 ${args}`;

async function deleteTwice(url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${url}/plants/7`, { method: 'DELETE', headers: { Authorization: 'Bearer sandbox-token' } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

describe.runIf(process.platform === 'linux')('the sandbox at a terminal', () => {
  it('in the foreground: says Ctrl-C stops it, logs each request, and a typed ^C stops it', async () => {
    const { dir, url } = urlFifo();
    const terminal = onTerminal(`${sandboxCommand('')} > sandbox.url`, dir);
    expect(await deleteTwice(await url)).toEqual([204, 400]);
    await terminal.shows(/DELETE \/plants\/7 400/);
    terminal.child.stdin?.write('\x03');
    const screen = await terminal.closed;
    expect(screen).toContain('Plant Store sandbox: plants 1..100. Ctrl-C stops it. To use it:');
    expect(screen).toMatch(/DELETE \/plants\/7 204 [\d.]+ms\nDELETE \/plants\/7 400 [\d.]+ms\n/);
    expect(screen).toContain('sandbox stopped');
  });

  it('in the background (&, under job control): no request log, and the banner says how to stop it, not Ctrl-C', async () => {
    const { dir, url } = urlFifo();
    const terminal = onTerminal(`set -m; ${sandboxCommand('')} > sandbox.url & wait`, dir);
    const base = await url;
    const [, pid] = await terminal.shows(/kill (\d+) stops it\. To use it:/);
    expect(await deleteTwice(base)).toEqual([204, 400]);
    // A request answered after those: the sandbox went through its log step for both of them.
    await deleteTwice(base);
    process.kill(Number(pid), 'SIGTERM');
    const screen = await terminal.closed;
    expect(screen).not.toContain('Ctrl-C');
    expect(screen).not.toMatch(/DELETE \/plants/);
    expect(screen).toContain('sandbox stopped');
  });

  it('-q in the foreground: nothing but the URL it wrote to its stdout', async () => {
    const { dir, url } = urlFifo();
    const terminal = onTerminal(`${sandboxCommand('-q')} > sandbox.url; echo "[exit $?]"`, dir);
    expect(await url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await deleteTwice(await url)).toEqual([204, 400]);
    terminal.child.stdin?.write('\x03');
    // sh is interrupted too; what the terminal shows is all the sandbox printed.
    const screen = await terminal.closed;
    expect(screen).not.toMatch(/Plant Store sandbox|DELETE|sandbox stopped/);
  });
});
