// docs/shards.md's "Several processes on one machine", played at a real terminal (tmux), as an
// operator runs it: the dry run of the whole list, then the xargs line, four shards of more than
// 100 ids each sharing one terminal. One decision for the whole job (no shard asks for its
// count: four questions at once on one terminal would each take whichever answer they read),
// and a screen that can be read while they run: every progress line and every summary names
// its shard, and nothing is redrawn over another shard's line. What is read is the screen as
// the terminal shows it (tmux capture-pane), history included, wrapped lines joined.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { idOf, idRange } from '../helpers/batch-output.js';
import { plantstoreOnPath, ROOT } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { HAS_TMUX, tmux, untilScreen } from '../helpers/terminal.js';

const TOKEN = 'shard-terminal-Token-7c2e91';
const { serve } = loopbackCases(TOKEN);
/** About 200 ids a shard: each would be asked about (more than 100), and at 25/s each runs about 8 s, past its first progress line (5 s). */
const IDS = idRange(1, 800);

const DOC = readFileSync(path.join(ROOT, 'docs/shards.md'), 'utf8');
const SECTION = DOC.slice(DOC.indexOf('## Several processes on one machine'));
/** The section's commands, as the page shows them: the dry run's `$ ` line, then the xargs line. */
const dryRun = /^\$ (plantstore delete --dry-run .*)$/m.exec(SECTION)?.[1] ?? '';
const xargs = /^(seq 0 3 \| xargs -P 4 .*)$/m.exec(SECTION)?.[1] ?? '';

describe.skipIf(!HAS_TMUX)('four shards with xargs -P on one terminal (tmux), as docs/shards.md shows', () => {
  it('one decision for the whole job, then every progress line and summary names its shard; each id sent once', async () => {
    expect(dryRun).not.toBe('');
    expect(xargs).not.toBe('');
    const server = await serve((_req, res) => res.writeHead(204).end());
    const home = mkdtempSync(path.join(tmpdir(), 'plantstore-shard-tty-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    const bin = plantstoreOnPath(home);
    const data = path.join(home, 'work');
    mkdirSync(data);
    writeFileSync(path.join(data, 'dead-plants.txt'), `${IDS.join('\n')}\n`);
    const script = path.join(home, 'run.sh');
    writeFileSync(
      script,
      [
        `export PATH=${bin}:$PATH HOME=${home} PLANTSTORE_CONFIG_DIR=${home} NO_COLOR=1`,
        `export PLANTSTORE_BASE_URL=${server.url} PLANTSTORE_TOKEN=${TOKEN} PLANTSTORE_RATE=25/s`,
        `cd ${data}`,
        dryRun,
        xargs,
        'echo "[exit $?]"',
        'sleep 600',
      ].join('\n'),
    );
    const socket = `plantstore-shards-${process.pid}`;
    tmux(socket, 'new-session', '-d', '-x', '100', '-y', '30', `sh ${script}`);
    onTestFinished(() => void spawnSync('tmux', ['-L', socket, 'kill-server']));
    const history = (): string => tmux(socket, 'capture-pane', '-p', '-J', '-S', '-', '-E', '-');

    // Before: four "Type 2xx to go on" questions at once, and the job waits for answers forever.
    const screen = await untilScreen(history, (text) => text.includes('[exit ') || /Type \d+ to go on/.test(text));
    const lines = screen.split('\n').filter((row) => row.trim() !== '');
    if (process.env['SHOW_SCREEN']) console.log(screen);
    expect(lines.filter((row) => /Type \d+ to go on|About to delete/.test(row))).toEqual([]);
    expect(lines.at(-1)).toBe('[exit 0]');
    // The one decision: the whole job's count and where it goes.
    // (The dry run names the pace the test sets, PLANTSTORE_RATE.)
    expect(lines[0]).toBe(`dry run: ${IDS.length} requests not sent (profile 'default'; at most 25/s)`);
    expect(lines[1]).toBe(`DELETE ${server.url}/plants/${IDS.at(-1)}  (Authorization: Bearer ***)`);
    // Each shard's progress, plain lines that name it: nothing drawn in place over another's.
    const progress = lines.filter((row) => row.includes('progress') || row.includes('deleting…'));
    for (const row of progress) expect(row).toMatch(/^\[shard [0-3]\/4\] progress: \d+\/\d+ \(\d+%\), /);
    for (const shard of [0, 1, 2, 3]) {
      expect(
        progress.some((row) => row.startsWith(`[shard ${shard}/4] `)),
        `a progress line of shard ${shard}`,
      ).toBe(true);
      expect(lines.filter((row) => row.includes(`left to other shards (shard ${shard}/4) in `))).toHaveLength(1);
    }
    expect(screen).not.toContain('\x1b');
    // Every other row is one of those: no result line (they went to each shard's file), no question.
    expect(lines.slice(2, -1).filter((row) => !progress.includes(row) && !row.includes('left to other shards'))).toEqual([]);
    expect(server.requests.map((r) => idOf(r.url)).sort((a, b) => Number(a) - Number(b))).toEqual(IDS);
  }, 90_000);

  it('without --yes, the four shards ask one at a time, and each count typed reaches the shard that asked', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const home = mkdtempSync(path.join(tmpdir(), 'plantstore-shard-ask-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    const bin = plantstoreOnPath(home);
    writeFileSync(path.join(home, 'dead-plants.txt'), `${IDS.join('\n')}\n`);
    const script = path.join(home, 'run.sh');
    writeFileSync(
      script,
      [
        `export PATH=${bin}:$PATH HOME=${home} PLANTSTORE_CONFIG_DIR=${home} NO_COLOR=1`,
        `export PLANTSTORE_BASE_URL=${server.url} PLANTSTORE_TOKEN=${TOKEN}`,
        `cd ${home}`,
        // The docs' xargs line without --yes: each shard asks for its own count.
        xargs.replace('--yes ', ''),
        'echo "[exit $?]"',
        'sleep 600',
      ].join('\n'),
    );
    const socket = `plantstore-shards-ask-${process.pid}`;
    tmux(socket, 'new-session', '-d', '-x', '200', '-y', '50', `sh ${script}`);
    onTestFinished(() => void spawnSync('tmux', ['-L', socket, 'kill-server']));
    const history = (): string => tmux(socket, 'capture-pane', '-p', '-J', '-S', '-', '-E', '-');
    const questions = (screen: string): string[] => screen.split('\n').filter((row) => /Type \d+ to go on/.test(row));

    const asked: string[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      const screen = await untilScreen(history, (text) => questions(text).length >= turn || text.includes('[exit '));
      // Before: four questions on the screen at once, the count typed read by whichever shard came first.
      expect(questions(screen)).toHaveLength(turn);
      const question = questions(screen).at(-1) as string;
      const about = screen.split('\n').filter((row) => row.includes('About to delete'));
      asked.push(/\(shard (\d)\/4\)/.exec(about.at(-1) ?? '')?.[1] ?? '?');
      tmux(socket, 'send-keys', /Type (\d+) to go on/.exec(question)?.[1] ?? '', 'Enter');
    }
    const screen = await untilScreen(history, (text) => text.includes('[exit '));
    if (process.env['SHOW_SCREEN']) console.log(screen);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('nothing sent');
    expect([...asked].sort()).toEqual(['0', '1', '2', '3']);
    expect(server.requests.map((r) => idOf(r.url)).sort((a, b) => Number(a) - Number(b))).toEqual(IDS);
  }, 90_000);
});
