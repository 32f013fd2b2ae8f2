// The docs run: every ```console block of the README and of docs/*.md is played, command by
// command, as a user would type it (sh, `plantstore` on the PATH, a fresh home), against a
// sandbox of its own per file, and each command's output and exit code must be what the
// page shows (test/helpers/console-blocks.ts reads the blocks). The pages say
// http://127.0.0.1:8080, the sandbox's default; the file's sandbox listens on a free port
// instead, and that URL is put in its place, in the commands and in the output alike.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { matchesShown, shownCommands } from '../helpers/console-blocks.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const SHOWN_URL = 'http://127.0.0.1:8080';
const docs = existsSync(path.join(ROOT, 'docs'))
  ? readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
  : [];
const PAGES = ['README.md', ...docs];

/**
 * Runs `command` with sh in `cwd`, stdout and stderr into one stream as a terminal shows them;
 * on a pseudo-terminal (util-linux `script`, which passes the exit code on) when `tty`.
 */
function play(command: string, tty: boolean, cwd: string, env: Record<string, string>): Promise<{ exit: number | null; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = tty
      ? spawn('script', ['-qec', command, '/dev/null'], { cwd, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'ignore'] })
      : spawn('sh', ['-c', `{ ${command}\n} 2>&1`], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (exit) => {
      const text = out.replace(/\r\n/g, '\n').replace(/\n$/, '');
      resolve({ exit, lines: text === '' ? [] : text.split('\n') });
    });
  });
}

describe.each(PAGES)('the sessions %s shows', (page) => {
  const commands = shownCommands(readFileSync(path.join(ROOT, page), 'utf8'));

  it('print what the page shows, and end as it says', async () => {
    if (page === 'README.md') expect(commands.length).toBeGreaterThan(0);
    if (commands.length === 0) return;
    const home = mkdtempSync(path.join(tmpdir(), 'plantstore-docs-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    // `plantstore` on the PATH, as after npm install -g: the built CLI under the project's Node.
    const bin = path.join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'plantstore'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(path.join(bin, 'plantstore'), 0o755);
    const sandbox = await startSandboxProcess();
    onTestFinished(() => void sandbox.stop());
    const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: home, LANG: 'C.UTF-8' };
    const cwd = path.join(home, 'work');
    mkdirSync(cwd);
    const here = (text: string) => text.split(SHOWN_URL).join(sandbox.url);
    for (const shown of commands) {
      const ran = await play(here(shown.command), shown.tty, cwd, env);
      const expected = shown.output.map(here);
      const where = `${page}:${shown.line}: $ ${shown.command}`;
      if (!shown.setup) expect.soft(matchesShown(expected, ran.lines) ? expected : ran.lines, where).toEqual(expected);
      expect.soft(ran.exit, `${where}: exit code`).toBe(shown.exit);
    }
  });
});
