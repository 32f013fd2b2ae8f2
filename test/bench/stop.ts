// A stop at scale (issue 34, item 9): `plantstore delete --journal FILE --stdin` with 1,000,000 ids,
// signalled once about 10,000 of them are reported (counted on its stdout), against the loopback
// server of server.ts in its own process. Figures: the time from the signal to the process's exit,
// and its peak RSS, for SIGTERM and for SIGINT with --json (every id not sent is one more line of
// stdout, read here as fast as it comes); beside `kill -9` at the same point (its peak RSS read
// from /proc just before the kill: the cost of the run itself, with nothing for the stop).
// BENCH_STOP_IDS overrides the 1,000,000 (for a quick look); BENCH_STOP_PROF=<folder> writes a
// --cpu-prof of each stopped run there.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnv, binOf, median, NODE, type Options } from './proc.js';
import { startDeleteServerProcess } from './server-process.js';
import { failedRow, formatMiB, formatMs, type Row } from './table.js';

const DEFAULT_IDS = 1_000_000;
const SIGNAL_AFTER = 10_000;
const FIRST_ID = 1_000_000_000_000;
const TOKEN = 'bench-stop-token-0123456789abcdef';
const STOP_TARGET_MS = 1000;
const RSS_TARGET_KIB = 200 * 1024;
const RSS_HOOK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'report-rss.mjs');

type Stop = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGKILL';

interface Stopped {
  /** From the signal to the process's exit. */
  ms: number;
  /** Peak RSS in KiB: at exit (report-rss.mjs), or for SIGKILL read just before the kill. */
  rssKiB: number;
  code: number | null;
  /** Lines of stdout in all. */
  lines: number;
}

/** One run: spawned, signalled once `SIGNAL_AFTER` lines are on its stdout, timed to its exit. */
function stopOnce(
  stop: Stop,
  json: boolean,
  ids: number,
  input: string,
  env: Record<string, string>,
  dir: string,
  pkg: string,
): Promise<Stopped> {
  const journal = path.join(dir, 'stop.journal');
  const rssFile = path.join(dir, `rss-${process.hrtime.bigint()}.txt`);
  rmSync(journal, { force: true });
  rmSync(`${journal}.lock`, { force: true });
  const args = [
    ...(process.env['BENCH_STOP_PROF'] ? ['--cpu-prof', '--cpu-prof-dir', process.env['BENCH_STOP_PROF']] : []),
    '--import',
    RSS_HOOK,
    binOf(pkg),
    'delete',
    '--journal',
    journal,
    '--stdin',
    ...(json ? ['--json'] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ['pipe', 'pipe', 'ignore'] });
    let lines = 0;
    let signalledAt: bigint | undefined;
    let exitedAt: bigint | undefined;
    let rssAtKill = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      if (signalledAt === undefined && lines >= SIGNAL_AFTER) {
        if (stop === 'SIGKILL') rssAtKill = vmHwmKiB(child.pid as number);
        signalledAt = process.hrtime.bigint();
        child.kill(stop);
      }
    });
    child.stdin.on('error', () => {}); // a killed child stops reading its ids
    child.stdin.end(input);
    child.on('error', reject);
    child.on('exit', () => {
      exitedAt = process.hrtime.bigint();
    });
    child.on('close', (code) => {
      if (signalledAt === undefined || exitedAt === undefined) {
        reject(new Error(`the run ended (exit ${code}) before ${SIGNAL_AFTER} lines: ${lines} of ${ids}`));
        return;
      }
      let rssKiB = rssAtKill;
      if (stop !== 'SIGKILL') {
        rssKiB = Number(readFileSync(rssFile, 'utf8').trim());
        rmSync(rssFile, { force: true });
      }
      resolve({ ms: Number(exitedAt - signalledAt) / 1e6, rssKiB, code, lines });
    });
  });
}

/**
 * The floor of the --json row: a Node process writing `lines` lines as long as a not-sent id's
 * to the same kind of pipe, 1,024 at a time, waiting for drain as the CLI does; spawn to exit.
 */
const FLOOR_SOURCE = `
const lines = Number(process.argv[1]);
const line = (id) => '{"id":' + id + ',"deleted":false,"status":null,"error":null,"message":"not sent: interrupted before its turn","exit":130,"attempted":false}\\n';
let id = ${FIRST_ID};
(async () => {
  for (let written = 0; written < lines; ) {
    let chunk = '';
    for (let i = 0; i < 1024 && written < lines; i++, written++) chunk += line(id++);
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
})();
`;

