import { describe, expect, it } from 'vitest';
import { colorLevel, createTestIO, LEASED_MASKED } from '../../../src/ui/io.js';

describe('colorLevel', () => {
  it.each<[string, boolean, Record<string, string>, boolean, number]>([
    ['tty, nothing set', true, {}, false, 1],
    ['not a tty, nothing set', false, {}, false, 0],
    ['--no-color beats a tty', true, {}, true, 0],
    ['--no-color beats FORCE_COLOR', true, { FORCE_COLOR: '3' }, true, 0],
    ['FORCE_COLOR=0 on a tty', true, { FORCE_COLOR: '0' }, false, 0],
    ['FORCE_COLOR=false', true, { FORCE_COLOR: 'false' }, false, 0],
    ['FORCE_COLOR=1 without a tty', false, { FORCE_COLOR: '1' }, false, 1],
    ['FORCE_COLOR=2', false, { FORCE_COLOR: '2' }, false, 2],
    ['FORCE_COLOR=3', false, { FORCE_COLOR: '3' }, false, 3],
    ['FORCE_COLOR empty means on', false, { FORCE_COLOR: '' }, false, 1],
    ['FORCE_COLOR beats NO_COLOR', false, { FORCE_COLOR: '1', NO_COLOR: '1' }, false, 1],
    ['NO_COLOR on a tty', true, { NO_COLOR: '1' }, false, 0],
    ['empty NO_COLOR is ignored', true, { NO_COLOR: '' }, false, 1],
    ['TERM=dumb on a tty', true, { TERM: 'dumb' }, false, 0],
    ['FORCE_COLOR beats TERM=dumb', false, { TERM: 'dumb', FORCE_COLOR: '1' }, false, 1],
    ['TERM=xterm on a tty', true, { TERM: 'xterm-256color' }, false, 1],
  ])('%s -> %i', (_name, isTTY, env, noColorFlag, level) => {
    expect(colorLevel(isTTY, env, noColorFlag)).toBe(level);
  });
});

describe("the last-step mask and a token command's tokens", () => {
  const token = (n: number) => `leased-token-${n}-0123456789`;

  it(`holds the newest ${LEASED_MASKED} of 1,000 tokens, and every static secret: its cost stays that of a few`, () => {
    const io = createTestIO();
    io.redact('static-secret-0123456789');
    for (let n = 1; n <= 1000; n++) io.redactLeased(token(n));
    const newest = Array.from({ length: LEASED_MASKED }, (_, i) => token(1000 - i));
    expect(io.mask(`${newest.join(' ')} static-secret-0123456789`)).toBe(
      Array(LEASED_MASKED + 1)
        .fill('***')
        .join(' '),
    );
    // The transport masked what the server said with every token its attempts carried; here an
    // old one is no longer looked for, and that is the bound on the cost.
    expect(io.mask(token(1000 - LEASED_MASKED))).toBe(token(1000 - LEASED_MASKED));
  });

  it('a token given again is not counted twice', () => {
    const io = createTestIO();
    for (let n = 1; n <= LEASED_MASKED; n++) io.redactLeased(token(n));
    io.redactLeased(token(1));
    expect(io.mask(token(1))).toBe('***');
  });
});
