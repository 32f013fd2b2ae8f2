// `npx plantstore`, the one-off a user runs without installing, beside the floor any
// package run by npx stands on: an empty package (one bin that exits 0). Both are packed by
// `npm pack` (plantstore from the bench's snapshot, so BENCH_PACKAGE works too), published to
// a private registry on loopback (test/helpers/registry.ts) and fetched and run by the real
// npx. Cold: a new, empty --cache for every run (a user's first npx); warm: one cache per
// package, filled by a first run, as every later npx of that user finds it. What the ratio
// shows is what plantstore adds to npx's own work: its download, extraction and start-up.
// Runs: BENCH_NPX_COLD_RUNS (default 7) and BENCH_NPX_WARM_RUNS (default 9), plantstore and
// the empty package interleaved; BENCH_ONLY=npx runs this group alone (about a minute).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { npmClientFlags, type Registry, startRegistry } from '../helpers/registry.js';
import { benchEnv, type Command, checkOk, median, type Options, type Ran, runOnce, TIME } from './proc.js';
import { failedRow, formatKB, formatMs, type Row } from './table.js';

const EMPTY = 'empty-cli';
// The owner's bounds (session 11): an npx one-off may cost 1.1× an empty package's cold, 1.05× warm.
const COLD_TARGET = 1.1;
const WARM_TARGET = 1.05;

const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 1 ? value : fallback;
};

/** `npm pack` of a package folder into `into`; the .tgz's path. --ignore-scripts: prepack would rebuild. */
function npmPack(folder: string, into: string): string {
  const flags = ['--offline', ...npmClientFlags('http://127.0.0.1:9/', path.join(into, 'pack-cache'), into)];
  const npm = spawnSync('npm', ['pack', '--json', '--ignore-scripts', `--pack-destination=${into}`, ...flags], {
    cwd: folder,
    env: benchEnv(into, { HOME: into }),
    encoding: 'utf8',
  });
  if (npm.status !== 0) throw new Error(`npm pack in ${folder} failed (${npm.status}): ${npm.stderr.trim()}`);
  const [report] = JSON.parse(npm.stdout) as Array<{ filename: string }>;
  if (!report) throw new Error(`npm pack in ${folder} printed no report`);
  return path.join(into, report.filename);
}

