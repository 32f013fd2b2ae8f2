// One batch run against the scripted server (net-server-process.ts), and how
// its outcome reads in the table. A plantstore run that exits non-zero is a
// result ("exit 6, 489 failed"), not a harness failure: the network benchmarks
// exist to show how the client copes, including when it does not. Only a run the
// server cannot vouch for (a request without the right token) is an error.

import { summaryCounts } from '../helpers/batch-output.js';
import type { Behaviour } from './net-server.js';
import type { NetServerProcess, NetServerStats } from './net-server-process.js';
import { type Command, median, type Ran, runOnce } from './proc.js';

/** No batch here should take more than a minute or so; one that hangs is killed and reported. */
export const DEADLINE_MS = 300_000;

export interface Batch {
  ran: Ran;
  /** What the server saw during this run alone. */
  stats: NetServerStats;
  /** CPU the server process used during the run, in ms. */
  serverCpuMs: number;
  timedOut: boolean;
}

/** Sets the server's behaviour (a new record), runs the command once, and reads what the server saw. */
export async function runBatch(server: NetServerProcess, behaviour: Behaviour, command: Command): Promise<Batch> {
  await server.configure(behaviour);
  const before = await server.stats();
  const timeoutMs = command.timeoutMs ?? DEADLINE_MS;
  const ran = await runOnce({ ...command, timeoutMs });
  const stats = await server.stats();
  if (stats.authorized !== stats.total) {
    throw new Error(`the server got ${stats.total - stats.authorized} of ${stats.total} requests without the bench's bearer token`);
  }
  return { ran, stats, serverCpuMs: stats.cpuMs - before.cpuMs, timedOut: ran.ms >= timeoutMs };
}

/** Runs `count` times and picks the run to report (see pick). */
export async function repeat(count: number, once: () => Promise<Batch>): Promise<Batch> {
  const all: Batch[] = [];
  for (let i = 0; i < count; i++) all.push(await once());
  return pick(all);
}

/** The first failed run if any (a failure is the news), else the run of median time. */
export function pick(all: readonly Batch[]): Batch {
  const first = all[0];
  if (!first) throw new Error('no runs to pick from');
  const failed = all.find((b) => !succeeded(b));
  if (failed) return failed;
  const mid = median(all.map((b) => b.ran.ms));
  return all.reduce((best, b) => (Math.abs(b.ran.ms - mid) < Math.abs(best.ran.ms - mid) ? b : best), first);
}

export const succeeded = (batch: Batch): boolean => batch.ran.code === 0 && !batch.timedOut;

/** The table value of a run that did not exit 0, e.g. "exit 6, 489 failed"; undefined when it did. */
export function failureValue(batch: Batch): string | undefined {
  if (succeeded(batch)) return undefined;
  if (batch.timedOut) return `killed at ${formatSeconds(batch.ran.ms)}`;
  const { code, signal, stderr } = batch.ran;
  const summary = summaryCounts(stderr);
  const exit = signal ? `signal ${signal}` : `exit ${code}`;
  if (!summary) return exit;
  const { notSent, inFlight } = summary;
  return `${exit}, ${formatCount(summary.failed)} failed${inFlight ? `, ${formatCount(inFlight)} in flight` : ''}${notSent ? `, ${formatCount(notSent)} not sent` : ''}`;
}

/** A note quoting what plantstore said about a failed run: its first error line and its summary. */
export function failureNote(batch: Batch): string[] {
  if (succeeded(batch)) return [];
  const lines = batch.ran.stderr.split('\n').filter((line) => line.trim() !== '');
  const first = lines.find((line) => summaryCounts(line) === undefined);
  const summary = lines.find((line) => summaryCounts(line) !== undefined);
  const quoted = [first, summary].filter((line) => line !== undefined).map((line) => JSON.stringify(line.trim()));
  return [`plantstore ${failureValue(batch)}${quoted.length ? `; stderr: ${quoted.join(' … ')}` : ' (nothing on stderr)'}`];
}

/** How many requests the server answered with `status`, and their share of all it got. */
export function refused(stats: NetServerStats, status: number): { count: number; share: number } {
  const count = stats.byStatus[status] ?? 0;
  return { count, share: stats.total ? count / stats.total : 0 };
}

export const formatCount = (n: number): string => n.toLocaleString('en-US');
export const formatSeconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
export const formatPercent = (share: number): string => `${(share * 100).toFixed(1)}%`;
export const formatCpuShare = (batch: Batch): string => `${Math.round((batch.serverCpuMs / batch.ran.ms) * 100)}%`;
