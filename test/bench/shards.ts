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
const IDS = 3200;
const TARGET = 1.8;

const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => setTimeout(() => res.writeHead(204).end(), ${LATENCY_MS}));
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(NODE, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

export async function benchShards(options: Options): Promise<Row[]> {
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