/** The floor: a package of nothing but a bin that exits 0 (it ignores --version). */
function writeEmptyPackage(dir: string): string {
  const folder = path.join(dir, EMPTY);
  mkdirSync(folder, { recursive: true });
  const manifest = { name: EMPTY, version: '1.0.0', bin: { [EMPTY]: 'cli.js' } };
  writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(folder, 'cli.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  return folder;
}

interface Timed {
  figure: number[];
  floor: number[];
  /** CPU time (user + sys) of npx and the bin it ran, per run, where GNU time is there to read it. */
  figureCpu: number[];
  floorCpu: number[];
}

const noRuns = (): Timed => ({ figure: [], floor: [], figureCpu: [], floorCpu: [] });

export async function benchNpx(options: Options): Promise<Row[]> {
  const dir = path.join(options.tmp, 'npx');
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work'); // no package.json here: npx has no local project to look in
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const coldRuns = count('BENCH_NPX_COLD_RUNS', 7);
  const warmRuns = count('BENCH_NPX_WARM_RUNS', 9);
  const version = (JSON.parse(readFileSync(path.join(options.pkg, 'package.json'), 'utf8')) as { version: string }).version;

  let registry: Registry | undefined;
  try {
    const plantstoreTgz = npmPack(options.pkg, dir);
    const emptyTgz = npmPack(writeEmptyPackage(dir), dir);
    registry = await startRegistry([plantstoreTgz, emptyTgz]);
    const reg = registry;
    const tarballOf = (name: string): string => new URL(reg.tarballUrl(name)).pathname;
    let caches = 0;
    const freshCache = (): string => path.join(dir, `cache-${++caches}`);
    // The CPU time is steadier than the wall-clock on a shared machine; GNU time adds one exec to both.
    const cpuFile = path.join(dir, 'cpu.txt');
    const withCpu = existsSync(TIME);
    const npx = (name: string, cache: string): Command => {
      const args = [...npmClientFlags(reg.url, cache, dir), name, '--version'];
      return {
        file: withCpu ? TIME : 'npx',
        args: withCpu ? ['-f', '%U %S', '-o', cpuFile, 'npx', ...args] : args,
        env: benchEnv(options.tmp, { HOME: home }),
        cwd: work,
      };
    };

    /** One run; throws unless it answered as it should and fetched the tarball `downloads` times. */
    const runChecked = async (name: string, cache: string, downloads: number): Promise<Ran & { cpuMs: number }> => {
      const before = reg.requests(tarballOf(name));
      const ran = checkOk(await runOnce(npx(name, cache)), `npx ${name} --version`);
      const fetched = reg.requests(tarballOf(name)) - before;
      if (name !== EMPTY && ran.stdout !== `${version}\n`)
        throw new Error(`npx plantstore --version printed ${JSON.stringify(ran.stdout)}`);
      if (fetched !== downloads) throw new Error(`npx ${name} fetched its tarball ${fetched} times, not ${downloads}`);
      const seconds = withCpu ? (readFileSync(cpuFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number) : [];
      return { ...ran, cpuMs: seconds.reduce((sum, value) => sum + value, 0) * 1000 };
    };
    const record = (into: Timed, a: Ran & { cpuMs: number }, b: Ran & { cpuMs: number }): void => {
      into.figure.push(a.ms);
      into.floor.push(b.ms);
      into.figureCpu.push(a.cpuMs);
      into.floorCpu.push(b.cpuMs);
    };

    const rows: Row[] = [];
    const notes = [
      `floor: npx --yes ${EMPTY} --version, a package of one bin that exits 0, from the same loopback registry; ` +
        `plantstore's tarball ${formatKB(readFileSync(plantstoreTgz).length)}, the floor's ${formatKB(readFileSync(emptyTgz).length)}; ` +
        'ratio judged as printed (two decimals)',
    ];

    try {
      // Cold: every run on a cache folder npx has never seen (one untimed round first, for the page cache).
      const cold = noRuns();
      for (let i = 0; i < coldRuns + 1; i++) {
        const caches = [freshCache(), freshCache()] as const;
        const a = await runChecked('plantstore', caches[0], 1);
        const b = await runChecked(EMPTY, caches[1], 1);
        for (const cache of caches) rmSync(cache, { recursive: true, force: true });
        if (i > 0) record(cold, a, b);
      }
      rows.push(ratioRow('npx plantstore --version, cold cache / empty package', cold, COLD_TARGET, [...notes, spread(cold, coldRuns)]));
    } catch (error) {
      rows.push(failedRow('npx plantstore --version, cold cache', `≤ ${COLD_TARGET.toFixed(2)}×`, error));
    }

    try {
      // Warm: one cache per package, filled by an untimed first run; no run after it downloads again.
      const caches = { plantstore: freshCache(), [EMPTY]: freshCache() };
      await runChecked('plantstore', caches.plantstore, 1);
      await runChecked(EMPTY, caches[EMPTY], 1);
      const warm = noRuns();
      for (let i = 0; i < warmRuns; i++) {
        const a = await runChecked('plantstore', caches.plantstore, 0);
        record(warm, a, await runChecked(EMPTY, caches[EMPTY], 0));
      }
      rows.push(
        ratioRow('npx plantstore --version, warm cache / empty package', warm, WARM_TARGET, [
          `warm: each run still asks the registry for the packument (npx checks for a newer version), never for the tarball; ${spread(warm, warmRuns)}`,
        ]),
      );
    } catch (error) {
      rows.push(failedRow('npx plantstore --version, warm cache', `≤ ${WARM_TARGET.toFixed(2)}×`, error));
    }
    return rows;
  } catch (error) {
    return [failedRow('npx plantstore --version', `≤ ${COLD_TARGET.toFixed(2)}× cold, ≤ ${WARM_TARGET.toFixed(2)}× warm`, error)];
  } finally {
    await registry?.close();
  }
}

/** As startup.ts judges its ratios: the figure as printed, two decimals, within the bound. */
function ratioRow(figure: string, timed: Timed, max: number, notes: string[]): Row {
  const value = median(timed.figure);
  const floor = median(timed.floor);
  const ratio = value / floor;
  const met = Math.round(ratio * 100) / 100 <= max;
  return { figure, value: formatMs(value), floor: formatMs(floor), ratio, target: `≤ ${max.toFixed(2)}×`, met, notes };
}

/** The runs' range, so a reader sees how much the median could move, and the CPU time's medians. */
function spread(timed: Timed, runs: number): string {
  const range = (values: number[]): string => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)} ms`;
  const cpu = timed.figureCpu.some((ms) => ms > 0)
    ? `; CPU (user+sys of npx and the bin, 10 ms steps) ${median(timed.figureCpu).toFixed(0)} ms / ${median(timed.floorCpu).toFixed(0)} ms`
    : '';
  return `${runs} runs each: plantstore ${range(timed.figure)}, empty package ${range(timed.floor)}${cpu}`;
}
