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
// on a free port, and puts its URL in place of the shown one, in commands and output alike.
// Whatever a page starts in the background ends with its shell's process group.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type OnTestFinishedHandler } from 'vitest';
import { plantstoreOnPath, ROOT } from '../helpers/cli.js';
import { playPage } from '../helpers/page-player.js';
import { pageSteps } from '../helpers/page-steps.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
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
    const sandbox = await startSandboxProcess();
    onTestFinished(() => void sandbox.stop());
    const here = (text: string) => text.split(SHOWN_URL).join(sandbox.url);
    const shell = readerShell(onTestFinished);
    expect(await playPage(steps, shell, here)).toEqual([]);
    // Whatever the page started in the background ends with its shell.
    await shell.close();
    expect(groupMembers(shell.pid)).toEqual([]);
  }, 60_000);
});
