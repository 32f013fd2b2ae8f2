// `plantstore journal status --watch` (issue 41 item 5) through the built CLI, over four shards of
// 250,000 ids each (a sent and a deleted line per id, a few failed or in flight, as a run writes
// them), still being written: no end line, so the watch goes on. Measured:
// - the first reading: spawn to the first --json object, every line of the four files read
//   (target < 3 s, as journal status of a million ids);
// - a redraw: after each object, 2,000 more ids are appended to each journal (8,000 ids: a fast
//   job's second), and the process's CPU time (/proc/PID/stat, user + system) is read at the
//   object that counts them; the CPU per redraw is the mean over the rounds (target < 1 s: a
//   redraw fits in its second, reading only the new bytes);
// - the peak RSS of the watching process (VmHWM), read before it is stopped (target < 200 MB).
// SIGTERM then ends it, exit 0 checked. `BENCH_ONLY=journal-watch` runs it alone, ~20 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { benchEnv, binOf, NODE, type Options } from './proc.js';
import { failedRow, formatMiB, formatMs, type Row } from './table.js';

const SHARDS = 4;
const IDS_PER_SHARD = 250_000;
const FIRST_ID = 1_000_000_000_000;
const APPENDED_PER_SHARD = 2_000;
const ROUNDS = 5;
const FIRST_TARGET_MS = 3000;
const REDRAW_TARGET_MS = 1000;
const RSS_TARGET_KIB = 200 * 1024;

const header = (shard: number): string =>
  `{"plantstore":"delete-journal","version":3,"operation":"delete","baseUrl":"https://plants.example.com","profile":"default","shard":"${shard}/${SHARDS}","started":"2026-03-01T12:00:00.000Z"}`;

/** The lines of the id `FIRST_ID + n` (n counts across shards: shard s holds n ≡ s mod SHARDS). */
function linesOf(n: number): string {
  const id = FIRST_ID + n;
  const sent = `{"id":${id},"sent":true}\n`;
  if (n % 1000 === 0)
    return `${sent}{"id":${id},"state":"failed","status":400,"error":1,"message":"plant ${id} does not exist","exit":1}\n`;
  if (n % 1000 === 1) return sent;
  return `${sent}{"id":${id},"state":"done","status":204}\n`;
}

function writeShard(file: string, shard: number): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    // The start line counts the ids the run has, the appended ones included: its list was read whole first.
    writeSync(fd, `${header(shard)}\n{"start":"2026-03-01T12:00:00.100Z","ids":${IDS_PER_SHARD + ROUNDS * APPENDED_PER_SHARD}}\n`);
    let chunk = '';
    for (let i = 0; i < IDS_PER_SHARD; i++) {
      chunk += linesOf(i * SHARDS + shard);
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** user + system CPU of `pid`, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function peakKiB(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (line === null) throw new Error('no VmHWM in /proc/PID/status');
  return Number(line[1]);
}

/** The --json objects as they come. */
function objects(child: ChildProcess): () => Promise<Record<string, number>> {
  const queue: Array<Record<string, number>> = [];
  const waiting: Array<(value: Record<string, number>) => void> = [];
  let buffered = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
      const value = JSON.parse(buffered.slice(0, newline)) as Record<string, number>;
      buffered = buffered.slice(newline + 1);
      const next = waiting.shift();
      if (next === undefined) queue.push(value);
      else next(value);
    }
  });
  return () => {
    const value = queue.shift();
    return value === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(value);
  };
}

export async function benchJournalWatch(options: Options): Promise<Row[]> {
  const firstFigure = 'journal status --watch, 4 × 250,000-id journals: the first reading';
  const redrawFigure = 'journal status --watch: CPU per redraw, 8,000 ids appended a second';
  const rssFigure = 'journal status --watch: peak RSS, the same process';
  const dir = path.join(options.tmp, 'journal-watch');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = Array.from({ length: SHARDS }, (_, shard) => path.join(dir, `shard-${shard}.journal`));
  const env = benchEnv(options.tmp, { PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-journal-watch-unused') });
  let child: ChildProcess | undefined;
  try {
    files.forEach((file, shard) => {
      writeShard(file, shard);
    });
    const started = performance.now();
    child = spawn(NODE, [binOf(options.pkg), '--json', 'journal', 'status', '--watch', ...files], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<number | null>((resolve) => child?.on('close', (code) => resolve(code)));
    const next = objects(child);
    const first = await Promise.race([next(), ended.then((code) => Promise.reject(new Error(`exited ${code}: ${stderr}`)))]);
    const firstMs = performance.now() - started;
    const total = SHARDS * IDS_PER_SHARD;
    if (first['decided'] !== total - total / 1000)
      throw new Error(`first reading: ${first['decided']} decided, expected ${total - total / 1000}`);
    const pid = child.pid as number;
    let expected = first['decided'] as number;
    const cpuBefore = cpuMs(pid);
    for (let round = 0; round < ROUNDS; round++) {
      for (let shard = 0; shard < SHARDS; shard++) {
        let lines = '';
        for (let i = 0; i < APPENDED_PER_SHARD; i++)
          lines += `{"id":${FIRST_ID + 10_000_000 + (round * APPENDED_PER_SHARD + i) * SHARDS + shard},"sent":true}\n{"id":${FIRST_ID + 10_000_000 + (round * APPENDED_PER_SHARD + i) * SHARDS + shard},"state":"done","status":204}\n`;
        appendFileSync(files[shard] as string, lines);
      }
      expected += SHARDS * APPENDED_PER_SHARD;
      for (let seen = await next(); seen['decided'] !== expected; seen = await next()) {
        if ((seen['decided'] as number) > expected) throw new Error(`${seen['decided']} decided, past ${expected}`);
      }
    }
    const redrawMs = (cpuMs(pid) - cpuBefore) / ROUNDS;
    const rss = peakKiB(pid);
    child.kill('SIGTERM');
    const code = await ended;
    if (code !== 0) throw new Error(`SIGTERM: exit ${code}, expected 0: ${stderr}`);
    const notes = [
      `one run: ${SHARDS} shards of ${IDS_PER_SHARD.toLocaleString('en-US')} ids, ${ROUNDS} rounds of ${APPENDED_PER_SHARD.toLocaleString('en-US')} ids appended to each`,
    ];
    return [
      {
        figure: firstFigure,
        value: formatMs(firstMs),
        floor: '—',
        target: `< ${FIRST_TARGET_MS / 1000} s`,
        met: firstMs < FIRST_TARGET_MS,
        notes: ['spawn to the first --json object, counts checked', ...notes],
      },
      {
        figure: redrawFigure,
        value: formatMs(redrawMs),
        floor: '—',
        target: `< ${REDRAW_TARGET_MS / 1000} s`,
        met: redrawMs < REDRAW_TARGET_MS,
        notes: [
          'user + system CPU of the watching process (/proc/PID/stat, 10 ms ticks) from one object to the one counting the appended ids, mean over the rounds',
        ],
      },
      {
        figure: rssFigure,
        value: formatMiB(rss),
        floor: '—',
        target: '< 200 MB',
        met: rss < RSS_TARGET_KIB,
        notes: ['VmHWM of the watching process after the last round'],
      },
    ];
  } catch (error) {
    child?.kill('SIGKILL');
    return [failedRow(firstFigure, '< 3 s', error), failedRow(redrawFigure, '< 1 s', error), failedRow(rssFigure, '< 200 MB', error)];
  }
}
