import { decided, type FollowedFile, type FollowedJob } from '../../batch/journal/follow.js';
import { journalWordsOf, keyedCounts } from '../../engine/journal-words.js';
import { shown } from '../../text/shown.js';
import { clock } from '../../ui/progress.js';

/**
 * The words of `journal status --watch`: the pinned block at a terminal, the line printed at
 * each change elsewhere, and the --json object. Every count is one the journals say; what they
 * do not say (a total no start line gives, a rate before two readings) is "unknown".
 */

/** Files named one a line in the block; past that, counted by what they are doing. */
const FILES_NAMED = 8;

/** The rate of ids decided over the last RATE_WINDOW_MS, as the progress line reads its own (src/ui/progress.ts). */
export const RATE_WINDOW_MS = 10_000;

/** Readings of the decided count, the oldest dropped once RATE_WINDOW_MS of newer ones cover it. */
export class DecidedRate {
  readonly #readings: Array<{ at: number; decided: number }> = [];

  add(at: number, count: number): void {
    const readings = this.#readings;
    // Counted again from the start (a journal replaced under the watch): earlier readings are of another count.
    if (count < (readings.at(-1)?.decided ?? 0)) readings.length = 0;
    readings.push({ at, decided: count });
    while (readings.length > 2 && (readings[1]?.at ?? at) <= at - RATE_WINDOW_MS) readings.shift();
  }

  /** Ids a second; undefined before two readings. */
  perSecond(): number | undefined {
    const first = this.#readings[0];
    const last = this.#readings.at(-1);
    if (first === undefined || last === undefined || last.at <= first.at) return undefined;
    return ((last.decided - first.decided) * 1000) / (last.at - first.at);
  }
}

/** What the watch shows at one moment. */
export interface WatchView {
  state: FollowedJob;
  /** Ids decided a second, over the last ~10 s; undefined until known. */
  rate: number | undefined;
}

/** The ids not yet decided and the seconds they take at the rate; each undefined when unknown. */
export function timeLeft(view: WatchView): { ids: number | undefined; seconds: number | undefined } {
  const { state, rate } = view;
  const left = state.ids === undefined ? undefined : state.ids - decided(state.counts);
  // More decided than the runs' lists hold: a run over part of the job (a retry list); what is left is not known.
  const ids = left === undefined || left < 0 ? undefined : left;
  if (ids === undefined) return { ids, seconds: undefined };
  if (ids === 0) return { ids, seconds: 0 };
  return { ids, seconds: rate === undefined || rate <= 0 ? undefined : ids / rate };
}

/** `shard 2/4`, or the file as given when its header names no shard. */
export const fileLabel = (file: FollowedFile): string => (file.shard === undefined ? shown(file.file) : `shard ${file.shard}`);

/** What one file's runs are doing: "running, 1200 of 62500 decided", "stopped: max-duration, 120 not sent". */
export function fileWords(file: FollowedFile): string {
  const own = decided(file.counts);
  if (file.running) {
    if (file.started === undefined) return 'running, no header written yet';
    return file.run.ids === undefined ? `running, ${own} decided` : `running, ${own} of ${file.run.ids} decided`;
  }
  if (file.started === undefined) return 'empty: no run has written its header';
  const { run } = file;
  if (run.unknown === 'unrecorded') return `not running (its runs are not recorded: written by plantstore 2.0), ${own} decided`;
  if (run.unknown === 'no-end') return `stopped without a record (killed?), ${own} decided: how many not sent is unknown`;
  if (run.finished) return `finished: its ${run.ids} ids, each decided`;
  const notSent = run.notSent === undefined ? 'how many not sent is unknown' : `${run.notSent} not sent`;
  return `stopped: ${run.ended ?? 'unknown'}, ${notSent}`;
}

/** What a file is doing, in one word, for --json and to count the files the block does not name. */
export function fileStateWord(file: FollowedFile): 'running' | 'finished' | 'stopped' | 'empty' | 'unrecorded' {
  if (file.running) return 'running';
  if (file.started === undefined) return 'empty';
  if (file.run.unknown === 'unrecorded') return 'unrecorded';
  return file.run.finished ? 'finished' : 'stopped';
}

const percentOf = (part: number, whole: number): string => (whole === 0 ? '' : ` (${Math.floor((part / whole) * 100)}%)`);

function countsWords(state: FollowedJob): string {
  const { counts, job } = state;
  // In the words of the operation that writes the journals.
  const words = journalWordsOf(state.operation);
  // Unknown while a run may still leave ids unsent (or one ended without saying how many).
  const notSent = job.notSent === undefined ? `${words.notSent.word} unknown` : `${job.notSent} ${words.notSent.word}`;
  return `${counts.done} ${words.done.word}, ${counts.absent} ${words.absent.word}, ${counts.failed} ${words.failed.word}, ${counts.inFlight} ${words.inFlight.word}, ${notSent}`;
}

const rateWords = (rate: number | undefined): string =>
  rate === undefined ? 'unknown' : `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s`;

