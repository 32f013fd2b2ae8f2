// The sandbox's pressure options against the built CLI, as the README rehearses them: a share
// of 503s the CLI retries, a rate whose 429s it reports as throttling, a capacity its
// --concurrency auto settles near, and a latency long enough for its progress line. Loopback
// only; every assertion is on counts and reports (the sandbox's request log, the CLI's
// summary and --verbose lines), none on how long anything took.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, it, type TestContext } from 'vitest';
import { BIN, type RunResult, runPlantstore } from '../helpers/cli.js';
import { ownConfigDir } from '../helpers/per-test.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';

/** A sandbox process of this test's own (the tests of this file run at once), stopped when it finishes. */
async function sandbox(context: TestContext, args: string[]): Promise<SandboxProcess> {
  const started = await startSandboxProcess(args);
  context.onTestFinished(async () => {
    await started.stop('SIGTERM');
  });
  return started;
}

const ids = (count: number): string => Array.from({ length: count }, (_, n) => `${n + 1}\n`).join('');

function envFor(context: TestContext, sb: SandboxProcess): Record<string, string> {
  return { PLANTSTORE_CONFIG_DIR: ownConfigDir(context), PLANTSTORE_BASE_URL: sb.url, PLANTSTORE_TOKEN: 'sandbox-token' };
}

/** `plantstore delete --stdin` of ids 1..count against the sandbox. */
function deleteAll(context: TestContext, sb: SandboxProcess, count: number, flags: string[] = []): Promise<RunResult> {
  return runPlantstore(['delete', '--stdin', ...flags], { env: envFor(context, sb), input: ids(count) });
}

/** Requests the sandbox answered with `status`, from its log (`DELETE /plants/7 503 0.4ms`). */
const answered = (sb: SandboxProcess, status: number): number =>
  sb.requestLog().filter((line) => line.split(' ')[2] === String(status)).length;
const refusals = (stderr: string): number | undefined => {
  const match = /throttled: the server refused (\d+) requests? \(429\/503\)/.exec(stderr);
  return match ? Number(match[1]) : undefined;
};
const settledAt = (stderr: string): number => Number(/concurrency settled at (\d+)/.exec(stderr)?.[1]);

// Each test has its own sandbox processes and config folders: the latencies and rates they wait on overlap.
describe.concurrent('--fail: a share of 503s with Retry-After, which the CLI retries', () => {
  it('a batch of 200 still exits 0, each 503 retried after its Retry-After; the same seed fails the same requests', async (context) => {
    const { expect } = context;
    const failures: number[] = [];
    for (const attempt of [1, 2]) {
      const sb = await sandbox(context, ['--plants', '200', '--fail', '10%', '--retry-after', '0', '--seed', '1']);
      const run = await deleteAll(context, sb, 200, ['--verbose']);
      expect(run.code, `run ${attempt}: ${run.stderr.slice(-500)}`).toBe(0);
      expect(run.stdout.split('\n').filter((line) => line.startsWith('Deleted plant'))).toHaveLength(200);
      const unavailable = answered(sb, 503);
      expect(unavailable).toBeGreaterThan(5);
      // Each 503 is retried, as its Retry-After asked, and the summary counts it.
      expect(run.stderr.match(/\* retrying in 0s \(Retry-After\): the sandbox fails this request on purpose/g)).toHaveLength(unavailable);
      expect(refusals(run.stderr)).toBe(unavailable);
      expect(answered(sb, 204)).toBe(200);
      failures.push(unavailable);
    }
    expect(failures[1]).toBe(failures[0]);
  });
});

describe.concurrent('--rate: 429 past a rate, which the CLI reports as throttling', () => {
  it('the summary says how many requests the server refused: the 429s of its log', async (context) => {
    const { expect } = context;
    const sb = await sandbox(context, ['--plants', '200', '--rate', '50/s']);
    const run = await deleteAll(context, sb, 200);
    expect(run.code, run.stderr.slice(-500)).toBe(0);
    const tooMany = answered(sb, 429);
    expect(tooMany).toBeGreaterThan(0);
    expect(refusals(run.stderr)).toBe(tooMany);
    expect(answered(sb, 204)).toBe(200);
  });
});

describe.runIf(process.platform === 'linux').concurrent('--latency: a batch slow enough for the progress line', () => {
  it('at a terminal, with stdout in a file, the progress line counts the ids', async (context) => {
    const { expect } = context;
    const sb = await sandbox(context, ['--plants', '120', '--latency', '100ms', '--capacity', '4']);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} delete --yes --stdin < ids.txt > /dev/null`;
    const dir = ownConfigDir(context);
    writeFileSync(`${dir}/ids.txt`, ids(120));
    const screen = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: dir,
        env: { ...envFor(context, sb), PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
    expect(screen).toMatch(/\b\d+\/120\b/);
    expect(screen).toMatch(/120 deleted, 0 already absent, 0 failed, 0 not sent/);
  });
});

// Last, and alone: where the limit settles depends on the latencies the run measures, which
// the other tests' runs would lengthen if they ran beside it.
describe('--capacity: K served at once, the rest queued', () => {
  it('--concurrency auto settles near the capacity, where without it it climbs to its ceiling', async (context) => {
    const { expect } = context;
    const narrow = await sandbox(context, ['--plants', '400', '--capacity', '4', '--latency', '20ms']);
    const queued = await deleteAll(context, narrow, 400);
    expect(queued.code, queued.stderr.slice(-500)).toBe(0);
    const wide = await sandbox(context, ['--plants', '400', '--latency', '20ms']);
    const free = await deleteAll(context, wide, 400);
    expect(free.code, free.stderr.slice(-500)).toBe(0);
    expect(settledAt(queued.stderr)).toBeGreaterThanOrEqual(2);
    expect(settledAt(queued.stderr)).toBeLessThanOrEqual(16);
    expect(settledAt(free.stderr)).toBeGreaterThan(settledAt(queued.stderr));
  });
});
