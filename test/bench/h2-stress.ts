// A stress run for one question: can a batch over TLS with HTTP/2 lose answers
// and wait out --timeout? Runs the built CLI (a snapshot of the package, as the
// bench does) many times against the bench's scripted server (net-server.ts)
// offering h2 and http/1.1, in a mix of scenarios (the bench's TLS row, more
// concurrency, 429/503 refusals, answers of varying delay, connections retired
// with GOAWAY, few streams allowed, attempts aborted mid-flight), with --verbose,
// and flags any run where an attempt took STALL_MS or more, timed out (beyond the
// answers made slower than --timeout on purpose), or failed, or an id was not deleted.
// Not part of `npm run bench`: a run of every scenario takes about a minute.
//
//   npx tsx test/bench/h2-stress.ts [rounds]          (default 5 rounds of every scenario)
//   H2_STRESS_ONLY=c8,c64 H2_STRESS_TIMEOUT=10 npx tsx test/bench/h2-stress.ts 10
//   H2_STRESS_QUIET=1: without --verbose (a stall is then seen only as a slow run, a retry or a failure)
//   H2_STRESS_LOAD=n: n busy-looping processes beside the runs, as a loaded machine (other test suites) would be
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCa, issue } from '../helpers/certificates.js';
import { runBatch } from './net-batch.js';
import type { Behaviour } from './net-server.js';
import { startNetServerProcess } from './net-server-process.js';
import { benchEnv, binOf, median, NODE, snapshotPackage } from './proc.js';

const TOKEN = 'bench-token-0123456789';
const STALL_MS = 3000;
// Unset: 10 s. 'default': no --timeout at all (30 s, as the bench runs it).
const timeoutArg = process.env['H2_STRESS_TIMEOUT'] ?? '10';
const quiet = process.env['H2_STRESS_QUIET'] === '1';

interface Scenario {
  name: string;
  behaviour: Behaviour;
  ids: number;
  args: string[];
  /** Requests are sent again by design (refusals, or answers slower than --timeout): more requests than ids is then no sign of a stall. */
  resends?: boolean;
  /** Answers slower than --timeout on purpose: attempts are aborted mid-flight; a stall is then an attempt that outlived its deadline. */
  timesOut?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'c8', behaviour: { latencyMs: 50 }, ids: 1200, args: ['--concurrency', '8'] },
  // Longer than the dispatcher's keep-alive timeout (10 s).
  { name: 'c8-long', behaviour: { latencyMs: 50 }, ids: 2400, args: ['--concurrency', '8'] },
  {
    name: '429-long',
    behaviour: { latencyMs: 20, ratePerSecond: 100, burst: 20 },
    ids: 1500,
    args: ['--concurrency', '64'],
    resends: true,
  },
  { name: 'c32', behaviour: { latencyMs: 50 }, ids: 1200, args: ['--concurrency', '32'] },
  { name: 'c64', behaviour: { latencyMs: 50 }, ids: 1200, args: ['--concurrency', '64'] },
  { name: 'c64-instant', behaviour: { latencyMs: 0 }, ids: 3000, args: ['--concurrency', '64'] },
  { name: 'jitter-c32', behaviour: { latencyMs: 5, jitterMs: 200 }, ids: 1200, args: ['--concurrency', '32'] },
  {
    name: 'tail-c32',
    behaviour: { latencyMs: 20, tailEvery: 50, tailMs: 1000 },
    ids: 1200,
    args: ['--concurrency', '32'],
  },
  {
    name: '429-c64',
    behaviour: { latencyMs: 20, ratePerSecond: 200, burst: 20 },
    ids: 800,
    args: ['--concurrency', '64'],
    resends: true,
  },
  { name: '503-c32', behaviour: { latencyMs: 20, maxInFlight: 4 }, ids: 400, args: ['--concurrency', '32'], resends: true },
  // What the bench server does not do and real ones do: end a connection after so many requests
  // (nginx: GOAWAY after keepalive_requests), and allow fewer streams than --concurrency.
  { name: 'goaway-c8', behaviour: { latencyMs: 20, goAwayAfter: 100 }, ids: 1200, args: ['--concurrency', '8'] },
  { name: 'goaway-c64', behaviour: { latencyMs: 20, goAwayAfter: 100 }, ids: 1200, args: ['--concurrency', '64'] },
  { name: 'goaway-0ms', behaviour: { latencyMs: 0, goAwayAfter: 97 }, ids: 3000, args: ['--concurrency', '64'] },
  { name: 'streams4-c32', behaviour: { latencyMs: 20, maxConcurrentStreams: 4 }, ids: 800, args: ['--concurrency', '32'] },
  // Every 25th answer takes 2.5 s against --timeout 1: streams aborted mid-flight by the attempt's signal
  // (and undici's own headersTimeout, which probes the connection with a PING), then retried.
  {
    name: 'abort-c32',
    behaviour: { latencyMs: 20, tailEvery: 25, tailMs: 2500 },
    ids: 600,
    args: ['--concurrency', '32', '--timeout', '1'],
    timesOut: true,
    resends: true,
  },
  {
    name: 'abort-goaway',
    behaviour: { latencyMs: 10, jitterMs: 20, tailEvery: 25, tailMs: 2500, goAwayAfter: 60 },
    ids: 600,
    args: ['--concurrency', '64', '--timeout', '1'],
    timesOut: true,
    resends: true,
  },
  {
    name: 'streams4-goaway',
    behaviour: { latencyMs: 5, jitterMs: 30, maxConcurrentStreams: 4, goAwayAfter: 50 },
    ids: 800,
    args: ['--concurrency', '32'],
  },
];

