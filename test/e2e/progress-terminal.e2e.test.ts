// The progress line at a real terminal (tmux), with stdout on the same terminal, as a batch is
// usually run: it shows below the result lines while the batch runs, cut to the width, and
// leaves no row behind once the batch is done, at 40, 60 and 80 columns. What is read is the
// screen as the terminal shows it (tmux capture-pane), history included.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { HAS_TMUX, tmux, untilScreen } from '../helpers/terminal.js';

const IDS = 600;
const TOKEN = 'progress-Token-5b1e9c3d';

/** A server that answers each DELETE with 204 after 40 ms: 600 ids at 8 in flight last about 3 s. */
async function slowServer({ onTestFinished }: Pick<TestContext, 'onTestFinished'>): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(204).end(), 40);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The tests run at once, each with its own server, folder and tmux server: most of their time is
// waiting on the slow server, which overlaps.
describe.skipIf(!HAS_TMUX)('the progress line at a terminal, stdout on the same terminal (tmux)', { concurrent: true }, () => {
  it.for([40, 60, 80])(
    'at %i columns: shown while the batch runs, one row, and no row left behind',
    { timeout: 90_000 },
    async (columns, context) => {
      const { expect, onTestFinished } = context;
      const url = await slowServer(context);
      const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-progress-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const ids = path.join(dir, 'ids.txt');
      writeFileSync(ids, `${Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n')}\n`);
      const script = path.join(dir, 'run.sh');
      writeFileSync(
        script,
        [
          `export PLANTSTORE_BASE_URL=${url} PLANTSTORE_TOKEN=${TOKEN} PLANTSTORE_CONFIG_DIR=${dir} NO_COLOR=1`,
          `${process.execPath} ${BIN} delete --yes --concurrency 8 --stdin < ${ids}`,
          'echo "[exit $?]"',
          'sleep 600',
        ].join('\n'),
      );
      const socket = `plantstore-progress-${process.pid}-${columns}`;
      tmux(socket, 'new-session', '-d', '-x', String(columns), '-y', '20', `sh ${script}`);
      onTestFinished(() => void spawnSync('tmux', ['-L', socket, 'kill-server']));
      const pane = (): string => tmux(socket, 'capture-pane', '-p');
      const history = (): string => tmux(socket, 'capture-pane', '-p', '-S', '-', '-E', '-');

      // While it runs: the last row in use is the status line, within the width.
      const running = await untilScreen(pane, (screen) => /deleting… \d+\/600/.test(screen));
      const rows = running.split('\n').filter((row) => row.trim() !== '');
      const status = rows.at(-1) ?? '';
      expect(status).toMatch(/^deleting… \d+\/600/);
      expect(status.length).toBeLessThanOrEqual(columns - 1);

      // Done: every row is a result line, the summary, or the exit; no status line, whole or in part.
      const done = await untilScreen(history, (screen) => screen.includes('[exit '));
      const lines = done.split('\n').filter((row) => row.trim() !== '');
      const results = lines.filter((row) => /^✓ Deleted plant \d+$/.test(row));
      expect(results).toHaveLength(IDS);
      const others = lines.filter((row) => !/^✓ Deleted plant \d+$/.test(row));
      expect(others.some((row) => row.includes('deleting…'))).toBe(false);
      expect(others.at(-1)).toBe('[exit 0]');
      // The summary, which may wrap at a narrow width, and nothing else.
      expect(others.slice(0, -1).join('')).toMatch(/^600 deleted, 0 already absent, 0 failed, 0 not sent in [\d.]+s$/);
    },
  );
});

// Alone, after the others, as before they ran at once: run beside them on a loaded machine, its line
// once read 2/20 decided, not 0/20 (seen once, not looked into).
describe.skipIf(!HAS_TMUX)('the progress line at a terminal while the service is down (tmux)', () => {
  it('while the service is down, the line says so, and for how long (issue 40, items 7 and 11)', async ({ expect, onTestFinished }) => {
    // A gateway whose upstream is gone: every request a 502 page.
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-progress-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const script = path.join(dir, 'run.sh');
    const ids = Array.from({ length: 20 }, (_, i) => String(i + 1)).join(' ');
    writeFileSync(
      script,
      [
        `export PLANTSTORE_BASE_URL=${url} PLANTSTORE_TOKEN=${TOKEN} PLANTSTORE_CONFIG_DIR=${dir} NO_COLOR=1`,
        `${process.execPath} ${BIN} delete --max-outage 30s ${ids}`,
        'echo "[exit $?]"',
        'sleep 600',
      ].join('\n'),
    );
    const socket = `plantstore-progress-${process.pid}-down`;
    tmux(socket, 'new-session', '-d', '-x', '80', '-y', '20', `sh ${script}`);
    onTestFinished(() => void spawnSync('tmux', ['-L', socket, 'kill-server']));
    const pane = (): string => tmux(socket, 'capture-pane', '-p');
    // Before: "deleting… 0/20 (0%), 0.0/s, …" for two minutes, and nothing said why.
    const down = await untilScreen(pane, (screen) => /service down for 0:0[3-9]/.test(screen));
    const status =
      down
        .split('\n')
        .filter((row) => row.trim() !== '')
        .at(-1) ?? '';
    expect(status).toMatch(/^deleting… 0\/20 \(0%\), service down for 0:0\d/);
  }, 90_000);
});
