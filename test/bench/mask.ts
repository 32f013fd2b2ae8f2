// The mask after a long run of a token command (issue 27, item 4): eight hours of one-minute
// tokens is about 1,000 tokens obtained. Every line the CLI prints goes through the last-step
// mask (ui/io.ts); it must cost what it costs with one token, however many the run has seen.
// In process, over the source: no server or CLI is involved in what is measured.
//
// Figure: 10,000 failure lines masked after 1,000 renewals (each registered with the mask).
// Floor: the same lines after ten renewals (ten minutes of such a run), a mask as full as it gets. Beside them, in a note, what a renewal costs
// the mask, and what a mask of every token seen would cost a line (the mask before issue 27).

import { createMask } from '../../src/text/secret-mask.js';
import { createTestIO } from '../../src/ui/io.js';
import { median, type Options } from './proc.js';
import { failedRow, formatMs, type Row } from './table.js';

const TOKENS = 1000;
const LINES = 10_000;
const UNBOUNDED_LINES = 50;
const TARGET_RATIO = 1.5;
const token = (n: number): string => `eyJhbGciOiJIUzI1NiJ9.run-token-${n}.c2lnbmF0dXJlLW9mLXRva2VuLQ`;
const line = (i: number): string =>
  `✗ plant ${1_000_000 + i}: error 400: the plant could not be deleted because the store is being rebuilt; try again later (HTTP 400)`;

function timeLines(mask: (text: string) => string, lines = LINES): number {
  const started = performance.now();
  let length = 0;
  for (let i = 0; i < lines; i++) length += mask(line(i)).length;
  if (length === 0) throw new Error('nothing was masked');
  return performance.now() - started;
}

function afterTokens(count: number): { renewalsMs: number; linesMs: number } {
  const started = performance.now();
  const io = createTestIO();
  for (let n = 1; n <= count; n++) io.redactLeased(token(n));
  const renewalsMs = performance.now() - started;
  return { renewalsMs, linesMs: timeLines(io.mask) };
}

export async function benchMask(options: Options): Promise<Row[]> {
  const figure = `mask: ${TOKENS.toLocaleString('en')} tokens seen, then ${LINES.toLocaleString('en')} lines`;
  const target = `≤ ${TARGET_RATIO.toFixed(2)}×`;
  try {
    const figures: number[] = [];
    const floors: number[] = [];
    const renewals: number[] = [];
    for (let run = 0; run < options.warmups + options.runs; run++) {
      const long = afterTokens(TOKENS);
      const short = afterTokens(10);
      if (run >= options.warmups) {
        figures.push(long.linesMs);
        floors.push(short.linesMs);
        renewals.push(long.renewalsMs / TOKENS);
      }
    }
    // A few lines only: at 1,000 patterns a line, 10,000 lines take minutes.
    const every = createMask(Array.from({ length: TOKENS }, (_, i) => token(i + 1)));
    const perLineUnbounded = timeLines(every, UNBOUNDED_LINES) / UNBOUNDED_LINES;
    const value = median(figures);
    const floor = median(floors);
    const ratio = value / floor;
    return [
      {
        figure,
        value: formatMs(value),
        floor: formatMs(floor),
        ratio,
        target,
        met: ratio <= TARGET_RATIO,
        notes: [
          `floor: the same ${LINES.toLocaleString('en')} lines after 10 tokens; each renewal costs the mask ` +
            `${formatMs(median(renewals))}; a mask of every token seen would take ${formatMs(perLineUnbounded)} a line ` +
            `(${formatMs(perLineUnbounded * LINES)} for these lines)`,
        ],
      },
    ];
  } catch (error) {
    return [failedRow(figure, target, error)];
  }
}