const ATTEMPT = /^\[(-?\d+)\] (?:< HTTP (\d+) .*\((\d+(?:\.\d+)?) ms\)|\* failed after (\d+(?:\.\d+)?) ms: (.*))$/;

interface Result {
  scenario: string;
  round: number;
  ms: number;
  code: number | null;
  attempts: number;
  slowest: number;
  timeouts: number;
  otherFailures: string[];
  requests: number;
  connections: number;
  goAways: number;
  versions: string;
  stalled: boolean;
}

function analyse(stderr: string): Pick<Result, 'attempts' | 'slowest' | 'timeouts' | 'otherFailures'> {
  let attempts = 0;
  let slowest = 0;
  let timeouts = 0;
  const otherFailures: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = ATTEMPT.exec(line);
    if (!m) continue;
    attempts++;
    const ms = Number(m[3] ?? m[4]);
    slowest = Math.max(slowest, ms);
    if (m[4] !== undefined) {
      // plantstore's words for an attempt whose deadline fired: "no complete answer ... within 1s (timeout; ...)".
      if (/\(timeout[;)]/.test(m[5] ?? '')) timeouts++;
      else if (otherFailures.length < 5) otherFailures.push(line);
    }
  }
  return { attempts, slowest, timeouts, otherFailures };
}

const rounds = Number(process.argv[2] ?? 5);
const only = process.env['H2_STRESS_ONLY']?.split(',');
const scenarios = only
  ? SCENARIOS.filter((s) => only.some((name) => s.name === name || (name.endsWith('*') && s.name.startsWith(name.slice(0, -1)))))
  : SCENARIOS;
const tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-h2-stress-'));
const pkg = process.env['BENCH_PACKAGE'] ? path.resolve(process.env['BENCH_PACKAGE']) : snapshotPackage(tmp);
const ca = createCa(tmp);
const issued = issue(ca, tmp, 'server', ['IP:127.0.0.1']);
const server = await startNetServerProcess(TOKEN, { cert: issued.cert, key: issued.key });
const results: Result[] = [];
const load: ChildProcess[] = Array.from({ length: Number(process.env['H2_STRESS_LOAD'] ?? 0) }, () =>
  spawn(NODE, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
try {
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const input = `${Array.from({ length: scenario.ids }, (_, i) => String(i + 1)).join('\n')}\n`;
      const batch = await runBatch(server, scenario.behaviour, {
        file: NODE,
        args: [
          binOf(pkg),
          'delete',
          '--stdin',
          ...(timeoutArg === 'default' || scenario.timesOut ? [] : ['--timeout', timeoutArg]),
          ...(quiet ? [] : ['--verbose']),
          ...scenario.args,
        ],
        env: benchEnv(tmp, {
          PLANTSTORE_CONFIG_DIR: path.join(tmp, 'config-unused'),
          PLANTSTORE_TOKEN: TOKEN,
          PLANTSTORE_BASE_URL: server.url,
          PLANTSTORE_CA_CERT: ca.certFile,
        }),
        input,
        timeoutMs: 120_000,
      });
      const seen = analyse(batch.ran.stderr);
      const result: Result = {
        scenario: scenario.name,
        round,
        ms: batch.ran.ms,
        code: batch.ran.code,
        ...seen,
        requests: batch.stats.total,
        connections: batch.stats.connections,
        goAways: batch.stats.goAways,
        versions: Object.entries(batch.stats.byHttpVersion)
          .map(([v, n]) => `${v}:${n}`)
          .join(' '),
        stalled:
          batch.ran.code !== 0 ||
          batch.timedOut ||
          (scenario.timesOut
            ? // Each slow answer times its attempt out; any other timeout waited for something else.
              seen.timeouts > Math.floor(batch.stats.total / (scenario.behaviour.tailEvery ?? 1)) || seen.slowest >= STALL_MS + 1000
            : seen.timeouts > 0 || seen.slowest >= STALL_MS) ||
          batch.stats.distinctDeleted !== scenario.ids ||
          // Without the trace: a request sent again although the server refused nothing.
          (!scenario.resends && batch.stats.total > scenario.ids),
      };
      results.push(result);
      const tail = result.stalled ? `  STALL ${seen.otherFailures.join(' | ')}` : '';
      console.log(
        `${new Date().toISOString()} r${round} ${scenario.name.padEnd(12)} exit ${result.code} ${(result.ms / 1000).toFixed(2)} s, ` +
          `${result.requests} requests (${result.versions}) on ${result.connections} connections${result.goAways ? ` (${result.goAways} GOAWAY)` : ''}, slowest attempt ${result.slowest.toFixed(0)} ms, timeouts ${result.timeouts}${tail}`,
      );
    }
  }
} finally {
  for (const child of load) child.kill();
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
}
// Without the trace a stall shows in the wall time too: a run STALL_MS slower than its scenario's median.
for (const name of scenarios.map((s) => s.name)) {
  const mine = results.filter((r) => r.scenario === name);
  const typical = median(mine.map((r) => r.ms));
  for (const r of mine) {
    if (r.ms >= typical + STALL_MS && !r.stalled) {
      r.stalled = true;
      console.log(
        `STALL (wall time): r${r.round} ${name} ${(r.ms / 1000).toFixed(2)} s against a median of ${(typical / 1000).toFixed(2)} s`,
      );
    }
  }
}
const stalls = results.filter((r) => r.stalled);
console.log(
  `\n${results.length} runs, ${stalls.length} stalled (an attempt ≥ ${STALL_MS} ms, a timeout, a non-zero exit, an id not deleted, ` +
    `a request sent twice by a server that refused nothing, or a run ${STALL_MS} ms slower than its scenario's median)`,
);
for (const name of scenarios.map((s) => s.name)) {
  const mine = results.filter((r) => r.scenario === name);
  const slowest = Math.max(...mine.map((r) => r.slowest));
  const times = mine.map((r) => r.ms / 1000);
  console.log(
    `  ${name.padEnd(12)} ${mine.length} runs, ${mine.filter((r) => r.stalled).length} stalled, ` +
      `run ${Math.min(...times).toFixed(2)}–${Math.max(...times).toFixed(2)} s` +
      (quiet ? '' : `, slowest attempt ${slowest.toFixed(0)} ms`),
  );
}
