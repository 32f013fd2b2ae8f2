// `npm run bench`: a benchmark, not a test. It prints figures beside their
// floors and targets; a figure over its target is marked OVER and never changes
// the exit code. Only a harness failure (a figure that could not be measured at
// all) makes it exit 1.
//
// Each benchmark is a sibling module that returns rows for the shared table
// (startup.ts, package-size.ts; a batch-throughput one can join them).
// BENCH_RUNS / BENCH_WARMUPS override the run counts (default 15 after 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { benchPackageSize } from './package-size.js';
import { NODE, type Options } from './proc.js';
import { benchStartup } from './startup.js';
import { renderTable, type Row } from './table.js';

const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};

const tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-bench-'));
const options: Options = { runs: Math.max(1, count('BENCH_RUNS', 15)), warmups: count('BENCH_WARMUPS', 2), tmp };
const started = process.hrtime.bigint();
const rows: Row[] = [];
try {
  rows.push(...(await benchStartup(options)));
  rows.push(...benchPackageSize(tmp));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const version = (await import('node:child_process')).execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
const title =
  `plantstore bench — node ${version} (${NODE}), ${cpus().length} CPUs, ` +
  `wall-clock medians of ${options.runs} runs after ${options.warmups} warm-ups, figure and floor interleaved; ${seconds.toFixed(1)} s`;
console.log(renderTable(title, rows));
if (rows.some((row) => row.value === 'error')) process.exitCode = 1;
