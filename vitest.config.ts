import { availableParallelism } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import SlowestFiles from './test/helpers/slowest-files.js';

const E2E = ['test/e2e/**/*.test.ts'];
// Files that change process-wide state another file would inherit in a shared worker: nock
// patches the HTTP stack of the whole process, and vi.mock replaces a module that other files
// import too. They get a fresh module graph each. The rule is in the name: a file that uses
// nock or vi.mock is called *.isolated.test.ts (test/unit/test-isolation.test.ts checks it).
const ISOLATED = ['test/**/*.isolated.test.ts'];

/**
 * The files that take longest, longest first, as the reporter (test/helpers/slowest-files.ts)
 * lists them after a run. They start first, so that no long file starts last and leaves the
 * other workers idle at the end. vitest orders by the durations of its previous run when it has
 * them (its cache), but a fresh clone, as in CI, has none: it would order by size, and the
 * longest files are among the shortest (they wait on outages, latencies, suspends).
 */
const LONGEST_FIRST = [
  'test/e2e/outage.e2e.test.ts',
  'test/e2e/progress-terminal.e2e.test.ts',
  'test/e2e/journal-crash.e2e.test.ts',
  'test/e2e/not-api-outage.e2e.test.ts',
  'test/e2e/pace.e2e.test.ts',
  'test/e2e/sandbox-pressure.e2e.test.ts',
  'test/e2e/journal-left.e2e.test.ts',
  'test/e2e/suspended.e2e.test.ts',
  'test/e2e/sandbox-readme.e2e.test.ts',
  'test/e2e/journal-interrupts.e2e.test.ts',
];

/**
 * The longest files first (LONGEST_FIRST), then the other end-to-end files, then the rest: unit
 * files are short, and fill the workers' ends. Within each kind, vitest's own order: longest
 * first when it has the durations of a previous run, else largest file first.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const listed = LONGEST_FIRST.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'));
      if (listed !== -1) return listed;
      return LONGEST_FIRST.length + (spec.project.name === 'e2e' ? 0 : 1);
    };
    // A stable sort: within a rank, vitest's order stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Every core, and at least two: vitest's default (one less than the cores) is a single
    // worker on a 2-core machine, which leaves a core idle whenever a file waits on a server.
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: LongestFirst },
    // After the run, the 10 slowest files, the sum of all and each worker's busy time: where the
    // suite's time goes (its budget: 90 s on a 2-core machine), read, never asserted in a test.
    reporters: ['default', new SlowestFiles()],
    // Undone after each test even if a file forgets: nothing stubbed or spied on leaks into the next file.
    unstubEnvs: true,
    unstubGlobals: true,
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          // Files share their worker's module cache (see 'unit'): none changes a global.
          isolate: false,
          // A hang guard, not a speed limit: the built CLI, servers and child processes compete
          // for two cores with the other worker (and, on a developer's machine, everything else).
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...E2E, ...ISOLATED],
          // Files share their worker's module cache instead of loading src/ and vitest afresh each:
          // none leaves a global changed (fake timers and spies are undone in afterEach).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
