import { describe, expect, it } from 'vitest';
import { colorLevel } from '../../../src/ui/io.js';

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
