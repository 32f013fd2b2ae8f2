import { setTimeout as sleep } from 'node:timers/promises';
import { decided as decidedCount, type FollowedJob, JobFollower } from '../../batch/journal/follow.js';
import { learnTokensAtRest } from '../../config/tokens-at-rest.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, InterruptedError } from '../../errors.js';
import type { IO } from '../../ui/io.js';
import type { JournalOptions } from './flags.js';
import {
  blockLines,
  changeKey,
  changeLine,
  DecidedRate,
  fileLine,
  fileStateWord,
  finishedLine,
  type WatchView,
  watchObject,
} from './watch-words.js';

/** How often the journals are read again. */
export const WATCH_EVERY_MS = 1000;

/**
 * `plantstore journal status --watch FILE…`: the journals read again every second (only what
 * they gained: batch/journal/follow.ts), without a lock, the totals, the rate and the time left
 * shown as they change. At a terminal (stdout and stderr both one), a block redrawn in place;
 * elsewhere (a pipe, a file, a CI log), a line for each change, or with --json an object.
 *
 * It ends by itself, exit 0, once the journals say the job is finished (every shard's last run
 * went through every id), as `gh run watch` ends with its run: a watch over a finished job says
 * so at once. A shard that stopped short (--max-duration, a signal, a give-up) does not end it:
 * that shard is run again, as docs/shards.md says, and the watch goes on. Ctrl-C and SIGTERM
 * end it with exit 0: stopping to watch is not a failure of the job.
 */
export async function runJournalWatch(
  opts: JournalOptions,
  ctx: Context,
  /** Waits for the next reading; false when a signal came first. A seam: tests step the readings themselves. */
  next: (signal: AbortSignal) => Promise<boolean> = (signal) => waitUnlessAborted(WATCH_EVERY_MS, signal),
  now: () => number = () => performance.now(),
): Promise<ExitCode> {
  // As `journal status`: a journal written before base URLs were stored masked may hold a token.
  learnTokensAtRest(ctx.env, [], ctx.io.redact);
  const screen = opts.json ? jsonScreen(ctx.io) : ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY ? pinnedBlock(ctx.io) : changeLines(ctx.io);
  const rate = new DecidedRate();
  let follower: JobFollower;
  try {
    follower = await JobFollower.open(opts.files, ctx.signal);
  } catch (error) {
    if (error instanceof InterruptedError && ctx.signal.aborted) return Exit.ok;
    throw error;
  }
  let view: WatchView | undefined;
  try {
    for (;;) {
      const state: FollowedJob = await follower.refresh(ctx.signal);
      rate.add(now(), decided(state));
      view = { state, rate: rate.perSecond() };
      screen.show(view);
      if (state.job.finished) {
        screen.finished(view);
        return Exit.ok;
      }
      if (!(await next(ctx.signal))) break;
    }
  } catch (error) {
    if (!(error instanceof InterruptedError && ctx.signal.aborted)) throw error;
  } finally {
    follower.close();
  }
  if (view !== undefined) screen.stopped(view);
  return Exit.ok;
}

const decided = (state: FollowedJob): number => decidedCount(state.counts);

/** Waits `ms`; false when a signal came first. */
async function waitUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

interface Screen {
  show(view: WatchView): void;
  /** The job is finished: said, and the watch ends. */
  finished(view: WatchView): void;
  /** Ctrl-C or SIGTERM: the terminal is left as a shell expects it. */
  stopped(view: WatchView): void;
}

/**
 * At a terminal: the block, redrawn over itself each second (cursor up, each row rewritten and
 * erased to its end, then the rows below it), each line
 * cut to the terminal's width as read at that redraw, so no line wraps and no row is left stale.
 * The cursor stays below the block: what a Ctrl-C echoes there is erased by the last redraw,
 * which leaves the block and a clean line for the shell's prompt.
 */
function pinnedBlock(io: IO): Screen {
  let drawn: string[] = [];
  const draw = (view: WatchView): void => {
    const columns = io.errColumns();
    const lines = blockLines(view, columns);
    const rows = rowsTaken(drawn, columns);
    // Each row erased to its end as it is written (an erase of the screen from its first cell would
    // push it into tmux's history), then the rows below it that the last block or a ^C took.
    const below = Math.max(rows - lines.length, 0) + 1;
    const up = rows > 0 ? `\x1b[${rows}A\r` : '';
    io.out(`${up}${lines.map((line) => `${line}\x1b[K`).join('\n')}${'\n\x1b[K'.repeat(below)}\x1b[${below}A`);
    drawn = lines;
  };
  return { show: draw, finished: draw, stopped: draw };
}

/**
 * The rows the last block takes now: one a line, unless the terminal was made narrower since
 * and rewrapped its lines (as tmux and VTE terminals do), when a line takes as many rows as it
 * now wraps to. Erasing one row too many is a blank row; one too few would leave a stale one.
 */
function rowsTaken(lines: readonly string[], columns: number | undefined): number {
  if (columns === undefined || columns < 1) return lines.length;
  return lines.reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / columns)), 0);
}

/**
 * Elsewhere: a line per file at the start and whenever one starts, stops or finishes, and a line
 * of totals whenever they changed (never one a second for nothing: a CI log stays readable).
 */
function changeLines(io: IO): Screen {
  let totals = '';
  let files: string[] = [];
  const show = (view: WatchView): void => {
    const states = view.state.files.map((file) => `${fileStateWord(file)} ${file.run.ended ?? ''}`);
    view.state.files.forEach((file, index) => {
      if (states[index] !== files[index]) io.out(fileLine(file));
    });
    files = states;
    const key = changeKey({ ...view.state, files: [] });
    if (key === totals) return;
    totals = key;
    io.out(changeLine(view));
  };
  return { show, finished: (view) => io.out(finishedLine(view.state)), stopped: () => {} };
}

/** --json: one object per change, the same changes as the lines; the last one says finished: true. */
function jsonScreen(io: IO): Screen {
  let last = '';
  return {
    show(view) {
      const key = changeKey(view.state);
      if (key === last) return;
      last = key;
      io.outObject(watchObject(view));
    },
    finished: () => {},
    stopped: () => {},
  };
}
