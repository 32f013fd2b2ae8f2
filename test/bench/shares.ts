// A share of failures (issue 40, item 6): one upstream of two dead behind a load balancer. A
// loopback server (test/helpers/failing-share-server.ts) answers a seeded share of the requests
// with nginx's 502 page and serves the rest, each answer after about 50 ms (about 1,280 ids a
// second at 64 in flight, where the nginx served 1,140). Each row is the median time of a
// run of 2,000 ids against the healthy run (no failures) in the same bench run, interleaved, and
// the ids that failed; the targets: a half, at most 2.5× and at most 1% of ids (20); a quarter,
// at most 1.7× and none. Before issue 40: a half cost 4.3× and 228 ids behind nginx.
//
// BENCH_SHARES_RUNS (default 3) repeats the three runs; BENCH_SHARES_LATENCY_MS sets the latency.
// Standalone: `npx tsx test/bench/shares.ts` (the built package, or BENCH_PACKAGE); in the
// suite, BENCH_ONLY=shares.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFailingShareServer } from '../helpers/failing-share-server.js';
import { benchEnv, binOf, median, NODE, type Options, runOnce, snapshotPackage } from './proc.js';
import { failedRow, formatMs, type Row, renderTable } from './table.js';

const TOKEN = 'bench-token-shares-0123456789';
const IDS = 2000;
const SHARES = [
  { share: 0.5, ratioAtMost: 2.5, failedAtMost: 20 },
  { share: 0.25, ratioAtMost: 1.7, failedAtMost: 0 },
] as const;

const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** One run of the 2,000 ids against a fresh server failing `share` of its requests: its time, and the ids that failed. */
async function runShare(share: number, latencyMs: number, options: Options): Promise<{ ms: number; failed: number; requests: number }> {
  const server = await startFailingShareServer({ share, latencyMs });
  try {
    const ran = await runOnce({
      file: NODE,
      args: [binOf(options.pkg), 'delete', '--stdin'],
      env: benchEnv(options.tmp, { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url, PLANTSTORE_CONFIG_DIR: options.tmp }),
      input: Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n'),
      timeoutMs: 300_000,
    });
    const failed = IDS - server.deleted.size;
    if (ran.code !== 0 && failed === 0) throw new Error(`exit ${ran.code}: ${ran.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    return { ms: ran.ms, failed, requests: server.received };
  } finally {
    await server.close();
  }
}

export async function benchShares(options: Options): Promise<Row[]> {
  const runs = count('BENCH_SHARES_RUNS', 3);
  const latencyMs = count('BENCH_SHARES_LATENCY_MS', 50);
  const times = new Map<number, number[]>();
  const failed = new Map<number, number[]>();
  const requests = new Map<number, number[]>();
  try {
    // Interleaved, so a machine busier for a while weighs on each alike.
    for (let round = 0; round < runs; round++) {
      for (const share of [0, ...SHARES.map((row) => row.share)]) {
        const ran = await runShare(share, latencyMs, options);
        times.set(share, [...(times.get(share) ?? []), ran.ms]);
        failed.set(share, [...(failed.get(share) ?? []), ran.failed]);
        requests.set(share, [...(requests.get(share) ?? []), ran.requests]);
      }
    }
  } catch (error) {
    return SHARES.map(({ share, ratioAtMost, failedAtMost }) =>
      failedRow(figureOf(share, latencyMs), `≤ ${ratioAtMost}×, ≤ ${failedAtMost} failed`, error),
    );
  }
  const healthy = median(times.get(0) ?? []);
  return SHARES.map(({ share, ratioAtMost, failedAtMost }) => {
    const ms = median(times.get(share) ?? []);
    const ratio = ms / healthy;
    const worst = Math.max(...(failed.get(share) ?? []));
    return {
      figure: figureOf(share, latencyMs),
      value: `${formatMs(ms)}, ${worst} failed`,
      floor: `healthy: ${formatMs(healthy)}`,
      ratio,
      target: `≤ ${ratioAtMost}×, ≤ ${failedAtMost} failed`,
      met: ratio <= ratioAtMost && worst <= failedAtMost,
      notes: [
        `${share * 100}% 502: ids failed per run ${(failed.get(share) ?? []).join(', ')}; requests per run ${(requests.get(share) ?? []).join(', ')} ` +
          `(healthy ${(requests.get(0) ?? []).join(', ')}); times ${(times.get(share) ?? []).map((t) => Math.round(t)).join(', ')} ms ` +
          `against healthy ${(times.get(0) ?? []).map((t) => Math.round(t)).join(', ')} ms`,
      ],
    };
  });
}

function figureOf(share: number, latencyMs: number): string {
  return `${IDS.toLocaleString('en')} ids, ${share * 100}% of requests a 502 page (${latencyMs} ms server): time, ids failed`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-bench-'));
  try {
    const pkg = process.env['BENCH_PACKAGE'] ? path.resolve(process.env['BENCH_PACKAGE']) : snapshotPackage(tmp);
    console.log(renderTable('plantstore bench: a share of requests failing', await benchShares({ runs: 1, warmups: 0, tmp, pkg })));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
