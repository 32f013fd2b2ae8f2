// Issue 41 item 5, through the built CLI: `journal status --watch` over two shards that runs
// write while it watches (the sandbox answering each request after 300 ms, two in flight a
// shard: a few seconds of run). At a real terminal (tmux) a block redrawn in place, never
// scrolled, within the width, and the job said finished, after which the watch ends by itself
// with exit 0; through a pipe a line per change, never the same totals twice in a row; Ctrl-C
// (tmux) and SIGTERM (pipe) end it with exit 0 and a clean terminal, while the run that holds the
// journal goes on undisturbed and finishes it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { BIN, finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { closedAfter, ownConfigDir } from '../helpers/per-test.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';
import { HAS_TMUX, tmux, untilScreen } from '../helpers/terminal.js';
import { startPlantCountingServer } from './plant-counting-server.js';

/**
 * Few ids, each answered slowly: the runs last as long (the watch needs seconds of them), and each
 * request costs the runs and the sandbox CPU, not the wait (300 ids at 100 ms took a third more).
 */
const IDS = 100;
const TOKEN = 'sandbox-token';
const FINISHED = 'finished: every shard went through every id';

/** What a test owns: its config folder and its server, each undone when the test finishes (the tests run at once). */
interface Job {
  dir: string;
  sandbox: Pick<SandboxProcess, 'url'>;
  journalOf(shard: number): string;
}

/** A job against the slow sandbox; `{ slow: false }`: against a loopback server in this process, for a test that only needs the job done. */
async function jobFor(context: TestContext, { slow = true } = {}): Promise<Job> {
  const dir = ownConfigDir(context);
  const journalOf = (shard: number) => path.join(dir, `dead-plants-${shard}.journal`);
  if (!slow) return { dir, sandbox: closedAfter(context, await startPlantCountingServer({ plants: IDS, token: TOKEN })), journalOf };
  const sandbox = await startSandboxProcess(['--plants', String(IDS), '--latency', '300ms'], {}, { log: false });
  context.onTestFinished(async () => {
    await sandbox.stop();
  });
  return { dir, sandbox, journalOf };
}

/**
 * Two shards of 1..IDS, each its own journal, started now; resolves once both journals have their
 * start line. At the default 2 in flight each shard takes ~7 s against the slow sandbox: long enough
 * to watch. A test that only needs the job done asks for more.
 */
async function startShards(job: Job, context: TestContext, concurrency = 2): Promise<Array<Promise<{ code: number | null }>>> {
  const { dir, sandbox, journalOf } = job;
  const env = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url, PLANTSTORE_CONFIG_DIR: dir };
  const input = `${Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n')}\n`;
  const runs = [0, 1].map((shard) => {
    const child = startPlantstore(
      ['delete', '--shard', `${shard}/2`, '--journal', journalOf(shard), '--concurrency', String(concurrency), '--stdin'],
      {
        env,
        input,
      },
    );
    context.onTestFinished(() => void child.kill('SIGKILL'));
    return finished(child);
  });
  // Polls the files, not the clock: the test's timeout is the hang guard.
  while (![0, 1].every((shard) => existsSync(journalOf(shard)) && readFileSync(journalOf(shard), 'utf8').includes('"start"'))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return runs;
}

/** `journal status --watch` of both shards in a tmux pane `columns` wide; the screen, and the screen with its history. */
function watchAtTerminal(
  job: Job,
  context: TestContext,
  name: string,
  columns: number,
): { pane(): string; history(): string; socket: string } {
  const { dir, journalOf } = job;
  const script = path.join(dir, `${name}.sh`);
  writeFileSync(
    script,
    [
      // A shell that outlives the Ctrl-C sent to its foreground job, to say how that job exited.
      "trap ':' INT",
      `export PLANTSTORE_CONFIG_DIR=${path.join(dir, 'reader')} NO_COLOR=1`,
      `${process.execPath} ${BIN} journal status --watch ${journalOf(0)} ${journalOf(1)}`,
      'echo "[exit $?]"',
      'sleep 600',
    ].join('\n'),
  );
  const socket = `plantstore-watch-${process.pid}-${name}`;
  tmux(socket, 'new-session', '-d', '-x', String(columns), '-y', '24', `bash ${script}`);
  context.onTestFinished(() => void spawnSync('tmux', ['-L', socket, 'kill-server']));
  return {
    socket,
    pane: () => tmux(socket, 'capture-pane', '-p'),
    history: () => tmux(socket, 'capture-pane', '-p', '-S', '-', '-E', '-'),
  };
}

