// Start-up cost of single plantstore invocations, each beside the floor a Node
// program cannot go under: `node -e 0` for --version/--help, and a minimal
// bundled undici script for a delete. Also peak RSS and whether conf is loaded.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildDeleteFloor } from './floor.js';
import {
  benchEnv,
  binOf,
  type Command,
  checkOk,
  median,
  NODE,
  type Options,
  peakRssKiB,
  type Ran,
  rssMethod,
  runOnce,
  timePair,
} from './proc.js';
import { startDeleteServer } from './server.js';
import { failedRow, formatMiB, formatMs, type Row } from './table.js';

const TOKEN = 'bench-token-0123456789';
const PLANT = '1';
const RSS_RUNS = 5;
/** A small batch, against one id: what a handful of ids adds to a run. */
const TEN = 10;
const RSS_TARGET_KIB = 80 * 1024;

const ratioRow = (figure: string, pair: { figure: number; floor: number }, max: number, notes: string[]): Row => {
  const ratio = pair.figure / pair.floor;
  // Judged as printed (two decimals): the run-to-run noise is larger than that anyway.
  const met = Math.round(ratio * 100) / 100 <= max;
  return { figure, value: formatMs(pair.figure), floor: formatMs(pair.floor), ratio, target: `≤ ${max.toFixed(2)}×`, met, notes };
};

export async function benchStartup(options: Options): Promise<Row[]> {
  const { tmp, pkg } = options;
  const version = (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const plantstore = (args: string[], env: Record<string, string> = {}, input?: string): Command => ({
    file: NODE,
    args: [binOf(pkg), ...args],
    env: benchEnv(tmp, env),
    ...(input === undefined ? {} : { input }),
  });
  const nodeFloor: Command = { file: NODE, args: ['-e', '0'], env: benchEnv(tmp) };
  const rows: Row[] = [];

  // 1, 2: commands that must not load anything heavy.
  const versionCheck = (ran: Ran, which: string): void => {
    if (which === 'figure' && ran.stdout.trim() !== version)
      throw new Error(`--version printed ${JSON.stringify(ran.stdout)}, not ${version}`);
  };
  for (const [figure, args, check] of [
    ['plantstore --version', ['--version'], versionCheck],
    ['plantstore --help', ['--help'], () => {}],
  ] as const) {
    try {
      const pair = await timePair(plantstore([...args]), nodeFloor, options, figure, check);
      rows.push(ratioRow(`${figure} / node -e 0`, pair, 1.5, []));
    } catch (error) {
      rows.push(failedRow(figure, '≤ 1.50×', error));
    }
  }

  // 3-5: one delete against a loopback server in this process.
  const server = await startDeleteServer(TOKEN);
  try {
    const floorScript = await buildDeleteFloor(tmp);
    // The launcher enables Node's compile cache; the floor gets the same, or the
    // comparison would be of caching rather than of plantstore's own work.
    const floor: Command = {
      file: NODE,
      args: [floorScript, `${server.url}/plants/${PLANT}`, TOKEN],
      env: benchEnv(tmp, { NODE_COMPILE_CACHE: path.join(tmp, 'floor-compile-cache') }),
    };
    const floorNote =
      'floor: one undici request() DELETE in a script bundled by esbuild like dist/ (minified ESM), run with NODE_COMPILE_CACHE as the launcher enables it';

    let seen = server.authorized();
    const oneDelete = (ran: Ran, which: string): void => {
      const now = server.authorized();
      if (now !== seen + 1)
        throw new Error(`${which} run sent ${now - seen} authorized DELETEs, not 1 (exit ${ran.code}): ${ran.stderr.trim()}`);
      seen = now;
    };

    const configDir = path.join(tmp, 'config');
    mkdirSync(configDir, { mode: 0o700 });
    checkOk(
      await runOnce(
        plantstore(['auth', 'login', '--with-token', '--base-url', server.url], { PLANTSTORE_CONFIG_DIR: configDir }, `${TOKEN}\n`),
      ),
      'auth login --with-token',
    );
    const fromConfig = plantstore(['delete', PLANT], { PLANTSTORE_CONFIG_DIR: configDir });
    const emptyConfigDir = path.join(tmp, 'config-unused'); // never created: nothing to read
    const fromEnv = plantstore(['delete', PLANT], {
      PLANTSTORE_CONFIG_DIR: emptyConfigDir,
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_BASE_URL: server.url,
    });

    try {
      const pair = await timePair(fromConfig, floor, options, 'delete (token from config file)', oneDelete);
      rows.push(ratioRow('delete, token in config file / undici script', pair, 1.25, [floorNote]));
    } catch (error) {
      rows.push(failedRow('plantstore delete, token from config file', '≤ 1.25×', error));
    }

    try {
      const pair = await timePair(fromEnv, floor, options, 'delete (PLANTSTORE_TOKEN)', oneDelete);
      // Such a run reads the config file only for missing-error (here the folder does not exist): one failed open.
      rows.push(ratioRow('delete, PLANTSTORE_TOKEN+_BASE_URL / undici script', pair, 1.25, []));
    } catch (error) {
      rows.push(failedRow('plantstore delete, PLANTSTORE_TOKEN', '≤ 1.25×', error));
    }

    // A few ids cost little more than one: V8 once recompiled undici's HTTP parser after a few
    // answers and the process waited for it at exit (98 ms for 10 ids against 64 for one in this row, 1.52x).
    const tenIds = Array.from({ length: TEN }, (_, i) => String(i + 1));
    const fromEnvTen = { ...fromEnv, args: [binOf(pkg), 'delete', ...tenIds] };
    try {
      const sent = (ran: Ran, which: string): void => {
        const now = server.authorized();
        const expected = which === 'figure' ? TEN : 1;
        if (now !== seen + expected)
          throw new Error(`${which} run sent ${now - seen} authorized DELETEs, not ${expected} (exit ${ran.code}): ${ran.stderr.trim()}`);
        seen = now;
      };
      const pair = await timePair(fromEnvTen, fromEnv, options, 'delete of 10 ids / of 1', sent);
      rows.push(ratioRow(`delete of ${TEN} ids / delete of 1 (PLANTSTORE_TOKEN)`, pair, 1.2, ["floor: the row above's delete of one id"]));
    } catch (error) {
      rows.push(failedRow(`plantstore delete of ${TEN} ids`, '≤ 1.20×', error));
    }

    try {
      const figures: number[] = [];
      const floors: number[] = [];
      for (let i = 0; i < RSS_RUNS; i++) {
        figures.push(await peakRssKiB(fromConfig, tmp, 'delete under time'));
        floors.push(await peakRssKiB(floor, tmp, 'floor under time'));
      }
      seen = server.authorized();
      const rss = median(figures);
      const floorRss = median(floors);
      rows.push({
        figure: 'peak RSS, delete (config file) / undici script',
        value: formatMiB(rss),
        floor: formatMiB(floorRss),
        ratio: rss / floorRss,
        target: '< 80 MB',
        met: rss < RSS_TARGET_KIB,
        notes: [`median of ${RSS_RUNS} runs each, measured with ${rssMethod()}; MB = 2^20 bytes`],
      });
    } catch (error) {
      rows.push(failedRow('peak RSS of one delete', '< 80 MB', error));
    }
  } finally {
    await server.close();
  }
  return rows;
}
