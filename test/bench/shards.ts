// Shards that add up: against a server with room to spare whose 200 ms latency holds one process
// at its ceiling (64 in flight, ~320/s), 2 shards (--shard 0/2 and 1/2, two processes at once)
// must finish the same list at least 1.8× as fast as one process. The server answers every
// request after 200 ms, however many are in flight, in its own process (server-process.ts style:
// the bench's event loop is not the server's). BENCH_ONLY=shards runs it alone.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { benchEnv, binOf, NODE, type Options, runOnce } from './proc.js';
import { formatRatio, type Row } from './table.js';

const TOKEN = 'bench-shards-token-0123456789';
const LATENCY_MS = 200;
// Enough that start-up and the climb from 4 in flight, paid by each process, do not decide the ratio.
const IDS = 6400;
const TARGET = 1.8;

const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => setTimeout(() => res.writeHead(204).end(), ${LATENCY_MS}));
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

// A small server: 16 served at once, 50 ms each, the rest waiting in arrival order. It says, on
// SIGUSR2, the requests served, the mean time they waited for a slot (the queueing the clients
// caused, from the first request on), the most it held (served and waiting) from 1 s after its
// first request, and the most it held in each 500 ms, as one JSON line on stdout.
const SMALL_CAPACITY = 16;
const SMALL_LATENCY_MS = 50;
const SMALL_SERVER = `
const http = require('node:http');
let busy = 0, served = 0, waited = 0, firstAt = 0, peakAfterFirstSecond = 0;
const queue = [], steps = [];
const held = () => {
  const now = Date.now(), count = busy + queue.length;
  if (!firstAt) firstAt = now;
  const step = Math.floor((now - firstAt) / 500);
  while (steps.length <= step) steps.push(0);
  steps[step] = Math.max(steps[step], count);
  if (now - firstAt >= 1000) peakAfterFirstSecond = Math.max(peakAfterFirstSecond, count);
};
const serve = (res, arrived) => {
  busy++; waited += Date.now() - arrived;
  setTimeout(() => { busy--; served++; res.writeHead(204).end(); const next = queue.shift(); if (next) serve(next.res, next.arrived); }, ${SMALL_LATENCY_MS});
};
const server = http.createServer((req, res) => {
  req.resume();
  const arrived = Date.now();
  if (busy < ${SMALL_CAPACITY}) serve(res, arrived); else queue.push({ res, arrived });
  held();
});
server.keepAliveTimeout = 60000;
process.on('SIGUSR2', () => process.stdout.write(JSON.stringify({ served, meanWaitMs: served ? waited / served : 0, peakAfterFirstSecond, steps }) + '\\n'));
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startServer(code = SERVER): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(NODE, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

interface SmallServerStats {
  served: number;
  meanWaitMs: number;
  peakAfterFirstSecond: number;
  /** The most it held in each 500 ms from its first request. */
  steps: number[];
}

/** The small server's count of requests served, their mean wait for a slot, and what it held, so far. */
function waitStats(child: ChildProcess): Promise<SmallServerStats> {
  return new Promise((resolve) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString().trim())));
    child.kill('SIGUSR2');
  });
}

export async function benchShards(options: Options): Promise<Row[]> {
  return [...(await shardsAddUp(options)), ...(await shardsStayGentle(options))];
}

/** BENCH_SHARDS_RUNS: how many times the 4 shards run against the small server (default 3); every run must meet the target. */
const gentleRuns = (): number => {
  const value = Number(process.env['BENCH_SHARDS_RUNS']);
  return Number.isInteger(value) && value >= 1 ? value : 3;
};

/**
 * Shards share a small server fairly (issue 41 item 2): 4 shards, each at the default concurrency,
 * against a server of capacity 16 (50 ms each) must keep the mean queueing at the server, over the
 * whole run from its first request, no more than its base latency, and at most 64 requests at the
 * server after the first second, in every run, as one process does. The four are spawned at once.
 */
async function shardsStayGentle(options: Options): Promise<Row[]> {
  const ids = 3200;
  const runs = gentleRuns();
  const figure = `4 shards against a server of capacity ${SMALL_CAPACITY} (${SMALL_LATENCY_MS} ms), ${ids} ids: mean queueing at the server, the whole run (worst of ${runs})`;
  const measure = async (shards: string[]): Promise<SmallServerStats> => {
    const { url, child } = await startServer(SMALL_SERVER);
    try {
      const input = Array.from({ length: ids }, (_, i) => String(i + 1)).join('\n');
      const env = benchEnv(options.tmp, {
        PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-shards-unused'),
        PLANTSTORE_TOKEN: TOKEN,
        PLANTSTORE_BASE_URL: url,
      });
      const ran = await Promise.all(
        (shards.length === 0 ? [undefined] : shards).map((shard) =>
          runOnce({ file: NODE, args: [binOf(options.pkg), '-q', 'delete', '--stdin', ...(shard ? ['--shard', shard] : [])], env, input }),
        ),
      );
      const failed = ran.find((run) => run.code !== 0);
      if (failed) throw new Error(`a run exited ${failed.code}: ${failed.stderr.trim().split('\n')[0] ?? ''}`);
      return await waitStats(child);
    } finally {
      child.kill();
    }
  };
  const one = await measure([]);
  const fours: SmallServerStats[] = [];
  for (let run = 0; run < runs; run++) fours.push(await measure(['0/4', '1/4', '2/4', '3/4']));
  const worst = fours.reduce((a, b) => (b.meanWaitMs > a.meanWaitMs ? b : a));
  const ratio = worst.meanWaitMs / SMALL_LATENCY_MS;
  const MOST_HELD = 64;
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  return [
    {
      figure,
      value: ms(worst.meanWaitMs),
      floor: `${SMALL_LATENCY_MS} ms (its base latency)`,
      ratio,
      target: `≤ 1.00×, ≤ ${MOST_HELD} held after 1 s, every run`,
      met: fours.every((four) => four.meanWaitMs <= SMALL_LATENCY_MS && four.peakAfterFirstSecond <= MOST_HELD && four.served === ids),
      notes: [
        `4 shards, each run: mean wait for a slot ${fours.map((four) => ms(four.meanWaitMs)).join(', ')}; most held at the server after the first second ` +
          `${fours.map((four) => four.peakAfterFirstSecond).join(', ')}; one process at the same settings: ${ms(one.meanWaitMs)}, ${one.peakAfterFirstSecond} held at most after 1 s`,
        `held at the server, the most in each 500 ms, the worst run: ${worst.steps.join(', ')}; one process: ${one.steps.join(', ')}`,
      ],
    },
  ];
}

async function shardsAddUp(options: Options): Promise<Row[]> {
  const figure = `2 shards vs one process: ${IDS} ids against a ${LATENCY_MS} ms server with room to spare`;
  const target = `≥ ${TARGET.toFixed(2)}×`;
  const { url, child } = await startServer();
  try {
    const input = Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n');
    const env = benchEnv(options.tmp, {
      PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-shards-unused'), // never created: nothing to read
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_BASE_URL: url,
    });
    const run = (shard?: string) =>
      runOnce({ file: NODE, args: [binOf(options.pkg), '-q', 'delete', '--stdin', ...(shard ? ['--shard', shard] : [])], env, input });
    const one = await run();
    const startedTwo = process.hrtime.bigint();
    const two = await Promise.all([run('0/2'), run('1/2')]);
    const twoMs = Number(process.hrtime.bigint() - startedTwo) / 1e6;
    const failed = [one, ...two].find((ran) => ran.code !== 0);
    if (failed) throw new Error(`a run exited ${failed.code}: ${failed.stderr.trim().split('\n')[0] ?? ''}`);
    const speedup = one.ms / twoMs;
    return [
      {
        figure,
        value: `${(twoMs / 1000).toFixed(2)} s`,
        floor: `${(one.ms / 1000).toFixed(2)} s (one process)`,
        ratio: speedup,
        target,
        met: speedup >= TARGET,
        notes: [`2 shards: ${formatRatio(speedup)} one process's speed (the floor is one process's time for the same ${IDS} ids)`],
      },
    ];
  } finally {
    child.kill();
  }
}
