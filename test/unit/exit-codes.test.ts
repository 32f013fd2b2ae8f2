// The exit-code table is written once (src/errors.ts); the README's table is prose around
// the same codes, held to it here as flags.test.ts holds the README to the flags.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_HELP, Exit } from '../../src/errors.js';

const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The codes of the README's "Exit codes" table, in order. */
function readmeCodes(): number[] {
  const section = README.slice(README.indexOf('## Exit codes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code |')));
  return [...table.matchAll(/^\| (\d+) \|/gm)].map((row) => Number(row[1]));
}

describe('the exit-code table', () => {
  it("is the README's, code for code and in the same order", () => {
    expect(readmeCodes()).toEqual(EXIT_CODE_HELP.map(([code]) => code));
  });

  it('names each code once', () => {
    const codes = Object.values(Exit);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(EXIT_CODE_HELP.map(([code]) => code));
  });
});
