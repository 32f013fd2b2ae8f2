// Batch throughput: 10,000 ids through `plantstore delete --stdin` at the default
// concurrency (8), beside the floor of a minimal undici Pool script sending the
// same DELETEs with the same concurrency, and beside what people do without
// plantstore: `xargs -P 8 -n 1 curl …`, one process per id. Also the peak RSS of
// the plantstore batch.
//
// The server is server.ts's, run in a child process (server-process.ts) so that
// answering ~10,000 requests a second is not done on the timing process's event
// loop, and so its CPU time can be read: on a small machine the client and the
// server share the CPUs, and the notes say how much the server took.
//
// Runs: BENCH_BATCH_RUNS (default: BENCH_RUNS, at most 5) after at most one
// warm-up (BENCH_WARMUPS 0 skips it). xargs+curl costs a process per id (~4-8 ms
// of CPU each), so it is timed on the first BENCH_CURL_IDS ids (default 1,000;
// 10,000 for all of them, ~45 s a run on 2 CPUs): its rate does not depend on the count.
import { accessSync, constants, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildBatchFloor } from './batch-floor.js';
import { benchEnv, binOf, type Command, checkOk, median, NODE, type Options, peakRssKiB, rssMethod, runOnce } from './proc.js';
import { type DeleteServerProcess, startDeleteServerProcess } from './server-process.js';
import { failedRow, formatMiB, formatMs, type Row } from './table.js';

const TOKEN = 'bench-token-0123456789';
const IDS = 10_000;
const CONCURRENCY = 8;
const FLOOR_MIN = 0.6; // plantstore's rate / the floor's
const AUTO_FLOOR_MIN = 0.8; // plantstore --concurrency auto's rate / the same floor's (issue 19)
const SPEEDUP_MIN = 20; // plantstore's rate / xargs+curl's

const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};

const formatRate = (perSecond: number): string => `${Math.round(perSecond).toLocaleString('en-US')} /s`;
const formatCount = (n: number): string => n.toLocaleString('en-US');
const formatShare = (cpuMs: number, wallMs: number): string => `${Math.round((cpuMs / wallMs) * 100)}%`;
/** Judged as printed (two decimals), as startup.ts does. */
const atLeast = (ratio: number, min: number): boolean => Math.round(ratio * 100) / 100 >= min;

/** An executable of that name on PATH, or undefined. */
function onPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

interface Timed {
  ms: number;
  /** CPU the server process used during the run. */
  serverCpuMs: number;
}

/** Runs a command once, and fails unless the server saw exactly `expected` DELETEs, every one with the token. */
async function timedBatch(server: DeleteServerProcess, command: Command, what: string, expected: number): Promise<Timed> {
  const before = await server.stats();
  const ran = checkOk(await runOnce(command), what);
  const after = await server.stats();
  checkSent(before, after, what, expected);
  return { ms: ran.ms, serverCpuMs: after.cpuMs - before.cpuMs };
}

function checkSent(
  before: { authorized: number; total: number },
  after: { authorized: number; total: number },
  what: string,
  expected: number,
): void {
  const total = after.total - before.total;
  const authorized = after.authorized - before.authorized;
  if (total !== expected || authorized !== expected) {
    throw new Error(
      `${what} sent ${formatCount(total)} requests (${formatCount(authorized)} authorized DELETEs), not ${formatCount(expected)}`,
    );
  }
}

