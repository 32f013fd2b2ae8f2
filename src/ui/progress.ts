import type { IO } from './io.js';

/** How long a run goes before it earns a progress line: short runs stay quiet. */
const SHOW_AFTER_MS = 2000;
const REDRAW_MS = 200;

export interface Progress {
  /** Removes the line before anything else is written to stderr. */
  clear(): void;
  stop(): void;
}

export const NO_PROGRESS: Progress = { clear() {}, stop() {} };

/**
 * A one-line counter on stderr, redrawn in place, only on a terminal and only
 * for runs longer than two seconds. Writing nothing elsewhere keeps logs clean.
 */
export function startProgress(io: IO, total: number, done: () => number): Progress {
  if (!io.stderrIsTTY || total < 2) return NO_PROGRESS;
  const started = Date.now();
  let shown = false;
  const draw = (): void => {
    if (Date.now() - started < SHOW_AFTER_MS) return;
    const count = done();
    io.errText(`\r\x1b[K${io.errStyle().dim(`deleting… ${count}/${total} (${Math.floor((count / total) * 100)}%)`)}`);
    shown = true;
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  const clear = (): void => {
    if (shown) io.errText('\r\x1b[K');
    shown = false;
  };
  return {
    clear,
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}