const rowsOf = (screen: string): string[] => screen.split('\n').filter((row) => row.trim() !== '');

// The tests run at once, each with its own sandbox and journals: most of their time is waiting on the
// slow sandbox, which overlaps.
describe.skipIf(!HAS_TMUX)('journal status --watch at a terminal (tmux)', { concurrent: true }, () => {
  it('redraws one block in place while the shards run, within the width, then says the job finished and exits 0', async (context) => {
    const { expect } = context;
    const job = await jobFor(context);
    const runs = await startShards(job, context);
    const columns = 60;
    const watch = watchAtTerminal(job, context, 'block', columns);

    // While they run: each shard's line, a rate and a time left once two readings are in.
    const running = await untilScreen(
      watch.pane,
      (screen) => /^shard 0\/2 +running, \d+ of \d+ decided/m.test(screen) && /^left +\d+:\d\d/m.test(screen),
    );
    expect(running).toMatch(/^rate +[\d.]+\/s over the last 10 s/m);
    for (const row of running.split('\n')) expect(row.length).toBeLessThanOrEqual(columns - 1);
    // Drawn at least twice by now (a rate needs two readings), over itself: never scrolled into the history.
    const history = rowsOf(watch.history());
    expect(history.filter((row) => row.startsWith('decided'))).toHaveLength(1);
    expect(history.filter((row) => row.startsWith('shard 0/2'))).toHaveLength(1);

    // Made narrower, then wide again: each redraw reads the width anew, and leaves no row behind on
    // the screen (tmux rewraps the rows a resize cuts, and keeps some in its history: not ours to erase).
    tmux(watch.socket, 'resize-window', '-x', '40');
    await untilScreen(watch.pane, (screen) => /^decided/m.test(screen) && screen.split('\n').every((row) => row.length <= 39));
    tmux(watch.socket, 'resize-window', '-x', String(columns));

    // The runs end first (waited for, not read off the screen every 100 ms for seconds); the watch then ends by itself.
    for (const run of await Promise.all(runs)) expect(run.code).toBe(0);
    const done = await untilScreen(watch.pane, (screen) => screen.includes('[exit '));
    // One block, as last drawn, and the exit below it: no second copy, no stale row.
    expect(rowsOf(done)).toEqual([
      'shard 0/2  finished: its 45 ids, each decided',
      'shard 1/2  finished: its 55 ids, each decided',
      `decided    ${IDS} of ${IDS} (100%)`,
      `           ${IDS} deleted, 0 absent, 0 failed, 0 in flight, 0…`,
      expect.stringMatching(/^rate {7}([\d.]+\/s over the last 10 s|unknown)/),
      'left       0:00 (0 ids to decide)',
      `job        ${FINISHED}`,
      '[exit 0]',
    ]);
  }, 90_000);

  it('Ctrl-C ends it with exit 0 and a clean terminal; the run holding the journal goes on and finishes it', async (context) => {
    const { expect } = context;
    const job = await jobFor(context);
    const { dir, sandbox, journalOf } = job;
    const runs = await startShards(job, context);
    const watch = watchAtTerminal(job, context, 'interrupt', 80);
    await untilScreen(watch.pane, (screen) => /^shard 1\/2 +running/m.test(screen));
    tmux(watch.socket, 'send-keys', 'C-c');
    const screen = await untilScreen(watch.pane, (text) => text.includes('[exit '));
    const rows = rowsOf(screen);
    // The block as last drawn, then the exit on a line of its own: no ^C, no half-erased row.
    expect(rows.at(-1)).toBe('[exit 0]');
    expect(rows.at(-2)).toMatch(/^job {8}unfinished/);
    expect(screen).not.toContain('^C');
    // The runs were not disturbed: each finishes, and the journals read finished.
    for (const run of await Promise.all(runs)) expect(run.code).toBe(0);
    const status = await runPlantstore(['--json', 'journal', 'status', journalOf(0), journalOf(1)], {
      env: { PLANTSTORE_CONFIG_DIR: path.join(dir, 'reader') },
    });
    expect(JSON.parse(status.stdout)).toMatchObject({ finished: true, deleted: IDS });
    // Each run took its lock and gave it back; the watch took none. The journal resumes as ever.
    expect(existsSync(`${journalOf(0)}.lock`)).toBe(false);
    const again = await runPlantstore(['delete', '--shard', '0/2', '--journal', journalOf(0), '--stdin'], {
      env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url, PLANTSTORE_CONFIG_DIR: dir },
      input: `${Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n')}\n`,
    });
    expect(again.code, again.stderr).toBe(0);
  }, 90_000);
});

