// The order in which vitest starts the suite's files (vitest.config.ts): the longest first, so
// that no long file starts last and leaves the other workers idle at the end.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first, as the slowest-files report (slowest-files.ts)
 * lists them after a run. vitest orders by the durations of its previous run when it has them
 * (its cache), but a fresh clone, as in CI, has none: it would order by size, and the longest
 * files are among the shortest (they wait on outages, latencies, kills). A file that grows long
 * shows at the top of the report: add it here. test/unit/slowest-files.test.ts checks each exists.
 * The order is each file's time in the whole suite's run (the report's list, issue 42), where
 * files share the cores: a file bound by CPU takes longer there than alone, one that waits does not.
 */
export const LONGEST_FIRST = [
  'test/e2e/journal-crash.e2e.test.ts',
  'test/e2e/journal-interrupts.e2e.test.ts',
  'test/e2e/journal-left.e2e.test.ts',
  'test/e2e/journal-watch.e2e.test.ts',
  'test/e2e/outage.e2e.test.ts',
  'test/e2e/not-api-outage.e2e.test.ts',
  'test/e2e/journal.e2e.test.ts',
  'test/e2e/why-slow.e2e.test.ts',
  'test/e2e/npx.e2e.test.ts',
  'test/e2e/hostile.e2e.test.ts',
  'test/e2e/batch.e2e.test.ts',
  'test/e2e/proxy.e2e.test.ts',
  'test/e2e/shards.e2e.test.ts',
  'test/e2e/proof.e2e.test.ts',
  'test/e2e/settings-sources.e2e.test.ts',
  'test/e2e/shards-terminal.e2e.test.ts',
  'test/e2e/docs.e2e.test.ts',
  'test/e2e/delete.e2e.test.ts',
  'test/e2e/config-hazards.e2e.test.ts',
  'test/e2e/pace.e2e.test.ts',
  'test/e2e/leak.e2e.test.ts',
  'test/e2e/soak.e2e.test.ts',
  'test/e2e/sandbox-readme.e2e.test.ts',
  'test/e2e/progress-terminal.e2e.test.ts',
  'test/unit/batch/journal/crash.test.ts',
];

/**
 * LONGEST_FIRST, then the other end-to-end files, then the rest: unit files are short, and fill
 * the workers' ends. Within each kind, vitest's own order: longest first when it has the
 * durations of a previous run, else largest file first.
 */
export class LongestFirst extends BaseSequencer {
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
