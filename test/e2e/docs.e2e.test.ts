// The docs run: each page (the README, docs/*.md) is read and run in order, as a newcomer does,
// in ONE shell per page (test/helpers/shell-session.ts): what a step leaves (a cd, an export, a
// file, a plant deleted, a sandbox started in the background) is there for the next. The page's
// steps are read by test/helpers/page-steps.ts: each ```console command must print what the
// page shows and end as it says; each ```sh command must exit 0, or the code its `(exit N)`
// comment announces; a block after `<!-- not run: REASON -->` is not run. The shell has
// `plantstore` on its PATH (the built CLI), a fresh HOME and a working folder of its own.
//
// The pages say http://127.0.0.1:8080, the default of a plain `plantstore sandbox`, which the
// README starts in the foreground (so it is not run): this file starts that sandbox per page,
// on a free port, and puts its URL in place of the shown one, in commands and output alike. It
// serves in this process (the server `plantstore sandbox` runs, with the command's defaults): the
// pages are about the commands they show, and a sandbox a page starts itself (the README's `&`)
// still runs as the process it writes; the sandbox command is tested in sandbox-*.e2e.test.ts.
// Whatever a page starts in the background ends with its shell's process group.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { endsWithin, plantstoreOnPath, ROOT } from '../helpers/cli.js';
import { playPage } from '../helpers/page-player.js';
import { pageSteps } from '../helpers/page-steps.js';
import { startDefaultSandbox } from '../helpers/sandbox-process.js';
import { groupMembers, type ShellSession, startShellSession } from '../helpers/shell-session.js';

const SHOWN_URL = 'http://127.0.0.1:8080';
const docs = existsSync(path.join(ROOT, 'docs'))
  ? readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
  : [];
const PAGES = ['README.md', ...docs];

/** A shell as a reader's: `plantstore` on the PATH (the built CLI under the project's Node), a fresh HOME. */
function readerShell(onTestFinished: (fn: OnTestFinishedHandler) => void): ShellSession {
  const home = mkdtempSync(path.join(tmpdir(), 'plantstore-docs-'));
  const bin = plantstoreOnPath(home);
  const cwd = path.join(home, 'work');
  mkdirSync(cwd);
  const shell = startShellSession({ cwd, env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: home, LANG: 'C.UTF-8' } });
  // Its processes end before their folder goes.
  onTestFinished(async () => {
    await shell.close();
    rmSync(home, { recursive: true, force: true });
  });
  return shell;
}

// The pages run side by side: each has its own shell, HOME and sandbox.
describe.concurrent.each(PAGES)('%s, read and run in order in one shell', (page) => {
  const steps = pageSteps(readFileSync(path.join(ROOT, page), 'utf8'));

  it('prints what the page shows, and each command ends as it says', async ({ expect, onTestFinished }) => {
    if (page === 'README.md') expect(steps.filter((step) => step.kind === 'sh').length).toBeGreaterThan(5);
    if (steps.length === 0) return;
    const sandbox = await startDefaultSandbox();
    onTestFinished(() => sandbox.close());
    const here = (text: string) => text.split(SHOWN_URL).join(sandbox.url);
    const shell = readerShell(onTestFinished);
    expect(await playPage(steps, shell, here)).toEqual([]);
    // Whatever the page started in the background ends with its shell.
    await shell.close();
    expect(groupMembers(shell.pid)).toEqual([]);
  }, 60_000);
});

/** The shell blocks of a page, run or not (a reader follows both), with the line each starts at. */
function shellBlocks(markdown: string): Array<{ line: number; body: string }> {
  return [...markdown.matchAll(/^```(?:sh|console)(?: tty)?\n([\s\S]*?)^```$/gm)].map((m) => ({
    line: markdown.slice(0, m.index).split('\n').length,
    body: m[1] as string,
  }));
}

describe('README.md, as a newcomer reads it', () => {
  const markdown = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('stays within 400 lines: details are in the reference', () => {
    expect(markdown.split('\n').length - (markdown.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(400);
  });

  // The README's sections are followed one after another in one folder; docs/shards.md's lines are one job, run several ways.
  it("no two blocks write the same file: a reader following both would mix one's journal or sandbox URL with the other's", () => {
    const writers = new Map<string, number[]>();
    for (const { line, body } of shellBlocks(markdown)) {
      const written = [...body.matchAll(/(?:[^2&]> ?|--journal )"?([\w.$/{}-]+)/g)].map((m) => m[1] as string);
      for (const file of new Set(written.filter((name) => name !== '/dev/null'))) writers.set(file, [...(writers.get(file) ?? []), line]);
    }
    expect([...writers].filter(([, lines]) => lines.length > 1)).toEqual([]);
  });
});

describe.each(PAGES)('%s, followed section after section in one folder', (page) => {
  const markdown = readFileSync(path.join(ROOT, page), 'utf8');

  it('each wait for a sandbox started in the background ends when the sandbox fails to start', async () => {
    const lines = markdown.split('\n');
    const waits = lines.flatMap((text, i) => (/^until \[ -s /.test(text) ? [[lines[i - 1] ?? '', text].join('\n')] : []));
    if (page === 'README.md') expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) {
      expect(wait).toMatch(/^plantstore sandbox .*&\n/);
      const home = mkdtempSync(path.join(tmpdir(), 'plantstore-docs-wait-'));
      // A sandbox that cannot start (its port taken, say): it says so and exits, writing no URL.
      writeFileSync(path.join(home, 'plantstore'), '#!/bin/sh\necho "plantstore: cannot listen" >&2\nexit 3\n');
      chmodSync(path.join(home, 'plantstore'), 0o755);
      const shell = spawn('sh', ['-c', `${wait}\necho waited`], { cwd: home, env: { PATH: `${home}:${process.env['PATH'] ?? ''}` } });
      // Before: `until [ -s sandbox.url ]` waited for ever, and this hang guard killed it.
      const ended = await endsWithin(shell, 10_000);
      rmSync(home, { recursive: true, force: true });
      expect(ended.stdout).toBe('waited\n');
    }
  }, 30_000);
});
