// `plantstore journal left FILE < LIST` (issue 40 item 1) through the CLI: a list of 1,000,000
// ids against a journal of 1,000,000 (the 'mostly deleted' journal of journal-status.ts), half of
// the list in the journal and half never sent, as after a stop halfway through a larger job. The
// output is checked: 501,500 ids left (500,000 never sent, 1,500 failed or in flight), in list
// order. Targets: under 3 s and 200 MB for the whole process. Floor: node:readline counting the
// journal's lines.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIRST_ID, IDS, READLINE, writeJournal } from './journal-status.js';
import { benchEnv, binOf, type Command, checkOk, median, NODE, type Options, peakRssRow, runOnce } from './proc.js';
import { failedRow, formatMs, type Row } from './table.js';

const TIME_TARGET_MS = 3000;
/** The list starts halfway into the journal's ids and goes as far again past them. */
const LIST_FROM = IDS / 2;
/** What left must print: the list's ids past the journal, and in it, the failed (i % 1000 = 0) and in-flight (1, 2) ones. */
const EXPECTED_LEFT = IDS / 2 + (IDS / 2 / 1000) * 3;

export async function benchJournalLeft(options: Options): Promise<Row[]> {
  const timeFigure = 'journal left through the CLI: a 1,000,000-id list against a 1,000,000-id journal';
  const rssFigure = 'journal left: peak RSS, the same run';
  const runs = Math.max(1, Math.min(3, options.runs));
  const warmups = Math.min(1, options.warmups);
  const dir = path.join(options.tmp, 'journal-left');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'run.journal');
  const listFile = path.join(dir, 'list.txt');
  let input: string;
  try {
    writeJournal(file, 'mostly deleted');
    const ids: string[] = [];
    for (let i = LIST_FROM; i < LIST_FROM + IDS; i++) ids.push(String(FIRST_ID + i));
    input = `${ids.join('\n')}\n`;
    writeFileSync(listFile, input);
  } catch (error) {
    return [failedRow(timeFigure, '< 3 s', error), failedRow(rssFigure, '< 200 MB', error)];
  }
  const env = benchEnv(options.tmp, { PLANTSTORE_CONFIG_DIR: path.join(options.tmp, 'config-journal-left-unused') });
  const left: Command = { file: NODE, args: [binOf(options.pkg), 'journal', 'left', file], env, input };
  const floor: Command = { file: NODE, args: ['-e', READLINE, file], env };
  const rows: Row[] = [];

  try {
    const times: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < warmups + runs; i++) {
      const ran = checkOk(await runOnce(left), timeFigure);
      const lines = ran.stdout.split('\n');
      lines.pop();
      if (lines.length !== EXPECTED_LEFT) throw new Error(`${lines.length} ids left, expected ${EXPECTED_LEFT}`);
      if (lines[0] !== String(FIRST_ID + LIST_FROM)) throw new Error(`the first id left is ${lines[0]}, not the list's first`);
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
      target: '< 3 s',
      met: time < TIME_TARGET_MS,
      notes: [
        `the whole process, start to exit, the list on stdin, ${EXPECTED_LEFT.toLocaleString('en-US')} ids printed and checked; floor: node:readline counting the journal's lines. Median of ${runs} after ${warmups} warm-up`,
      ],
    });
  } catch (error) {
    rows.push(failedRow(timeFigure, '< 3 s', error));
  }

  try {
    rows.push(await peakRssRow(rssFigure, left, floor, { tmp: options.tmp, runs, floorWords: 'the readline count of the journal' }));
  } catch (error) {
    rows.push(failedRow(rssFigure, '< 200 MB', error));
  }
  return rows;
}
