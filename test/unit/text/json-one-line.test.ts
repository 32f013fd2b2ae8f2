// A --json line is one line for every reader, and nothing in it rewrites a terminal: C1 controls
// (U+0085 is a line break to Python's splitlines, U+009B a CSI), U+2028 and U+2029, and the bidi
// controls are written as \u escapes, the same value once parsed (issue 40, item 11).
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonOnOneLine } from '../../../src/text/shown.js';
import { inProcess } from '../../helpers/in-process.js';

const { run, file } = inProcess();
const AWKWARD = 'a\u2028b\u2029c\u0085d\u009b31me\u0080f\u202eg';
const RAW = /[\u0080-\u009f\u2028\u2029\u202e]/;

describe('jsonOnOneLine', () => {
  it('escapes each awkward character, and the value parses back the same', () => {
    const line = jsonOnOneLine(JSON.stringify({ value: AWKWARD }));
    expect(line).toBe('{"value":"a\\u2028b\\u2029c\\u0085d\\u009b31me\\u0080f\\u202eg"}');
    expect(line).not.toMatch(RAW);
    expect(JSON.parse(line)).toEqual({ value: AWKWARD });
  });

  it('leaves every other line as it was', () => {
    const line = JSON.stringify({ value: 'plain, é, 植物, \t tab' });
    expect(jsonOnOneLine(line)).toBe(line);
  });
});

describe('--json output of stored values', () => {
  it.each([[['--json', 'config', 'get', 'missing-error']], [['--json', 'config', 'list']]])(
    '%j: one line, no raw C1, U+2028 or bidi character, the value intact',
    async (argv) => {
      writeFileSync(file(), JSON.stringify({ profiles: { default: { 'missing-error': AWKWARD } } }), { mode: 0o600 });
      const result = await run(argv);
      expect(result.stdout).not.toMatch(RAW);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.stringify(JSON.parse(result.stdout))).toContain(JSON.stringify(AWKWARD).slice(1, -1));
    },
  );
});
