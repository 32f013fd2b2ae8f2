// A success line on stdout, for every verb on a plant.

import type { IO } from '../../../ui/io.js';

/**
 * The mark goes with what the reader sees: a terminal, or color forced onto a pipe (FORCE_COLOR in a
 * CI log), colored as failures are. A plain pipe gets the bare sentence, which scripts match on.
 */
export function successLine(io: IO, text: string): string {
  const style = io.outStyle();
  return io.stdoutIsTTY || style.level > 0 ? `${style.green('✓')} ${text}` : text;
}
