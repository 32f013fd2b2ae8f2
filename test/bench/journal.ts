// Resuming a journal at scale (issues 17 and 26): a journal of 1,000,000 ids (a sent line and a
// result line each, as a run writes them), 999,000 of them "deleted", read for a run that holds the same 1,000,000 ids (as `delete --stdin`
// holds them, in an IdList) and asks of each whether it is done. Module level: a bundled
// script calls src/batch/journal directly; the row through the CLI comes once delete is
// wired to --journal.
//
// Figures: the read's wall-clock (open, lock, stream, parse) beside the least a Node
// program does to go through the same file line by line (readline, counting); and the
// whole process's peak RSS beside the same process holding the ids without a journal.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { openJournal } from '../../src/batch/journal/index.js';
import { benchJournalCost } from './batch.js';
import { benchEnv, binOf, type Command, checkOk, median, NODE, type Options, peakRssKiB, ROOT, rssMethod, runOnce } from './proc.js';
import { startDeleteServerProcess } from './server-process.js';
import { failedRow, formatMiB, formatMs, type Row } from './table.js';

const IDS = 1_000_000;
const FAILED_EVERY = 1000; // 1,000 failures: 999,000 done
const FIRST_ID = 1_000_000_000_000; // 13 digits, as a real store's ids may be
const RUN = { baseUrl: 'https://plants.example.com', profile: 'default' };
const READ_TARGET_MS = 3000;
const RSS_TARGET_KIB = 200 * 1024;

const source = (): string => `
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { openJournal } from ${JSON.stringify(path.join(ROOT, 'src/batch/journal/index.ts'))};
import { IdList } from ${JSON.stringify(path.join(ROOT, 'src/ids/list.ts'))};
const [file, mode] = process.argv.slice(2);
if (mode === 'readline') {
  const started = performance.now();
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) lines++;
  console.log(JSON.stringify({ readMs: performance.now() - started, lines }));
} else {
  const ids = new IdList();
  for (let i = 0; i < ${IDS}; i++) ids.add(String(${FIRST_ID} + i));
  if (mode === 'journal') {
    const started = performance.now();
    const journal = await openJournal(file, ${JSON.stringify(RUN)});
    const readMs = performance.now() - started;
    let skipped = 0;
    for (const id of ids) if (journal.isDone(id)) skipped++;
    const askMs = performance.now() - started - readMs;
    journal.close();
    console.log(JSON.stringify({ readMs, askMs, skipped }));
  } else {
    console.log(JSON.stringify({ ids: ids.size }));
  }
}
`;

async function bundle(dir: string): Promise<string> {
  const entry = path.join(dir, 'resume-journal.src.mts');
  const outfile = path.join(dir, 'resume-journal.mjs');
  writeFileSync(entry, source());
  await build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning' });
  return outfile;
}

/** Which ids a journal records as done: every 1,000th failed (interleaved), or the last 1,000 (done first: a kill near the end). */
type Shape = 'interleaved' | 'done first';
const failedAt = (i: number, shape: Shape): boolean =>
  shape === 'interleaved' ? i % FAILED_EVERY === FAILED_EVERY - 1 : i >= IDS - IDS / FAILED_EVERY;

/** A journal as a run writes it (format 3): each id's sent line, then its result. */
async function writeJournal(file: string, run: typeof RUN = RUN, shape: Shape = 'interleaved'): Promise<void> {
  const journal = await openJournal(file, run);
  for (let i = 0; i < IDS; i++) {
    const id = String(FIRST_ID + i);
    journal.recordSent(id);
    journal.record(
      id,
      failedAt(i, shape)
        ? { state: 'failed', status: 503, error: null, message: 'Service Unavailable', exit: 6 }
        : { state: 'done', status: 204 },
    );
  }
  journal.close();
}

