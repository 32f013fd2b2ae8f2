import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longest-first.js';
import SlowestFiles from './test/helpers/slowest-files.js';

const E2E = ['test/e2e/**/*.test.ts'];
// Files that change process-wide state another file would inherit in a shared worker: nock
// patches the HTTP stack of the whole process, and vi.mock replaces a module that other files
// import too. They get a fresh module graph each. The rule is in the name: a file that uses
// nock or vi.mock is called *.isolated.test.ts (test/unit/test-isolation.test.ts checks it).
const ISOLATED = ['test/**/*.isolated.test.ts'];

export default defineConfig({
  test: {
    // Every core, and at least three: end-to-end files spend part of their time waiting (on a
    // latency, an outage, a suspend, a kill), so on a 2-core machine two files at a time leave the
    // cores idle at times; three keep them busy. Four did too, but once the waits were cut (the
    // tests of journal-watch and progress-terminal run at once) the suite became bound by CPU, and
    // the fourth worker only added contention: 172 core-seconds and 90.7 s of wall-clock against
    // three's 147-152 and 86.1-88.5 s on this 2-core machine. vitest's default (one less than the
    // cores) would be a single worker there.
    maxWorkers: Math.max(3, availableParallelism()),
    // The longest files first (test/helpers/longest-first.ts): a fresh clone has no durations cached.
    sequence: { sequencer: LongestFirst },
    // After the run, the 10 slowest files, the 10 that take the most CPU, the sum of all and each
    // worker's busy time: where the suite's time goes (its budget: 90 s on a 2-core machine), read,
    // never asserted in a test.
    reporters: ['default', new SlowestFiles()],
    // Each file's CPU (its worker's and its children's), which that report prints beside its time.
    setupFiles: ['./test/helpers/file-cpu.ts'],
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
