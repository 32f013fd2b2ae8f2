// The reporter that says where the suite's time went (test/helpers/slowest-files.ts, wired in
// vitest.config.ts): what it prints from a run's file times, read without a run. No timing is
// asserted here or anywhere: the suite's budget is kept by reading the list, not by a threshold.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { LONGEST_FIRST } from '../helpers/longest-first.js';
import { report } from '../helpers/slowest-files.js';

const file = (name: string, ms: number, worker: number, endedAt: number) => ({ file: `test/e2e/${name}.e2e.test.ts`, ms, worker, endedAt });

describe('the slowest-files report', () => {
  it('names the 10 slowest files, slowest first, the sum of all and what each worker was busy for', () => {
    const files = [
      ...Array.from({ length: 12 }, (_, i) => file(`f${i}`, (i + 1) * 1000, (i % 2) + 1, (i + 1) * 2000)),
      file('longest', 34_500, 2, 40_000),
    ];
    const lines = report(files, 41_200, 10);
    expect(lines).toEqual([
      '',
      'Slowest 10 of 13 files (each: set-up, import, tests; 112.5 s in all, wall-clock 41.2 s):',
      '  34.5 s  CPU unknown  test/e2e/longest.e2e.test.ts',
      '  12.0 s  CPU unknown  test/e2e/f11.e2e.test.ts',
      '  11.0 s  CPU unknown  test/e2e/f10.e2e.test.ts',
      '  10.0 s  CPU unknown  test/e2e/f9.e2e.test.ts',
      '   9.0 s  CPU unknown  test/e2e/f8.e2e.test.ts',
      '   8.0 s  CPU unknown  test/e2e/f7.e2e.test.ts',
      '   7.0 s  CPU unknown  test/e2e/f6.e2e.test.ts',
      '   6.0 s  CPU unknown  test/e2e/f5.e2e.test.ts',
      '   5.0 s  CPU unknown  test/e2e/f4.e2e.test.ts',
      '   4.0 s  CPU unknown  test/e2e/f3.e2e.test.ts',
      // Worker 1 ran f0, f2, … f10 (1 + 3 + … + 11 s); worker 2 the others and the longest.
      'Workers: #1 busy 36.0 s over 6 files, last ended at 22.0 s; #2 busy 76.5 s over 7 files, last ended at 40.0 s',
    ]);
  });

  it("each file's CPU beside its time, and the files that take the most CPU, which need not be the slowest", () => {
    const files = [
      { ...file('waits', 40_000, 1, 40_000), cpu: 4.2 },
      { ...file('works', 20_000, 2, 20_000), cpu: 14.5 },
      { ...file('elsewhere', 1_000, 2, 21_000), cpu: undefined },
    ];
    expect(report(files, 40_500, 10)).toEqual([
      '',
      'Slowest 3 of 3 files (each: set-up, import, tests; 61.0 s in all, wall-clock 40.5 s):',
      '  40.0 s    4.2 s CPU  test/e2e/waits.e2e.test.ts',
      '  20.0 s   14.5 s CPU  test/e2e/works.e2e.test.ts',
      '   1.0 s  CPU unknown  test/e2e/elsewhere.e2e.test.ts',
      'Most CPU, 2 files (2 of 3 measured; each: its worker and the processes its tests started; 18.7 s in all):',
      '  14.5 s  test/e2e/works.e2e.test.ts',
      '   4.2 s  test/e2e/waits.e2e.test.ts',
      'Workers: #1 busy 40.0 s over 1 files, last ended at 40.0 s; #2 busy 21.0 s over 2 files, last ended at 21.0 s',
    ]);
  });

  it('is what npm test prints after the run: vitest.config.ts lists it beside the default reporter', () => {
    const config = readFileSync(path.join(ROOT, 'vitest.config.ts'), 'utf8');
    expect(config).toContain("import SlowestFiles from './test/helpers/slowest-files.js';");
    expect(config).toContain("reporters: ['default', new SlowestFiles()]");
    // The CPU it prints beside each file comes from this setup file.
    expect(config).toContain("setupFiles: ['./test/helpers/file-cpu.ts']");
  });

  it('the files vitest starts first, the longest of the last runs, each still exists (a renamed one would start late)', () => {
    expect(LONGEST_FIRST.filter((name) => !existsSync(path.join(ROOT, name)))).toEqual([]);
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });
});