function floorOnce(lines: number, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, ['-e', FLOOR_SOURCE, String(lines)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let seen = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) seen++;
    });
    child.on('error', reject);
    child.on('exit', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      child.on('close', () => (seen === lines ? resolve(ms) : reject(new Error(`floor: ${seen} lines of ${lines}`))));
    });
  });
}

/** Peak RSS so far (VmHWM), in KiB. */
function vmHwmKiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

const EXIT_OF: Record<Stop, number | null> = { SIGTERM: 143, SIGINT: 130, SIGHUP: 129, SIGKILL: null };

export async function benchStop(options: Options): Promise<Row[]> {
  const ids = Number(process.env['BENCH_STOP_IDS']) || DEFAULT_IDS;
  const cases: Array<{ stop: Stop; json: boolean }> = [
    { stop: 'SIGTERM', json: false },
    { stop: 'SIGINT', json: true },
  ];
  const label = (stop: Stop, json: boolean): string =>
    `stop: ${stop}${json ? ' --json' : ''} after ~${SIGNAL_AFTER.toLocaleString('en')} of ${ids.toLocaleString('en')} ids (--journal)`;
  const dir = path.join(options.tmp, 'stop');
  mkdirSync(dir, { recursive: true });
  const runs = Math.max(1, Math.min(3, options.runs));
  const input = `${Array.from({ length: ids }, (_, i) => String(FIRST_ID + i)).join('\n')}\n`;
  const server = await startDeleteServerProcess(TOKEN);
  const rows: Row[] = [];
  try {
    const env = benchEnv(options.tmp, {
      PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-stop-unused'),
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_BASE_URL: server.url,
    });
    const measure = async (stop: Stop, json: boolean): Promise<Stopped[]> => {
      const all: Stopped[] = [];
      for (let i = 0; i < runs; i++) {
        const ran = await stopOnce(stop, json, ids, input, env, dir, options.pkg);
        if (ran.code !== EXIT_OF[stop]) throw new Error(`${stop}: exit ${ran.code}, expected ${EXIT_OF[stop]}`);
        // With --json every id is reported once: the deleted ones, those in flight, and each one not sent.
        if (json && ran.lines !== ids) throw new Error(`${stop} --json: ${ran.lines} lines on stdout, expected ${ids}`);
        all.push(ran);
      }
      return all;
    };
    const killed = await measure('SIGKILL', false);
    const killedRss = median(killed.map((ran) => ran.rssKiB));
    for (const { stop, json } of cases) {
      try {
        const stopped = await measure(stop, json);
        const ms = median(stopped.map((ran) => ran.ms));
        // The lines a stop writes after the signal, about: the ids not yet reported when it came.
        const left = ids - SIGNAL_AFTER;
        const floors: number[] = [];
        if (json) for (let i = 0; i < runs; i++) floors.push(await floorOnce(left, env));
        const floor = json ? median(floors) : undefined;
        const rss = median(stopped.map((ran) => ran.rssKiB));
        rows.push({
          figure: `${label(stop, json)}: signal to exit`,
          value: formatMs(ms),
          floor: floor === undefined ? '—' : formatMs(floor),
          ratio: floor === undefined ? undefined : ms / floor,
          target: `< ${STOP_TARGET_MS / 1000} s`,
          met: ms < STOP_TARGET_MS,
          notes: [
            `from the signal to the process's exit, stdout read as it comes; median of ${runs}` +
              (floor === undefined
                ? ''
                : `. Floor: node writing ${left.toLocaleString('en')} lines as long as a not-sent id's through the same kind of pipe, spawn to exit`),
          ],
        });
        rows.push({
          figure: `${label(stop, json)}: peak RSS`,
          value: formatMiB(rss),
          floor: formatMiB(killedRss),
          ratio: rss / killedRss,
          target: '< 200 MB',
          met: rss < RSS_TARGET_KIB,
          notes: [
            `the whole process (process.resourceUsage().maxRSS at exit); floor: kill -9 at the same point (VmHWM just before the kill); median of ${runs}`,
          ],
        });
      } catch (error) {
        rows.push(failedRow(`${label(stop, json)}: signal to exit`, `< ${STOP_TARGET_MS / 1000} s`, error));
      }
    }
  } catch (error) {
    rows.push(failedRow(`${label('SIGTERM', false)}`, `< ${STOP_TARGET_MS / 1000} s`, error));
  } finally {
    await server.close();
  }
  return rows;
}