export async function benchBatch(options: Options): Promise<Row[]> {
  const { tmp, pkg } = options;
  const runs = Math.max(1, count('BENCH_BATCH_RUNS', Math.min(5, options.runs)));
  const warmups = Math.min(1, options.warmups);
  const curlIds = Math.min(IDS, Math.max(1, count('BENCH_CURL_IDS', 1000)));
  const ids = Array.from({ length: IDS }, (_, i) => String(i + 1));
  const idsText = `${ids.join('\n')}\n`;
  const runsNote = `median of ${runs} run${runs === 1 ? '' : 's'}${warmups ? ` after ${warmups} warm-up` : ''}`;
  const rows: Row[] = [];

  const server = await startDeleteServerProcess(TOKEN);
  try {
    const plantstore: Command = {
      file: NODE,
      args: [binOf(pkg), 'delete', '--stdin', '--concurrency', String(CONCURRENCY)],
      env: benchEnv(tmp, {
        PLANTSTORE_CONFIG_DIR: path.join(tmp, 'config-batch-unused'), // never created: nothing to read
        PLANTSTORE_TOKEN: TOKEN,
        PLANTSTORE_BASE_URL: server.url,
      }),
      input: idsText,
    };

    // No --concurrency: auto up to 64 (issues 19 and 28). Against a server that answers at once, it
    // should find its way without costing much against the Pool at the old default concurrency.
    const autoPlantstore: Command = { ...plantstore, args: [binOf(pkg), 'delete', '--stdin'] };

    const floorScript: string | Error = await buildBatchFloor(tmp).catch((error: unknown) => error as Error);
    const floorCommand = (): Command => {
      if (floorScript instanceof Error) throw new Error(`could not build the floor script: ${floorScript.message}`);
      return {
        file: NODE,
        args: [floorScript, server.url, TOKEN, String(CONCURRENCY)],
        // As in startup.ts: the launcher enables the compile cache, so the floor gets it too.
        env: benchEnv(tmp, { NODE_COMPILE_CACHE: path.join(tmp, 'floor-compile-cache') }),
        input: idsText,
      };
    };

    // 1: plantstore against the Pool floor, interleaved.
    let plantstoreRate: number | undefined;
    const throughputFigure = `batch ${formatCount(IDS)} ids, --concurrency ${CONCURRENCY} / undici Pool script`;
    const throughputTarget = `≥ ${FLOOR_MIN.toFixed(2)}×`;
    try {
      const floor = floorCommand();
      const figures: Timed[] = [];
      const floors: Timed[] = [];
      const autos: Timed[] = [];
      for (let i = 0; i < warmups + runs; i++) {
        const a = await timedBatch(server, plantstore, 'plantstore delete --stdin', IDS);
        const b = await timedBatch(server, floor, 'undici Pool floor script', IDS);
        const c = await timedBatch(server, autoPlantstore, 'plantstore delete --stdin (no --concurrency: auto)', IDS);
        if (i >= warmups) {
          figures.push(a);
          floors.push(b);
          autos.push(c);
        }
      }
      const ms = median(figures.map((t) => t.ms));
      const floorMs = median(floors.map((t) => t.ms));
      plantstoreRate = (IDS / ms) * 1000;
      const floorRate = (IDS / floorMs) * 1000;
      const ratio = plantstoreRate / floorRate;
      const share = (timed: Timed[]): string => formatShare(median(timed.map((t) => t.serverCpuMs)), median(timed.map((t) => t.ms)));
      rows.push({
        figure: throughputFigure,
        value: formatRate(plantstoreRate),
        floor: formatRate(floorRate),
        ratio,
        target: throughputTarget,
        met: atLeast(ratio, FLOOR_MIN),
        notes: [
          `deletions per second = ${formatCount(IDS)} / wall-clock from spawn to exit (start-up included), ${runsNote}: ` +
            `plantstore ${formatMs(ms)}, floor ${formatMs(floorMs)}; stdout drained through a pipe. ` +
            `Floor: one undici Pool (${CONCURRENCY} connections), ${CONCURRENCY} workers, no validation, ordering or output, bundled like dist/, with NODE_COMPILE_CACHE. ` +
            `Every run must send exactly ${formatCount(IDS)} DELETEs with the bearer token`,
          `the loopback server runs in its own process and used ${share(figures)} of one CPU during the plantstore runs, ` +
            `${share(floors)} during the floor runs (the client and the server share this machine's CPUs)`,
        ],
      });
      const autoMs = median(autos.map((t) => t.ms));
      const autoRatio = ((IDS / autoMs) * 1000) / floorRate;
      rows.push({
        figure: `batch ${formatCount(IDS)} ids, no --concurrency (auto up to 64) / undici Pool script`,
        value: formatRate((IDS / autoMs) * 1000),
        floor: formatRate(floorRate),
        ratio: autoRatio,
        target: `≥ ${AUTO_FLOOR_MIN.toFixed(2)}×`,
        met: atLeast(autoRatio, AUTO_FLOOR_MIN),
        notes: [
          `the same runs as the row above, interleaved with them (${runsNote}): plantstore with no --concurrency ${formatMs(autoMs)}, ` +
            `floor ${formatMs(floorMs)} (${CONCURRENCY} connections, ${CONCURRENCY} workers); the server used ${share(autos)} of one CPU during the auto runs`,
        ],
      });
    } catch (error) {
      rows.push(failedRow(throughputFigure, throughputTarget, error));
    }

    // 2: xargs -P 8 -n 1 curl, one process per id.
    const curlFigure = `batch, plantstore / xargs -P ${CONCURRENCY} -n 1 curl`;
    const curlTarget = `≥ ${SPEEDUP_MIN.toFixed(2)}×`;
    const pathVar = plantstore.env['PATH'] ?? '';
    const curl = onPath('curl', pathVar);
    const xargs = onPath('xargs', pathVar);
    if (!curl || !xargs) {
      rows.push({
        figure: curlFigure,
        value: 'skipped',
        floor: '—',
        target: curlTarget,
        notes: [`not measured: ${curl ? 'xargs' : 'curl'} is not installed (not on PATH: ${pathVar})`],
      });
    } else {
      try {
        const xargsCurl: Command = {
          file: xargs,
          args: [
            '-P',
            String(CONCURRENCY),
            '-n',
            '1',
            curl,
            '-s',
            '-o',
            '/dev/null',
            '-X',
            'DELETE',
            '-H',
            `Authorization: Bearer ${TOKEN}`,
          ],
          env: benchEnv(tmp),
          input: `${ids
            .slice(0, curlIds)
            .map((id) => `${server.url}/plants/${id}`)
            .join('\n')}\n`,
        };
        const times: Timed[] = [];
        for (let i = 0; i < runs; i++) times.push(await timedBatch(server, xargsCurl, 'xargs curl', curlIds));
        const curlMs = median(times.map((t) => t.ms));
        const curlRate = (curlIds / curlMs) * 1000;
        const subset =
          curlIds === IDS
            ? `all ${formatCount(IDS)} ids`
            : `the first ${formatCount(curlIds)} of the ${formatCount(IDS)} ids (BENCH_CURL_IDS=${IDS} for all)`;
        const notes = [
          `xargs -P ${CONCURRENCY} -n 1 curl -s -o /dev/null -X DELETE -H "Authorization: Bearer …" <url>, one curl process per id, over ${subset}: ` +
            `${formatMs(curlMs)}, median of ${runs} run${runs === 1 ? '' : 's'}; the floor column is its rate, the median column plantstore's from the row above`,
        ];
        if (plantstoreRate === undefined) {
          rows.push({
            figure: curlFigure,
            value: 'error',
            floor: formatRate(curlRate),
            target: curlTarget,
            notes: [...notes, 'plantstore not measured (see the row above)'],
          });
        } else {
          const ratio = plantstoreRate / curlRate;
          rows.push({
            figure: curlFigure,
            value: formatRate(plantstoreRate),
            floor: formatRate(curlRate),
            ratio,
            target: curlTarget,
            met: atLeast(ratio, SPEEDUP_MIN),
            notes,
          });
        }
      } catch (error) {
        rows.push(failedRow(curlFigure, curlTarget, error));
      }
    }

    // 3: peak RSS of the plantstore batch run (and of the floor, for scale).
    try {
      const floor = floorCommand();
      const figures: number[] = [];
      const floors: number[] = [];
      for (let i = 0; i < runs; i++) {
        let before = await server.stats();
        figures.push(await peakRssKiB(plantstore, tmp, 'plantstore delete --stdin under time'));
        let after = await server.stats();
        checkSent(before, after, 'plantstore delete --stdin under time', IDS);
        before = after;
        floors.push(await peakRssKiB(floor, tmp, 'undici Pool floor under time'));
        after = await server.stats();
        checkSent(before, after, 'undici Pool floor under time', IDS);
      }
      const rss = median(figures);
      const floorRss = median(floors);
      rows.push({
        figure: `peak RSS, batch ${formatCount(IDS)} ids / undici Pool script`,
        value: formatMiB(rss),
        floor: formatMiB(floorRss),
        ratio: rss / floorRss,
        target: '—',
        notes: [
          `median of ${runs} run${runs === 1 ? '' : 's'} each, measured with ${rssMethod()}; MB = 2^20 bytes; no target set for a batch`,
        ],
      });
    } catch (error) {
      rows.push(failedRow(`peak RSS, batch ${formatCount(IDS)} ids`, '—', error));
    }
  } finally {
    await server.close();
  }
  return rows;
}

