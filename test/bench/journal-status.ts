// Reading a journal (issue 35 item 5): `plantstore --json journal status FILE` through the built
// CLI on a journal of 1,000,000 ids (a sent line and a result line each, as a run writes them),
// in two shapes: a job that went well (nearly all deleted, a few failed, uncertain or in flight at
// a stop), and the worst case for the reader, every id failed (a token revoked mid-job: each
// failure line is parsed whole for its exit and error code). Targets: under 3 s and 200 MB for the
// whole process. Floor: a Node process counting the same file's lines with node:readline.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { benchEnv, binOf, type Command, checkOk, median, NODE, type Options, peakRssRow, runOnce } from './proc.js';
import { failedRow, formatMs, type Row } from './table.js';

export const IDS = 1_000_000;
export const FIRST_ID = 1_000_000_000_000; // 13 digits, as a real store's ids may be
const TIME_TARGET_MS = 3000;
// Format 3, as a run writes it now (records.ts); format 2's lines read as fast (test/unit/batch/journal/format.test.ts).
const HEADER =
  '{"plantstore":"delete-journal","version":3,"operation":"delete","baseUrl":"https://plants.example.com","profile":"default","started":"2026-03-01T12:00:00.000Z"}';

type Shape = 'mostly deleted' | 'all failed';

/** What the last line of the i-th id says, and what status must count. */
function linesOf(i: number, shape: Shape): string {
  const id = FIRST_ID + i;
  const sent = `{"id":${id},"sent":true}\n`;
  if (shape === 'all failed') {
    return `${sent}{"id":${id},"state":"failed","status":401,"error":null,"message":"Unauthorized","exit":4}\n`;
  }
  switch (i % 1000) {
    case 0:
      return `${sent}{"id":${id},"state":"failed","status":400,"error":1,"message":"plant ${id} does not exist","exit":1}\n`;
    case 1:
      return `${sent}{"id":${id},"state":"in-flight","status":null,"error":null,"message":"timed out","exit":8}\n`;
    case 2:
      return sent;
    default:
      return `${sent}{"id":${id},"state":"done","status":204}\n`;
  }
}

const EXPECTED: Record<Shape, Record<string, number>> = {
  'mostly deleted': { deleted: IDS - 3000, absent: 0, failed: 1000, inFlight: 2000, notSent: 0 },
  'all failed': { deleted: 0, absent: 0, failed: IDS, inFlight: 0, notSent: 0 },
};

export function writeJournal(file: string, shape: Shape): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    // A run's start and end lines, as a run writes them (a stop that left none unsent: the ids in flight are its doing).
    writeSync(fd, `${HEADER}\n{"start":"2026-03-01T12:00:00.100Z","ids":${IDS}}\n`);
    let chunk = '';
    for (let i = 0; i < IDS; i++) {
      chunk += linesOf(i, shape);
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    const ending = shape === 'all failed' ? 'finished' : 'SIGTERM';
    writeSync(fd, `${chunk}{"end":"${ending}","ids":${IDS},"notSent":0,"unrecorded":0,"readAll":true}\n`);
  } finally {
    closeSync(fd);
  }
}

export const READLINE = `
const { createReadStream } = require('node:fs');
const { createInterface } = require('node:readline');
(async () => {
  let lines = 0;
  for await (const _ of createInterface({ input: createReadStream(process.argv[1]), crlfDelay: Infinity })) lines++;
  console.log(lines);
})();
`;

export async function benchJournalStatus(options: Options): Promise<Row[]> {
  const rows: Row[] = [];
  for (const shape of ['mostly deleted', 'all failed'] as const) rows.push(...(await benchShape(options, shape)));
  return rows;
}

async function benchShape(options: Options, shape: Shape): Promise<Row[]> {
  const timeFigure = `journal status through the CLI: a 1,000,000-id journal (${shape})`;
  const rssFigure = `journal status: peak RSS, the same run (${shape})`;
  const runs = Math.max(1, Math.min(3, options.runs));
  const warmups = Math.min(1, options.warmups);
  const dir = path.join(options.tmp, `journal-status-${shape.replace(' ', '-')}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'run.journal');
  try {
    writeJournal(file, shape);
  } catch (error) {
    return [failedRow(timeFigure, `< ${TIME_TARGET_MS / 1000} s`, error), failedRow(rssFigure, '< 200 MB', error)];
  }
  // No token, no base URL, no config: the command needs none.
  const env = benchEnv(options.tmp, { PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-journal-status-unused') });
  const status: Command = { file: NODE, args: [binOf(options.pkg), '--json', 'journal', 'status', file], env };
  const floor: Command = { file: NODE, args: ['-e', READLINE, file], env };
  const rows: Row[] = [];

  try {
    const times: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < warmups + runs; i++) {
      const ran = checkOk(await runOnce(status), timeFigure);
      const counts = JSON.parse(ran.stdout) as Record<string, number>;
      for (const [field, n] of Object.entries(EXPECTED[shape])) {
        if (counts[field] !== n) throw new Error(`${field}: ${counts[field]}, expected ${n}`);
      }
      const floorRan = checkOk(await runOnce(floor), 'readline floor');
      if (i < warmups) continue;
      times.push(ran.ms);
      floors.push(floorRan.ms);
    }
    const time = median(times);
    const floorMs = median(floors);
    rows.push({
      figure: timeFigure,
      value: formatMs(time),
      floor: formatMs(floorMs),
      ratio: time / floorMs,
      target: `< ${TIME_TARGET_MS / 1000} s`,
      met: time < TIME_TARGET_MS,
      notes: [
        `the whole process, start to exit, counts checked; floor: a Node process counting the same file's lines with node:readline. Median of ${runs} after ${warmups} warm-up`,
      ],
    });
  } catch (error) {
    rows.push(failedRow(timeFigure, `< ${TIME_TARGET_MS / 1000} s`, error));
  }

  try {
    rows.push(await peakRssRow(rssFigure, status, floor, { tmp: options.tmp, runs, floorWords: 'the readline count of the same file' }));
  } catch (error) {
    rows.push(failedRow(rssFigure, '< 200 MB', error));
  }
  return rows;
}
