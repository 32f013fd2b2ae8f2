// A vitest reporter that says where a run's time went, after the run: the slowest files, the sum
// of every file's time, what each worker was busy for, and the wall-clock. The suite's budget (at
// most 90 s for `npm test` on a 2-core machine, issue 42) is kept by reading this, not by a timing
// threshold in a test: a file that grows shows up at the top of the list, and a worker left idle
// at the end (one long file started last) shows as a gap between the workers' last ends. On a
// 2-core machine the suite is bound by CPU more than by waiting: each file's CPU (test/helpers/
// file-cpu.ts) is shown beside its time, and the files that take the most CPU are listed apart.
import path from 'node:path';
import type { Reporter, TestModule, TestSpecification, Vitest } from 'vitest/node';

/** How many files the list names, unless PLANTSTORE_SUITE_SHOWN=300 asks for every file (to find where a slow suite's CPU went). */
const SHOWN = 10;
const shownByDefault = (): number => Number(process.env['PLANTSTORE_SUITE_SHOWN'] ?? '') || SHOWN;

interface FileTime {
  file: string;
  /** What the file held its worker for: set-up, import (collect) and its tests and hooks. */
  ms: number;
  worker: number;
  /** When it ended, from the run's start. */
  endedAt: number;
  /** CPU seconds of its worker and of the processes its tests started (file-cpu.ts); undefined if unknown. */
  cpu?: number | undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpuSeconds = (cpu: number) => `${cpu.toFixed(1)} s`;

/** A file's time in its worker, from vitest's own diagnostic of it. */
function timeOf(module: TestModule): number {
  const d = module.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
}

export default class SlowestFiles implements Reporter {
  private vitest: Vitest | undefined;
  private startedAt = 0;
  private readonly files: FileTime[] = [];

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(_specifications: ReadonlyArray<TestSpecification>): void {
    this.startedAt = performance.now();
    this.files.length = 0;
  }

  onTestModuleEnd(module: TestModule): void {
    const root = this.vitest?.config.root ?? process.cwd();
    this.files.push({
      file: path.relative(root, module.moduleId),
      ms: timeOf(module),
      worker: module.diagnostic().concurrencyId,
      endedAt: performance.now() - this.startedAt,
      cpu: module.meta().cpuSeconds,
    });
  }

  onTestRunEnd(): void {
    if (this.files.length === 0) return;
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    for (const line of report(this.files, performance.now() - this.startedAt)) log(line);
  }
}

/** The report's lines: exported so that a test can read them without a run. */
export function report(files: readonly FileTime[], wallMs: number, shown = shownByDefault()): string[] {
  const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, shown);
  const total = files.reduce((sum, file) => sum + file.ms, 0);
  const workers = new Map<number, { busy: number; lastEnd: number; files: number }>();
  for (const file of files) {
    const worker = workers.get(file.worker) ?? { busy: 0, lastEnd: 0, files: 0 };
    worker.busy += file.ms;
    worker.lastEnd = Math.max(worker.lastEnd, file.endedAt);
    worker.files += 1;
    workers.set(file.worker, worker);
  }
  const width = Math.max(...slowest.map((file) => seconds(file.ms).length));
  const measured = files.filter((file): file is FileTime & { cpu: number } => file.cpu !== undefined);
  const cpuOf = (file: FileTime) => (file.cpu === undefined ? 'CPU unknown' : `${cpuSeconds(file.cpu)} CPU`);
  const cpuWidth = Math.max(...slowest.map((file) => cpuOf(file).length));
  const lines = [
    '',
    `Slowest ${slowest.length} of ${files.length} files (each: set-up, import, tests; ${seconds(total)} in all, wall-clock ${seconds(wallMs)}):`,
    ...slowest.map((file) => `  ${seconds(file.ms).padStart(width)}  ${cpuOf(file).padStart(cpuWidth)}  ${file.file}`),
  ];
  if (measured.length > 0) {
    // Counted only where the file's worker could say (Linux), so a sum over some files is not the suite's.
    const sum = measured.reduce((all, file) => all + file.cpu, 0);
    const most = [...measured].sort((a, b) => b.cpu - a.cpu).slice(0, shown);
    const mostWidth = Math.max(...most.map((file) => cpuSeconds(file.cpu).length));
    lines.push(
      `Most CPU, ${most.length} files (${measured.length} of ${files.length} measured; each: its worker and the processes its tests started; ${cpuSeconds(sum)} in all):`,
      ...most.map((file) => `  ${cpuSeconds(file.cpu).padStart(mostWidth)}  ${file.file}`),
    );
  }
  lines.push(
    `Workers: ${[...workers.entries()]
      .sort(([a], [b]) => a - b)
      .map(([id, w]) => `#${id} busy ${seconds(w.busy)} over ${w.files} files, last ended at ${seconds(w.lastEnd)}`)
      .join('; ')}`,
  );
  return lines;
}