const JOURNAL_COST_MIN = 0.9; // with --journal / without: the journal costs at most 10% of the throughput

/**
 * What `--journal` costs a full batch (issue 17): the same 10,000-id loopback batch with a
 * new journal and without one, interleaved (with, without, with, …) so load from elsewhere
 * lands on both alike. Each journal run starts a new file: a resumed one would skip every id.
 * In the journal group (BENCH_ONLY=journal), beside the resume rows of journal.ts.
 */
export async function benchJournalCost(options: Options): Promise<Row[]> {
  const { tmp, pkg } = options;
  const runs = Math.max(1, count('BENCH_BATCH_RUNS', Math.min(5, options.runs)));
  const warmups = Math.min(1, options.warmups);
  const figure = `batch ${formatCount(IDS)} ids with --journal / without, --concurrency ${CONCURRENCY}`;
  const target = `≥ ${JOURNAL_COST_MIN.toFixed(2)}×`;
  const journal = path.join(tmp, 'journal-cost', 'batch.journal');
  const server = await startDeleteServerProcess(TOKEN);
  try {
    mkdirSync(path.dirname(journal), { recursive: true });
    const without: Command = {
      file: NODE,
      args: [binOf(pkg), 'delete', '--stdin', '--concurrency', String(CONCURRENCY)],
      env: benchEnv(tmp, {
        PLANTSTORE_CONFIG_DIR: path.join(tmp, 'config-batch-unused'),
        PLANTSTORE_TOKEN: TOKEN,
        PLANTSTORE_BASE_URL: server.url,
      }),
      input: `${Array.from({ length: IDS }, (_, i) => String(i + 1)).join('\n')}\n`,
    };
    const withJournal: Command = { ...without, args: [...without.args, '--journal', journal] };
    const withTimes: Timed[] = [];
    const withoutTimes: Timed[] = [];
    for (let i = 0; i < warmups + runs; i++) {
      rmSync(journal, { force: true });
      const a = await timedBatch(server, withJournal, 'plantstore delete --stdin --journal', IDS);
      // Less the header, the last newline, the run's start and end lines and the sent lines (one an id, written before its request).
      const lines = readFileSync(journal, 'utf8')
        .split('\n')
        .slice(1, -1)
        .filter((line) => line.startsWith('{"id":') && !line.endsWith('"sent":true}')).length;
      if (lines !== IDS) throw new Error(`the journal holds ${formatCount(lines)} result lines, not ${formatCount(IDS)}`);
      const b = await timedBatch(server, without, 'plantstore delete --stdin', IDS);
      if (i >= warmups) {
        withTimes.push(a);
        withoutTimes.push(b);
      }
    }
    const withMs = median(withTimes.map((t) => t.ms));
    const withoutMs = median(withoutTimes.map((t) => t.ms));
    const ratio = withoutMs / withMs; // rate with / rate without
    return [
      {
        figure,
        value: formatRate((IDS / withMs) * 1000),
        floor: formatRate((IDS / withoutMs) * 1000),
        ratio,
        target,
        met: atLeast(ratio, JOURNAL_COST_MIN),
        notes: [
          `deletions per second, spawn to exit, median of ${runs} run${runs === 1 ? '' : 's'} each${warmups ? ` after ${warmups} warm-up` : ''}, interleaved: ` +
            `with a new journal ${formatMs(withMs)} (every run checked to hold ${formatCount(IDS)} result lines), without ${formatMs(withoutMs)}; the floor column is the run without`,
        ],
      },
    ];
  } catch (error) {
    return [failedRow(figure, target, error)];
  } finally {
    await server.close();
  }
}
