// Spawning the built CLI with a stopwatch (a hang guard, not a benchmark), and with
// a peak-RSS reading through GNU time when the machine has it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, cleanEnv, finished, type RunOptions, type RunResult, runPlantstore } from './cli.js';

export interface TimedResult extends RunResult {
  /** Wall time from spawn to exit, in milliseconds. */
  ms: number;
}

export async function runTimed(args: readonly string[], options: RunOptions = {}): Promise<TimedResult> {
  const started = performance.now();
  const result = await runPlantstore(args, options);
  return { ...result, ms: performance.now() - started };
}

/** GNU time, which reports a child's peak RSS; undefined where it is not installed. */
export const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs the CLI under GNU time; `peakRssKiB` is the CLI's maximum resident set size. */
export async function runWithPeakRss(args: readonly string[], options: RunOptions = {}): Promise<TimedResult & { peakRssKiB: number }> {
  if (!GNU_TIME) throw new Error('/usr/bin/time is not installed');
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-rss-'));
  const report = path.join(dir, 'rss');
  try {
    const started = performance.now();
    const child = spawn(GNU_TIME, ['-f', '%M', '-o', report, options.node ?? process.execPath, BIN, ...args], {
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // As startPlantstore: a command that never reads its stdin may exit before this write lands.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
    const result = await finished(child);
    const ms = performance.now() - started;
    // GNU time writes "Command exited with non-zero status N" before the figure.
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    return { ...result, ms, peakRssKiB: Number(lines[lines.length - 1]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
