// Signals against a run whose output nobody reads, and SIGHUP mid-batch: the run reports
// and ends. Real processes and pipes: a paused pipe fills only in the kernel.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { type SummaryCounts, summaryCounts } from '../helpers/batch-output.js';
import { BIN, cleanEnv, endsWithin } from '../helpers/cli.js';
import { closedAfter } from '../helpers/per-test.js';
import { answerCounter, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'signals-Token-0a1b2c3d';

/**
 * A test's own server, answering 204 and counting its answers, and a way to start the CLI at it,
 * killed if still running when the test finishes (the tests of this file run at once).
 */
async function served(context: TestContext) {
  const answers = answerCounter();
  const server = closedAfter(
    context,
    await startScriptedServer((_req, res) => {
      res.writeHead(204).end();
      answers.answer();
    }),
  );
  function start(args: string[], stdio: ('pipe' | number)[]): ChildProcess {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url }),
      stdio: stdio as ['pipe', 'pipe', 'pipe'],
    });
    context.onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    return child;
  }
  return { answers, start };
}
type Served = Awaited<ReturnType<typeof served>>;

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join('\n');

// Each test has its own server and child: the waits for a stalled reader overlap.
describe.concurrent('a reader that stops reading stdout', () => {
  it('the first SIGTERM ends the run: report on stderr, exit 143, without waiting for the reader', async (context) => {
    const { expect } = context;
    const { code, stderr } = await terminatedWithReaderStalled(await served(context), 20_000);
    expect(code).toBe(143);
    expect(stderr).toMatch(/^interrupted: \d+ of 20000 deleted before the interrupt/m);
  });
});

/**
 * `--json delete --stdin` of `total` ids with stdout never read, sent SIGTERM once the run is
 * parked: the pipe (64 KiB) is full and the reader behind, so the answers stop. (A readiness
 * poll, not a timing assertion: signalling earlier only makes a test weaker.)
 */
async function terminatedWithReaderStalled({ answers, start }: Served, total: number): Promise<{ code: number | null; stderr: string }> {
  const child = start(['--json', 'delete', '--stdin'], ['pipe', 'pipe', 'pipe']);
  child.stdin?.end(ids(total));
  child.stdout?.pause();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await answers.atLeast(1_000);
  for (let before = -1; before !== answers.answered; ) {
    before = answers.answered;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  child.kill('SIGTERM');
  const result = await endsWithin(child, 20_000);
  return { code: result.code, stderr };
}

describe.concurrent('a reader that stops reading stdout, in a large batch', () => {
  it('SIGTERM: the ids left are counted, not written for it: the summary and the folded line still add up to every id', async (context) => {
    const { expect } = context;
    const total = 200_000;
    const { code, stderr } = await terminatedWithReaderStalled(await served(context), total);
    expect(code).toBe(143);
    const counts = summaryCounts(stderr);
    expect(counts).toBeDefined();
    const { deleted, absent, failed, inFlight, notSent } = counts as SummaryCounts;
    expect(deleted + absent + failed + inFlight + notSent).toBe(total);
    expect(notSent).toBeGreaterThan(total - 20_000);
    expect(stderr).toContain(`… and ${notSent - 10} more plants not sent`);
  });
});

describe.concurrent('SIGHUP mid-batch (the terminal of `plantstore delete --stdin < ids > log 2>&1` closed)', () => {
  it('is handled like SIGTERM: every result and the report reach the log, exit 129', async (context) => {
    const { expect, onTestFinished } = context;
    const { answers, start } = await served(context);
    const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-hup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const log = path.join(dir, 'log');
    const fd = openSync(log, 'w');
    const child = start(['delete', '--stdin', '--concurrency', '2'], ['pipe', fd, fd]);
    closeSync(fd);
    child.stdin?.end(ids(200_000));
    await answers.atLeast(50);
    child.kill('SIGHUP');
    const result = await endsWithin(child, 20_000);
    expect(result.code).toBe(129);
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    const deleted = lines.filter((line) => line.startsWith('Deleted plant ')).length;
    const cutOff = lines.filter((line) => /^✗ plant \d+: interrupted while waiting for the answer/.test(line)).length;
    // Every request the server answered is in the log: deleted, or cut off by the signal with its answer on the way.
    expect(deleted).toBeLessThanOrEqual(answers.answered);
    expect(deleted + cutOff).toBeGreaterThanOrEqual(answers.answered);
    expect(lines.at(-1)).toBe(
      `interrupted: ${deleted} of 200000 deleted before the interrupt; the rest were not, or may not have been: run it again with --ignore-missing --missing-error CODE to finish, CODE being the API's error code for "no such plant" (a 404 Error object counts without it); next time, give it a --journal FILE (plantstore delete --journal FILE …) to resume with the same command`,
    );
  });
});