export async function benchJournal(options: Options): Promise<Row[]> {
  const readFigure = 'resume: read a 1,000,000-line journal (999,000 done)';
  const rssFigure = 'resume: peak RSS, 1,000,000 ids + their journal';
  const dir = path.join(options.tmp, 'journal');
  mkdirSync(dir, { recursive: true });
  const runs = Math.max(1, Math.min(3, options.runs));
  const warmups = Math.min(1, options.warmups);
  let script: string;
  const file = path.join(dir, 'delete.journal');
  try {
    script = await bundle(dir);
    await writeJournal(file);
  } catch (error) {
    return [failedRow(readFigure, `< ${READ_TARGET_MS / 1000} s`, error), failedRow(rssFigure, '< 200 MB', error)];
  }
  const env = benchEnv(options.tmp);
  const command = (mode: string) => ({ file: NODE, args: [script, file, mode], env });
  const rows: Row[] = [];

  try {
    const reads: number[] = [];
    const floors: number[] = [];
    const asks: number[] = [];
    for (let i = 0; i < warmups + runs; i++) {
      const ran = JSON.parse(checkOk(await runOnce(command('journal')), readFigure).stdout) as Record<string, number>;
      if (ran['skipped'] !== IDS - IDS / FAILED_EVERY) throw new Error(`skipped ${ran['skipped']} ids, expected 999000`);
      const floor = JSON.parse(checkOk(await runOnce(command('readline')), 'readline floor').stdout) as Record<string, number>;
      if (i < warmups) continue;
      reads.push(ran['readMs'] ?? NaN);
      asks.push(ran['askMs'] ?? NaN);
      floors.push(floor['readMs'] ?? NaN);
    }
    const read = median(reads);
    const floor = median(floors);
    rows.push({
      figure: readFigure,
      value: formatMs(read),
      floor: formatMs(floor),
      ratio: read / floor,
      target: `< ${READ_TARGET_MS / 1000} s`,
      met: read < READ_TARGET_MS,
      notes: [
        `openJournal: lock, stream, parse every line; then isDone for each of the 1,000,000 ids took ${formatMs(median(asks))} more. Floor: node:readline counting the same file's lines. Median of ${runs} after ${warmups} warm-up`,
      ],
    });
  } catch (error) {
    rows.push(failedRow(readFigure, `< ${READ_TARGET_MS / 1000} s`, error));
  }

  try {
    const figures: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < runs; i++) {
      figures.push(await peakRssKiB(command('journal'), options.tmp, rssFigure));
      floors.push(await peakRssKiB(command('ids-only'), options.tmp, 'ids without a journal'));
    }
    const rss = median(figures);
    const floor = median(floors);
    rows.push({
      figure: rssFigure,
      value: formatMiB(rss),
      floor: formatMiB(floor),
      ratio: rss / floor,
      target: '< 200 MB',
      met: rss < RSS_TARGET_KIB,
      notes: [
        `the whole process; floor: the same process holding the 1,000,000 ids (IdList) without a journal. ${rssMethod()}; median of ${runs}`,
      ],
    });
  } catch (error) {
    rows.push(failedRow(rssFigure, '< 200 MB', error));
  }
  rows.push(...(await benchResumeThroughCli(options, 'interleaved')));
  rows.push(...(await benchResumeThroughCli(options, 'done first')));
  rows.push(...(await benchJournalCost(options)));
  return rows;
}

const CLI_TOKEN = 'bench-journal-token-0123456789';

/**
 * The same resume through the built CLI: `plantstore delete --journal FILE --stdin` with the
 * 1,000,000 ids on stdin and a journal recording 999,000 of them done, against the loopback
 * server of server.ts (in its own process), which must see exactly the 1,000 others. Each run
 * starts from a copy of the same journal (a run appends its 1,000 results). Wall-clock beside
 * the floor of sending those 1,000 ids alone without a journal; peak RSS against its target.
 */