function leftWords(view: WatchView): string {
  const { ids, seconds } = timeLeft(view);
  if (ids === undefined) {
    return view.state.job.missingShards.length > 0 ? 'unknown (shards are missing from the set)' : "unknown (the job's total is not known)";
  }
  if (seconds === undefined) return `unknown (${ids} ids to decide; no rate yet)`;
  return `${clock(seconds * 1000)} (${ids} ids to decide)`;
}

function jobWords(state: FollowedJob): string {
  const { files, job } = state;
  if (job.finished)
    return files.length > 1 ? 'finished: every shard went through every id' : 'finished: the last run went through every id';
  const running = files.filter((file) => file.running).length;
  const missing =
    job.missingShards.length > 0
      ? `; no journal given for shard${job.missingShards.length > 1 ? 's' : ''} ${job.missingShards.join(', ')}`
      : '';
  if (running > 0)
    return `unfinished: ${running} of ${files.length} ${files.length === 1 ? 'journal' : 'journals'} being written${missing}`;
  return `unfinished: no run is writing ${files.length === 1 ? 'the journal' : 'these journals'}${missing}`;
}

/** The pinned block, each line cut to a terminal `columns` wide (one column spare, as progress.ts does). */
export function blockLines(view: WatchView, columns: number | undefined): string[] {
  const { state } = view;
  const rows: Array<[string, string]> = [];
  const named = state.files.slice(0, FILES_NAMED);
  for (const file of named) rows.push([fileLabel(file), fileWords(file)]);
  const rest = state.files.slice(FILES_NAMED);
  if (rest.length > 0) rows.push([`${rest.length} more`, stateCounts(rest)]);
  const done = decided(state.counts);
  rows.push(
    ['decided', state.ids === undefined ? `${done} of unknown` : `${done} of ${state.ids}${percentOf(done, state.ids)}`],
    ['', countsWords(state)],
    ['rate', view.rate === undefined ? 'unknown (measured from the second reading)' : `${rateWords(view.rate)} over the last 10 s`],
    ['left', leftWords(view)],
    ['job', jobWords(state)],
  );
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => cut(columns, `${label.padEnd(width)}${value}`.trimEnd()));
}

function stateCounts(files: readonly FollowedFile[]): string {
  const by = new Map<string, number>();
  for (const file of files) by.set(fileStateWord(file), (by.get(fileStateWord(file)) ?? 0) + 1);
  return [...by].map(([word, n]) => `${n} ${word}`).join(', ');
}

/** `text` cut to one row of a terminal `columns` wide, one column spare, said to be cut with "…". */
function cut(columns: number | undefined, text: string): string {
  if (columns === undefined || columns < 2) return text;
  return text.length <= columns - 1 ? text : `${text.slice(0, columns - 2)}…`;
}

/** Outside a terminal, at each change: `decided 1200 of 5000 (24%): 1190 deleted, …; 85/s, 0:45 left`. */
export function changeLine(view: WatchView): string {
  const { state } = view;
  const done = decided(state.counts);
  const of = state.ids === undefined ? `${done} of unknown` : `${done} of ${state.ids}${percentOf(done, state.ids)}`;
  const { seconds } = timeLeft(view);
  const left = seconds === undefined ? 'time left unknown' : `${clock(seconds * 1000)} left`;
  return `decided ${of}: ${countsWords(state)}; ${view.rate === undefined ? 'rate unknown' : rateWords(view.rate)}, ${left}`;
}

/** One line for a file whose state changed (and for each at the start): `shard 2/4 stopped: max-duration, 120 not sent`. */
export const fileLine = (file: FollowedFile): string => `${fileLabel(file)} ${fileWords(file)}`;

/** The job's last line when it is finished. */
export const finishedLine = (state: FollowedJob): string => `job ${jobWords(state)}`;

/** `--watch --json`: one object per change. A count nobody knows is null, never 0. */
export function watchObject(view: WatchView): Record<string, unknown> {
  const { state } = view;
  const { ids, seconds } = timeLeft(view);
  return {
    files: state.files.map((file) => ({
      path: file.file,
      ...(file.shard === undefined ? {} : { shard: file.shard }),
      state: fileStateWord(file),
      ended: file.running ? null : (file.run.ended ?? null),
      ids: file.run.ids ?? null,
      decided: decided(file.counts),
      notSent: file.running ? null : (file.run.notSent ?? null),
    })),
    missingShards: state.job.missingShards,
    finished: state.job.finished,
    ids: state.ids ?? null,
    decided: decided(state.counts),
    ...keyedCounts(journalWordsOf(state.operation), state.counts, state.job.notSent ?? null),
    rate: view.rate === undefined ? null : Math.round(view.rate * 10) / 10,
    left: ids ?? null,
    secondsLeft: seconds === undefined ? null : Math.round(seconds),
  };
}

/** What counts as a change: the counts, and what each file is doing; the rate alone is not one. */
export function changeKey(state: FollowedJob): string {
  return JSON.stringify([state.counts, state.job.notSent, state.ids, state.files.map(fileWords)]);
}