describe.concurrent('journal status --watch through a pipe', () => {
  it('prints a line per change while the shards run, the shards as they finish, and ends by itself, exit 0', async (context) => {
    const { expect } = context;
    const job = await jobFor(context);
    const { dir, journalOf } = job;
    const runs = await startShards(job, context);
    const env = { PLANTSTORE_CONFIG_DIR: path.join(dir, 'reader') };
    const started = Date.now();
    const watch = await finished(startPlantstore(['journal', 'status', '--watch', journalOf(0), journalOf(1)], { env }));
    const seconds = (Date.now() - started) / 1000;
    for (const run of await Promise.all(runs)) expect(run.code).toBe(0);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).not.toContain('\x1b');
    const lines = watch.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      expect.stringMatching(/^shard 0\/2 running, \d+ of 45 decided$/),
      expect.stringMatching(/^shard 1\/2 running, \d+ of 55 decided$/),
    ]);
    const totals = lines.filter((line) => line.startsWith('decided '));
    // More than one reading while they ran; never the same totals twice in a row; at most one a second.
    expect(totals.length).toBeGreaterThan(1);
    for (let i = 1; i < totals.length; i++) expect(totals[i]).not.toBe(totals[i - 1]);
    expect(totals.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(totals.at(-1)).toMatch(
      new RegExp(`^decided ${IDS} of ${IDS} \\(100%\\): ${IDS} deleted, 0 absent, 0 failed, 0 in flight, 0 not sent;`),
    );
    expect(lines).toContain('shard 0/2 finished: its 45 ids, each decided');
    expect(lines.at(-1)).toBe(`job ${FINISHED}`);
  }, 90_000);

  it('over a job finished from the start, says so at once and exits 0; --json gives one object', async (context) => {
    const { expect } = context;
    const job = await jobFor(context, { slow: false });
    const { dir, journalOf } = job;
    for (const run of await Promise.all(await startShards(job, context, 64))) expect(run.code).toBe(0);
    const env = { PLANTSTORE_CONFIG_DIR: path.join(dir, 'reader') };
    const watch = await runPlantstore(['--json', 'journal', 'status', '--watch', journalOf(0), journalOf(1)], { env });
    expect(watch.code, watch.stderr).toBe(0);
    const objects = watch.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects).toHaveLength(1);
    expect(objects[0]).toMatchObject({ finished: true, ids: IDS, decided: IDS, deleted: IDS, notSent: 0, left: 0, secondsLeft: 0 });
  }, 90_000);

  it('SIGTERM ends it with exit 0 while the runs go on', async (context) => {
    const { expect } = context;
    const job = await jobFor(context);
    const { dir, journalOf } = job;
    const runs = await startShards(job, context);
    const env = { PLANTSTORE_CONFIG_DIR: path.join(dir, 'reader') };
    const child = startPlantstore(['journal', 'status', '--watch', journalOf(0), journalOf(1)], { env });
    const ended = finished(child);
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    child.kill('SIGTERM');
    const watch = await ended;
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stderr).toBe('');
    for (const run of await Promise.all(runs)) expect(run.code).toBe(0);
  }, 90_000);
});
