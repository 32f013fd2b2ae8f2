import type { IO } from './io.js';
import { type SlowPace, slowCauses, whySlow } from './pace-words.js';

/** How long a run goes before it earns a progress line: short runs stay quiet. */
const SHOW_AFTER_MS = 2000;
const REDRAW_MS = 200;
/** Outside a terminal, with the opt-in: one status line this often, which keeps a CI log alive and readable. */
export const PLAIN_EVERY_MS = 30_000;
/** A shard at a terminal: its plain line this often (shards run side by side share the terminal). */
export const SHARD_EVERY_MS = 5000;
/** Outside a terminal, how often the cause of a cut pace is looked at: a new one gets a line at once (causeLines). */
const CAUSE_CHECK_MS = 1000;
/** The rate is that of this last stretch, so a run whose pace changes (a cut limit) gets an honest time left. */
const RATE_WINDOW_MS = 10_000;

export interface Progress {
  /** Removes the line before anything else is written to the terminal. */
  clear(): void;
  /** Puts the line back below what was just written (cleared for it): the line stays pinned at the bottom. */
  restore(): void;
  stop(): void;
}

export const NO_PROGRESS: Progress = { clear() {}, restore() {}, stop() {} };

/** Where a run is, read at each redraw. */
export interface ProgressState {
  /** Ids with a result, in any way. */
  done: number;
  /** Of those, the ids this run sent (not those a --journal skipped): the rate and the time left count only these. */
  sent: number;
  /** Of those, failures so far. */
  failed: number;
  /** Requests allowed in flight now (the adaptive limit, or a fixed --concurrency as cut for load). */
  limit?: number | undefined;
  /** The most the limit may reach (64 by default, N with auto:N, the number with a fixed --concurrency). */
  ceiling?: number | undefined;
  /** While the service is down (every request failing: the run pauses and probes), for how long so far. */
  downForMs?: number | undefined;
  /** Why the pace is cut, when it is (the throttle's PaceState): named after the count (pace-words.ts). */
  pace?: SlowPace | undefined;
}

export interface ProgressOptions {
  /** --progress / PLANTSTORE_PROGRESS=1: outside a terminal, a plain line every PLAIN_EVERY_MS. */
  plain?: boolean;
  /** The clock (tests pass the fake one). */
  now?: () => number;
  /** What the batch is doing, the line's first word: "deleting". */
  doing?: string;
  /**
   * --shard, as `2/4`: each line starts `[shard 2/4]`, and at a terminal it is a plain line every
   * SHARD_EVERY_MS, not one redrawn in place: shards started together (xargs -P) share one
   * terminal, where lines redrawn in place would overwrite each other's.
   */
  shard?: string | undefined;
}

/**
 * At a terminal, one line on stderr redrawn in place, after two seconds: done/total, rate,
 * time so far, time left, failures so far, and an adaptive limit of its ceiling (pv and rclone
 * show the same). It stays pinned below the result lines, wherever stdout goes: the batch
 * clears it before each line it prints and restores it after (as cargo does). It is cut to the
 * terminal's width, read at each redraw, so it never wraps: a wrapped line leaves a stale row
 * at every redraw. Elsewhere nothing, unless opted in: then the same words as one plain line
 * every 30 s, with no escape codes. Writing nothing else keeps logs as they were.
 */
export function startProgress(io: IO, total: number, state: () => ProgressState, options: ProgressOptions = {}): Progress {
  if (total < 2 || !(io.stderrIsTTY || options.plain)) return NO_PROGRESS;
  const live = io.stderrIsTTY && options.shard === undefined;
  const tag = options.shard === undefined ? '' : `[shard ${options.shard}] `;
  const now = options.now ?? Date.now;
  const doing = options.doing ?? 'deleting';
  const started = now();
  const samples: Array<{ at: number; sent: number }> = [{ at: started, sent: 0 }];
  let shown = false;
  /** The text last drawn, put back after a result line without working it out again. */
  let drawn = '';
  const status = (): StatusPart[] => {
    const at = now();
    const current = state();
    samples.push({ at, sent: current.sent });
    while (samples.length > 2 && (samples[1]?.at ?? at) <= at - RATE_WINDOW_MS) samples.shift();
    return statusParts(total, current, at - started, ratePerSecond(samples));
  };
  const write = (text: string): void => {
    io.errText(`\r\x1b[K${io.errStyle().dim(text)}`);
    shown = true;
  };
  const draw = (): void => {
    if (now() - started < SHOW_AFTER_MS) return;
    drawn = fitTo(io.errColumns(), `${doing}… `, status());
    write(drawn);
  };
  const print = (): void => io.err(`${tag}progress: ${joined(status())}`);
  const plain = live ? undefined : causeLines(state, print);
  const timer = live ? setInterval(draw, REDRAW_MS) : setInterval(plain?.beat ?? print, io.stderrIsTTY ? SHARD_EVERY_MS : PLAIN_EVERY_MS);
  timer.unref();
  const clear = (): void => {
    if (shown) io.errText('\r\x1b[K');
    shown = false;
  };
  // Put back once per turn of the event loop, after every line of that turn: a redraw after each
  // of 10,000 lines would interleave stderr with stdout and cost a write each.
  let restoring = false;
  const putBack = (): void => {
    restoring = false;
    if (drawn !== '' && !shown) write(cutTo(io.errColumns(), drawn));
  };
  return {
    clear,
    restore() {
      if (drawn === '' || shown || restoring) return;
      restoring = true;
      setImmediate(putBack);
    },
    stop() {
      clearInterval(timer);
      plain?.stop();
      clear();
      drawn = '';
    },
  };
}