async function benchResumeThroughCli(options: Options, shape: Shape): Promise<Row[]> {
  const timeFigure = `resume through the CLI: 1,000,000 ids on stdin, 999,000 done in the journal (${shape}), 1,000 sent`;
  const rssFigure = `resume through the CLI: peak RSS, the same run (${shape})`;
  const runs = Math.max(1, Math.min(3, options.runs));
  const warmups = Math.min(1, options.warmups);
  const dir = path.join(options.tmp, `journal-cli-${shape.replace(' ', '-')}`);
  mkdirSync(dir, { recursive: true });
  const pristine = path.join(dir, 'pristine.journal');
  const journal = path.join(dir, 'run.journal');
  const ids = Array.from({ length: IDS }, (_, i) => String(FIRST_ID + i));
  const remaining = ids.filter((_, i) => failedAt(i, shape));
  const server = await startDeleteServerProcess(CLI_TOKEN);
  const rows: Row[] = [];
  try {
    await writeJournal(pristine, { baseUrl: server.url, profile: 'default' }, shape);
    const env = benchEnv(options.tmp, {
      PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-journal-unused'),
      PLANTSTORE_TOKEN: CLI_TOKEN,
      PLANTSTORE_BASE_URL: server.url,
    });
    const resume: Command = {
      file: NODE,
      args: [binOf(options.pkg), 'delete', '--journal', journal, '--stdin'],
      env,
      input: `${ids.join('\n')}\n`,
    };
    const floor: Command = { file: NODE, args: [binOf(options.pkg), 'delete', '--stdin'], env, input: `${remaining.join('\n')}\n` };
    /** Runs `command` (through `how`) after a fresh copy of the journal, and checks the server saw exactly the 1,000 remaining ids. */
    const checked = async <T>(what: string, how: () => Promise<T>): Promise<T> => {
      rmSync(`${journal}.lock`, { force: true });
      copyFileSync(pristine, journal);
      const before = await server.stats();
      const result = await how();
      const sent = (await server.stats()).authorized - before.authorized;
      if (sent !== remaining.length) throw new Error(`${what} sent ${sent} DELETEs, not ${remaining.length}`);
      return result;
    };

    try {
      const times: number[] = [];
      const floors: number[] = [];
      for (let i = 0; i < warmups + runs; i++) {
        const ran = await checked(timeFigure, async () => checkOk(await runOnce(resume), timeFigure));
        if (!ran.stderr.includes(`${IDS - remaining.length} skipped (journal)`))
          throw new Error(`no "999000 skipped (journal)" in: ${ran.stderr.trim()}`);
        const floorRan = await checked('the 1,000 ids alone', async () => checkOk(await runOnce(floor), 'the 1,000 ids alone'));
        if (i < warmups) continue;
        times.push(ran.ms);
        floors.push(floorRan.ms);
      }
      const ms = median(times);
      const floorMs = median(floors);
      rows.push({
        figure: timeFigure,
        value: formatMs(ms),
        floor: formatMs(floorMs),
        ratio: ms / floorMs,
        target: '—',
        notes: [
          `spawn to exit, stdout (1,001,000 lines) drained through a pipe; floor: the 1,000 remaining ids alone on stdin, no journal; median of ${runs} after ${warmups} warm-up, interleaved`,
        ],
      });
    } catch (error) {
      rows.push(failedRow(timeFigure, '—', error));
    }

    try {
      const figures: number[] = [];
      for (let i = 0; i < runs; i++) figures.push(await checked(rssFigure, () => peakRssKiB(resume, options.tmp, rssFigure)));
      const rss = median(figures);
      rows.push({
        figure: rssFigure,
        value: formatMiB(rss),
        floor: '—',
        target: '< 200 MB',
        met: rss < RSS_TARGET_KIB,
        notes: [`the built CLI's whole process, ${rssMethod()}; median of ${runs}`],
      });
    } catch (error) {
      rows.push(failedRow(rssFigure, '< 200 MB', error));
    }
  } catch (error) {
    rows.push(failedRow(timeFigure, '—', error), failedRow(rssFigure, '< 200 MB', error));
  } finally {
    await server.close();
  }
  return rows;
}
