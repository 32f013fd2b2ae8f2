// No module in src/ over 300 lines (the design notes' rule): a file that grows past it is split
// by responsibility, as latency-limit.ts was into latency-tuning.ts and latency-growth.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 300;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const linesOf = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('src/', () => {
  it(`has no file over ${MAX_LINES} lines`, () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(50);
    const over = files
      .map((file) => ({ file: path.relative(SRC, file), lines: linesOf(readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(over).toEqual([]);
  });

  it('counts lines as wc -l does', () => {
    expect(linesOf('a\nb\n')).toBe(2);
    expect(linesOf('a\nb')).toBe(2);
    expect(linesOf(`${'x\n'.repeat(MAX_LINES + 1)}`)).toBe(MAX_LINES + 1);
  });
});
