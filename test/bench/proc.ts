// Child-process helpers shared by the benchmarks: which Node, which environment,
// and wall-clock timing from spawn to exit.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatMiB, type Row } from './table.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The project's own Node (the `node` devDependency); the one running the bench only as a fallback. */
export const NODE = ((): string => {
  const own = path.join(ROOT, 'node_modules', '.bin', 'node');
  return existsSync(own) ? own : process.execPath;
})();

export interface Options {
  /** How many timed runs per figure (after the warm-ups). */
  runs: number;
  warmups: number;
  /** A temp folder for this bench run; removed by the caller. */
  tmp: string;
  /** The snapshot of the built package that is measured (see snapshotPackage). */
  pkg: string;
}

/**
 * Copies the package as published (package.json and what its "files" lists:
 * bin/, dist/, README.md, LICENSE) into `tmp`/package and returns that folder.
 * Every figure of a bench run is then of one and the same build, even if someone
 * runs `npm run build` (which empties dist/ first) while the bench is going.
 * Fails if the copy caught dist/ half-rebuilt (a chunk imported but missing).
 */
export function snapshotPackage(tmp: string): string {
  const pkg = path.join(tmp, 'package');
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files?: string[] };
  for (const entry of ['package.json', ...(manifest.files ?? [])]) {
    const from = path.join(ROOT, entry);
    if (!existsSync(from)) throw new Error(`${from} is missing${entry.startsWith('dist') ? ': run npm run build first' : ''}`);
    cpSync(from, path.join(pkg, entry), { recursive: true });
  }
  const dist = path.join(pkg, 'dist');
  const files = new Set(existsSync(dist) ? readdirSync(dist) : []);
  if (!files.has('main.js')) throw new Error('dist/main.js is missing: run npm run build first');
  for (const file of files) {
    if (!file.endsWith('.js')) continue;
    for (const [, chunk] of readFileSync(path.join(dist, file), 'utf8').matchAll(/["']\.\/([\w.-]+\.js)["']/g)) {
      if (chunk && !files.has(chunk))
        throw new Error(`dist/ changed while it was copied (${file} imports missing ${chunk}): run the bench again`);
    }
  }
  return pkg;
}

export const binOf = (pkg: string): string => path.join(pkg, 'bin', 'plantstore.js');

/**
 * Nothing of the developer's environment but PATH and HOME, so that NODE_OPTIONS,
 * a real PLANTSTORE_TOKEN or a proxy cannot skew a figure. TMPDIR points into the
 * bench's temp folder: the launcher's compile cache (os.tmpdir()/node-compile-cache)
 * then starts cold in every bench run and is warmed by the warm-ups.
 */
export function benchEnv(tmp: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: `${path.dirname(NODE)}${path.delimiter}${process.env['PATH'] ?? ''}`, TMPDIR: tmp };
  if (process.env['HOME']) env['HOME'] = process.env['HOME'];
  return { ...env, ...extra };
}

export interface Command {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  input?: string;
  /** The child's working folder; unset: the bench's own. */
  cwd?: string;
  /** Kill the child (SIGTERM) if it runs longer than this; unset: no limit. */
  timeoutMs?: number;
}

export interface Ran {
  ms: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command once; `ms` is wall-clock from spawn() to the child's exit. */
export function runOnce(command: Command): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const start = process.hrtime.bigint();
    const child = spawn(command.file, command.args, {
      env: command.env,
      ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(command.timeoutMs === undefined ? {} : { timeout: command.timeoutMs }),
    });
    let ms = 0;
    child.on('exit', () => {
      ms = Number(process.hrtime.bigint() - start) / 1e6;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end(command.input ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ ms, code, signal, stdout, stderr }));
  });
}

/** Throws with the child's stderr when it did not exit 0, so a broken command never yields a figure. */
export function checkOk(ran: Ran, what: string): Ran {
  if (ran.code !== 0) {
    const why = ran.signal ? `signal ${ran.signal}` : `exit ${ran.code}`;
    throw new Error(`${what}: ${why}: ${(ran.stderr || ran.stdout).trim().split('\n').slice(0, 3).join(' | ')}`);
  }
  return ran;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

export interface Pair {
  figure: number;
  floor: number;
}

/**
 * Median wall-clock of a command and of its floor, runs interleaved (A B A B …)
 * so that load from elsewhere on the machine lands on both alike. `check` runs
 * after each run (e.g. "the server saw exactly one DELETE") and throws if not.
 */
export async function timePair(
  figure: Command,
  floor: Command,
  options: Options,
  what: string,
  check: (ran: Ran, which: 'figure' | 'floor') => void = () => {},
): Promise<Pair> {
  const figures: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < options.warmups + options.runs; i++) {
    const a = checkOk(await runOnce(figure), what);
    check(a, 'figure');
    const b = checkOk(await runOnce(floor), `floor of ${what}`);
    check(b, 'floor');
    if (i >= options.warmups) {
      figures.push(a.ms);
      floors.push(b.ms);
    }
  }
  return { figure: median(figures), floor: median(floors) };
}

export const TIME = '/usr/bin/time';

/**
 * Peak resident set size of one run, in KiB: GNU time's %M (the kernel's
 * ru_maxrss of the child) when /usr/bin/time exists, else the child's own
 * process.resourceUsage().maxRSS written at exit by report-rss.mjs (--import).
 */
export async function peakRssKiB(command: Command, tmp: string, what: string): Promise<number> {
  const out = path.join(tmp, `rss-${process.hrtime.bigint()}.txt`);
  if (existsSync(TIME)) {
    checkOk(await runOnce({ ...command, file: TIME, args: ['-f', '%M', '-o', out, command.file, ...command.args] }), what);
  } else {
    const hook = path.join(path.dirname(fileURLToPath(import.meta.url)), 'report-rss.mjs');
    const args = command.file === NODE ? ['--import', hook, ...command.args] : command.args;
    checkOk(await runOnce({ ...command, args, env: { ...command.env, BENCH_RSS_FILE: out } }), what);
  }
  const kib = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
  rmSync(out, { force: true });
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`${what}: no peak RSS recorded`);
  return kib;
}

export function rssMethod(): string {
  return existsSync(TIME) ? `${TIME} -f %M (kernel ru_maxrss)` : 'process.resourceUsage().maxRSS at exit (--import report-rss.mjs)';
}

/**
 * The peak-RSS row of a command under 200 MB, beside a floor's (interleaved, `runs` each, the
 * medians): the journal readers' memory rows (journal status, journal left) share it.
 */
export async function peakRssRow(
  figure: string,
  command: Command,
  floor: Command,
  options: { tmp: string; runs: number; floorWords: string },
): Promise<Row> {
  const figures: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    figures.push(await peakRssKiB(command, options.tmp, figure));
    floors.push(await peakRssKiB(floor, options.tmp, 'readline floor'));
  }
  const rss = median(figures);
  const floorKiB = median(floors);
  return {
    figure,
    value: formatMiB(rss),
    floor: formatMiB(floorKiB),
    ratio: rss / floorKiB,
    target: '< 200 MB',
    met: rss < RSS_TARGET_KIB,
    notes: [`the whole process; floor: ${options.floorWords}. ${rssMethod()}; median of ${options.runs}`],
  };
}

/** The memory every journal reader keeps under, whatever the journal's size. */
const RSS_TARGET_KIB = 200 * 1024;
