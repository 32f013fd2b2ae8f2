// Issue 41 item 3: a slow run says why. Against `plantstore sandbox --fail 30%` (503 with
// Retry-After: 1), the --progress line a CI log gets (stderr not a terminal) names the share of
// 503s as soon as the pace is cut; after `--fail 100%`, the summary never says the run is
// "sending at full speed again". Loopback only; the assertions wait on output, never on a clock.
import { afterEach, describe, expect, it } from 'vitest';
import { finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';

let running: SandboxProcess[] = [];
let configs: Array<ReturnType<typeof tempConfigDir>> = [];

afterEach(async () => {
  await Promise.all(running.map((sandbox) => sandbox.stop('SIGTERM')));
  running = [];
  for (const config of configs) config.cleanup();
  configs = [];
});

async function sandbox(args: string[]): Promise<SandboxProcess> {
  const started = await startSandboxProcess(args, {}, { log: false });
  running.push(started);
  return started;
}

const ids = (count: number): string => Array.from({ length: count }, (_, n) => `${n + 1}\n`).join('');

function envFor(sb: SandboxProcess): Record<string, string> {
  const config = tempConfigDir();
  configs.push(config);
  return { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: sb.url, PLANTSTORE_TOKEN: 'sandbox-token' };
}

describe('--progress outside a terminal names why the pace is cut', () => {
  it('sandbox --fail 30%: a progress line says "503 on N% of requests (Retry-After 1s)", without waiting for the 30 s line', async () => {
    const sb = await sandbox(['--plants', '400', '--fail', '30%', '--seed', '1']);
    const child = startPlantstore(['delete', '--stdin', '--quiet', '--progress'], { env: envFor(sb), input: ids(400) });
    const ended = finished(child);
    const line = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /^progress: .*$/m.exec(stderr)?.[0];
        if (found !== undefined) resolve(found);
      });
      void ended.then((result) => reject(new Error(`the run ended with no progress line: ${result.stderr.slice(-800)}`)));
    });
    child.kill('SIGINT');
    await ended;
    expect(line).toMatch(/^progress: \d+\/400 \(\d+%\), 503 on \d+% of requests \(Retry-After 1s\)[,;] /);
    const share = Number(/503 on (\d+)%/.exec(line)?.[1]);
    expect(share).toBeGreaterThanOrEqual(10);
    expect(share).toBeLessThanOrEqual(70);
  });
});

describe('the summary after a service that never recovered', () => {
  it('sandbox --fail 100%: the run gives up, and its summary says the service was still down, not "full speed again"', async () => {
    // Enough ids and time for an outage to begin (24 answers in a row failing, for a second and
    // more) and for the slow start after the cut to run out meanwhile: main said "full speed again".
    const sb = await sandbox(['--plants', '300', '--fail', '100%']);
    const run = await runPlantstore(['delete', '--stdin', '--quiet', '--max-outage', '10s'], { env: envFor(sb), input: ids(300) });
    expect(run.code, run.stderr.slice(-800)).toBe(6);
    const summary = run.stderr.split('\n').find((line) => /^0 deleted, /.test(line)) ?? '';
    expect(summary).toMatch(/; throttled: the server refused \d+ requests \(429\/503\), the service was down once \(/);
    expect(summary).not.toMatch(/full speed/);
    expect(summary).toMatch(/\), still down at the end, /);
  }, 40_000);
});
