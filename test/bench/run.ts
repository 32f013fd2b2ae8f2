// `npm run bench`: a benchmark, not a test. It prints figures beside their
// floors and targets; a figure over its target is marked OVER and never changes
// the exit code. Only a harness failure (a figure that could not be measured at
// all) makes it exit 1.
//
// Each benchmark is a sibling module taking the shared Options and returning
// rows for the shared table (startup.ts, batch.ts, journal.ts, network.ts, package-size.ts). All of them
// measure one snapshot of the built package.
// BENCH_RUNS / BENCH_WARMUPS override the run counts (default 15 after 2; the
// batch figures take at most 3 after 1, see batch.ts for BENCH_BATCH_RUNS and
// BENCH_CURL_IDS); the network batches (network.ts) run once each, a few
// minutes in all: BENCH_NETWORK=0 skips them, BENCH_NETWORK=tail,429 picks some,
// BENCH_NETWORK_RUNS repeats them; the capacity batches (capacity.ts: servers
// that serve K at once and queue the rest, at each --concurrency), about two
// minutes: BENCH_CAPACITY=0 skips them, BENCH_CAPACITY=k48,k6 picks some;
// outage.ts: a service down for a few seconds behind a reverse proxy, under a minute:
// BENCH_OUTAGE=0 skips it, BENCH_OUTAGE=502-3s picks one;
// shares.ts: 2,000 ids against a server answering a seeded half, then a quarter, of its requests
// with a 502 page, each against the healthy run, about a minute (BENCH_SHARES_RUNS);
// BENCH_ONLY=capacity,network runs those groups alone (startup, batch, journal, journal-status
// (journal-status.ts: reading a million-id journal), journal-left (journal-left.ts: a million-id list against one), journal-watch (journal-watch.ts: --watch over four 250,000-id shards), stop, network, capacity, outage, shares, shards, mask, size, npx, soak);
// npx.ts is `npx plantstore --version` from a loopback registry beside an empty package, cold
// and warm, about a minute (BENCH_NPX_COLD_RUNS, BENCH_NPX_WARM_RUNS);
// shards.ts is 2 shards against one process, about 20 s;
// stop.ts is a signal in a 1,000,000-id journal run; mask.ts is the mask after 1,000 tokens, in process, a few seconds;
// soak.ts is 200,000 ids through the README's journal command with five interruptions and a
// suspend, at 20 ms and at 10 ms a request (the 10 ms one after its --concurrency 64 reference),
// about six minutes (BENCH_SOAK_IDS and the other BENCH_SOAK_* settings in soak.ts);
// BENCH_PACKAGE=<folder> measures another build (a folder laid out like the
// published package: package.json, bin/, dist/, README.md, LICENSE) instead.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { benchBatch } from './batch.js';
import { benchCapacity } from './capacity.js';
import { benchJournal } from './journal.js';
import { benchJournalLeft } from './journal-left.js';
import { benchJournalStatus } from './journal-status.js';
import { benchJournalWatch } from './journal-watch.js';
import { benchMask } from './mask.js';
import { benchNetwork } from './network.js';
import { benchNpx } from './npx.js';
import { benchOutage } from './outage.js';
import { benchPackageSize } from './package-size.js';
import { NODE, type Options, snapshotPackage } from './proc.js';
import { benchShards } from './shards.js';
import { benchShares } from './shares.js';
import { benchSoak } from './soak.js';
import { benchStartup } from './startup.js';
import { benchStop } from './stop.js';
import { type Row, renderTable } from './table.js';

const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};

function packageUnderTest(tmp: string): string {
  const other = process.env['BENCH_PACKAGE'];
  return other ? path.resolve(other) : snapshotPackage(tmp);
}

const GROUPS = [
  'startup',
  'batch',
  'journal',
  'journal-status',
  'journal-left',
  'journal-watch',
  'stop',
  'network',
  'capacity',
  'outage',
  'shares',
  'shards',
  'mask',
  'size',
  'npx',
  'soak',
] as const;

/** BENCH_ONLY: a comma-separated list of groups to run; unset or empty, all of them. */
function groupsWanted(value: string | undefined): (group: (typeof GROUPS)[number]) => boolean {
  if (value === undefined || value.trim() === '') return () => true;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(GROUPS as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown group ${unknown.join(', ')} (known: ${GROUPS.join(', ')})`);
  return (group) => names.includes(group);
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-bench-'));
  const rows: Row[] = [];
  let options: Options;
  try {
    options = { runs: Math.max(1, count('BENCH_RUNS', 15)), warmups: count('BENCH_WARMUPS', 2), tmp, pkg: packageUnderTest(tmp) };
    const only = groupsWanted(process.env['BENCH_ONLY']);
    if (only('startup')) rows.push(...(await benchStartup(options)));
    if (only('batch')) rows.push(...(await benchBatch(options)));
    if (only('journal')) rows.push(...(await benchJournal(options)));
    if (only('journal-status')) rows.push(...(await benchJournalStatus(options)));
    if (only('journal-left')) rows.push(...(await benchJournalLeft(options)));
    if (only('journal-watch')) rows.push(...(await benchJournalWatch(options)));
    if (only('stop')) rows.push(...(await benchStop(options)));
    if (only('network')) rows.push(...(await benchNetwork(options)));
    if (only('capacity')) rows.push(...(await benchCapacity(options)));
    if (only('outage')) rows.push(...(await benchOutage(options)));
    if (only('shares')) rows.push(...(await benchShares(options)));
    if (only('shards')) rows.push(...(await benchShards(options)));
    if (only('mask')) rows.push(...(await benchMask(options)));
    if (only('size')) rows.push(...benchPackageSize(options));
    if (only('npx')) rows.push(...(await benchNpx(options)));
    if (only('soak')) rows.push(...(await benchSoak(options)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  const title =
    `plantstore bench: node ${version} (${NODE}), ${cpus().length} CPUs; wall-clock medians of ${options.runs} runs ` +
    `after ${options.warmups} warm-ups, each figure interleaved with its floor; ${seconds.toFixed(1)} s`;
  console.log(renderTable(process.env['BENCH_PACKAGE'] ? `${title}\npackage under test: ${options.pkg}` : title, rows));
  if (rows.some((row) => row.value === 'error')) process.exitCode = 1;
}

await main();