/**
 * The line for one row of a terminal `columns` wide, one column spare: writing the last column
 * leaves some terminals waiting to wrap, and the next \r then clears the wrong row. Parts are
 * left out, least telling first (time so far, the limit, the rate, "0 failed", the time left), before
 * anything is cut, so an 80-column terminal still reads the limit and its ceiling, and 40 columns the
 * count and the time left or the failures; only a line that still does not fit is cut, and ends with "…".
 */
function fitTo(columns: number | undefined, lead: string, parts: readonly StatusPart[]): string {
  const room = columns === undefined || columns < 2 ? Number.POSITIVE_INFINITY : columns - 1;
  let kept = [...parts];
  for (let rank = 1; `${lead}${joined(kept)}`.length > room; rank++) {
    const fewer = kept.filter((part) => part.leaveOut !== rank);
    if (fewer.length === kept.length && rank > LEAST_TELLING) break;
    kept = fewer;
  }
  return cutTo(columns, `${lead}${joined(kept)}`);
}

/** `text` cut to one row of a terminal `columns` wide, one column spare, said to be cut with "…". */
function cutTo(columns: number | undefined, text: string): string {
  if (columns === undefined || columns < 2) return text;
  const room = columns - 1;
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}

/** Per second, over the samples kept (the last RATE_WINDOW_MS); undefined before any time has passed. */
function ratePerSecond(samples: ReadonlyArray<{ at: number; sent: number }>): number | undefined {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || last.at <= first.at) return undefined;
  return ((last.sent - first.sent) * 1000) / (last.at - first.at);
}

/** One part of the status line, and when it may be left out for a narrow terminal (1 first; never when absent). */
interface StatusPart {
  text: string;
  leaveOut?: number;
}

/** The highest `leaveOut` rank: past it, only cutting is left. */
const LEAST_TELLING = 5;

const joined = (parts: readonly StatusPart[]): string => parts.map((part) => part.text).join(', ');

/** `1234/5000 (24%), 85/s, 0:14 elapsed, 0:44 left, 3 failed, limit 32 of 64`; while the service is down, `service down for 0:12` after the count. */
export function statusLine(total: number, state: ProgressState, elapsedMs: number, rate: number | undefined): string {
  return joined(statusParts(total, state, elapsedMs, rate));
}

function statusParts(total: number, state: ProgressState, elapsedMs: number, rate: number | undefined): StatusPart[] {
  const percent = Math.floor((state.done / total) * 100);
  const left = total - state.done;
  const parts: StatusPart[] = [
    { text: `${state.done}/${total} (${percent}%)` },
    // The news of the run while it lasts, never left out: without it a paused run looks hung.
    ...(state.downForMs === undefined ? [] : [{ text: `service down for ${clock(state.downForMs)}` }]),
    ...paceParts(state),
    { text: rate === undefined ? '?/s' : `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s`, leaveOut: 3 },
    { text: `${clock(elapsedMs)} elapsed`, leaveOut: 1 },
    { text: rate === undefined || rate <= 0 ? '? left' : `${clock((left / rate) * 1000)} left`, leaveOut: LEAST_TELLING },
    // Failures are news: kept whenever there are any, before the time left.
    state.failed === 0 ? { text: '0 failed', leaveOut: 4 } : { text: `${state.failed} failed` },
  ];
  if (state.limit !== undefined)
    parts.push({ text: state.ceiling === undefined ? `limit ${state.limit}` : `limit ${state.limit} of ${state.ceiling}`, leaveOut: 2 });
  return parts;
}

/** Why the pace is cut, after the count: news, as an outage is, never left out (the line is cut before it is). */
function paceParts(state: ProgressState): StatusPart[] {
  const why = whySlow(state.pace);
  return why === undefined ? [] : [{ text: why }];
}

/**
 * Outside a terminal, the plain line every PLAIN_EVERY_MS (`beat`), and one more at once when the
 * pace is cut for a cause the last line did not name: a CI log says that the server refuses 30% of
 * requests when it starts to, not up to 30 s later. At most one such line between two beats, so a
 * cause that comes and goes cannot fill a log.
 */
function causeLines(state: () => ProgressState, print: () => void): { beat(): void; stop(): void } {
  const named = (): string => slowCauses(state().pace).join(',');
  let last = '';
  let sinceBeat = false;
  const say = (): void => {
    last = named();
    print();
  };
  const check = setInterval(() => {
    const now = named();
    if (sinceBeat || now === '' || now === last) return;
    sinceBeat = true;
    say();
  }, CAUSE_CHECK_MS);
  check.unref();
  return {
    beat() {
      sinceBeat = false;
      say();
    },
    stop: () => clearInterval(check),
  };
}

/** A time as pv writes it: M:SS, or H:MM:SS from an hour on. */
export function clock(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const two = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}
