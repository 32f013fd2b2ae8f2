// The shell the docs test plays a page in (test/helpers/shell-session.ts) and the player
// (test/helpers/page-player.ts): state carries from step to step as in a reader's terminal, each
// step's output and code are its own, a failing command is named by its line, and nothing a
// page starts in the background outlives the session.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { playPage } from '../helpers/page-player.js';
import { pageSteps } from '../helpers/page-steps.js';
import { groupMembers, type ShellSession, startShellSession } from '../helpers/shell-session.js';

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function session(): { shell: ShellSession; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-shell-'));
  const shell = startShellSession({ cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir } });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => shell.close(),
  );
  return { shell, dir };
}

/** Whether process `pid` runs (a zombie does not). */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  const text = readFileSync(stat, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2)[0] !== 'Z';
}

describe('startShellSession', () => {
  it('a variable exported in one step is seen by the next, on a terminal too', async () => {
    const { shell } = session();
    expect(await shell.run('export PLANTSTORE_BASE_URL=http://127.0.0.1:9')).toEqual({ exit: 0, lines: [] });
    expect(await shell.run('echo "$PLANTSTORE_BASE_URL"')).toEqual({ exit: 0, lines: ['http://127.0.0.1:9'] });
    expect(await shell.onTerminal('echo "$PLANTSTORE_BASE_URL"')).toEqual({ exit: 0, lines: ['http://127.0.0.1:9'] });
  });

  it('a variable set without export reaches the next step, but not a command on the terminal (a new shell)', async () => {
    const { shell } = session();
    await shell.run('id=42');
    expect((await shell.run('echo "[$id]"')).lines).toEqual(['[42]']);
    expect((await shell.onTerminal('echo "[$id]"')).lines).toEqual(['[]']);
  });

  it('a cd carries to the next step, and files stay', async () => {
    const { shell, dir } = session();
    await shell.run('mkdir -p work && cd work && seq 3 > ids.txt');
    expect(await shell.run('pwd')).toEqual({ exit: 0, lines: [path.join(dir, 'work')] });
    expect((await shell.onTerminal('pwd')).lines).toEqual([path.join(dir, 'work')]);
    expect((await shell.run('wc -l < ids.txt')).lines).toEqual(['3']);
  });

  it("each step has its own output (stderr with stdout) and exit code, and `$?` is the step before's", async () => {
    const { shell } = session();
    expect(await shell.run('echo out; echo err >&2; printf "no newline"; (exit 3)')).toEqual({
      exit: 3,
      lines: ['out', 'err', 'no newline'],
    });
    expect(await shell.run('echo "was $?"')).toEqual({ exit: 0, lines: ['was 3'] });
    expect(await shell.onTerminal('exit 4')).toEqual({ exit: 4, lines: [] });
  });

  it('a step cannot read the steps after it: its stdin is empty, unless it redirects its own', async () => {
    const { shell } = session();
    expect(await shell.run('cat')).toEqual({ exit: 0, lines: [] });
    expect(await shell.run('echo still here')).toEqual({ exit: 0, lines: ['still here'] });
    expect(await shell.run('echo piped | cat')).toEqual({ exit: 0, lines: ['piped'] });
  });

  it('a background job the page started is gone once the session is closed, with every process of its group', async () => {
    const { shell } = session();
    await shell.run('sleep 300 > /dev/null & echo $! > job.pid');
    await shell.run('sh -c "sleep 301" > /dev/null &');
    const job = Number((await shell.run('cat job.pid')).lines[0]);
    expect(running(job)).toBe(true);
    expect(groupMembers(shell.pid).length).toBeGreaterThanOrEqual(3); // the shell and its two jobs
    await shell.close();
    expect(running(job)).toBe(false);
    expect(groupMembers(shell.pid)).toEqual([]);
  });

  it('a step that ends the shell is an error, not a hang', async () => {
    const { shell } = session();
    await expect(shell.run('exec false')).rejects.toThrow(/the shell ended/);
  });
});

describe('playPage', () => {
  it('a failing sh command fails the page with its line; the steps after it still run', async () => {
    const { shell } = session();
    const steps = pageSteps(['Text.', '```sh', 'true', 'false', 'echo after > after.txt', 'false   # (exit 1)', '```'].join('\n'));
    expect(await playPage(steps, shell)).toEqual(['line 4: false\n  exit 1, the page says 0; it printed: nothing']);
    expect((await shell.run('cat after.txt')).lines).toEqual(['after']);
  });

  it('a command that exits 0 where its comment announces another code fails too', async () => {
    const { shell } = session();
    expect(await playPage(pageSteps('```sh\necho hi   # (exit 1)\n```'), shell)).toEqual([
      'line 2: echo hi   # (exit 1)\n  exit 0, the page says 1; it printed:\n    hi',
    ]);
  });

  it('a console command is held to its output and its exit code, with the state the page left', async () => {
    const { shell } = session();
    const markdown = [
      '```sh',
      'export WHO=reader',
      '```',
      '```console',
      '$ echo "hello $WHO"',
      'hello reader',
      '$ echo other',
      'shown',
      '[exit 2]',
      '```',
    ].join('\n');
    expect(await playPage(pageSteps(markdown), shell)).toEqual([
      'line 7: $ echo other\n  the page shows:\n    shown\n  it printed:\n    other',
      'line 7: $ echo other\n  exit 0, the page says 2',
    ]);
  });

  it('a setup step must exit 0', async () => {
    const { shell } = session();
    expect(await playPage(pageSteps('<!-- setup: false -->\n'), shell)).toEqual([
      'line 1: false\n  exit 1, the page says 0; it printed: nothing',
    ]);
  });
});
