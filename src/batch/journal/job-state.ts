import { type LastRun, outstanding } from './run-record.js';

/**
 * Whether a job (one journal, or the shards of one) is finished, and how many of its ids were
 * never sent, from its files' last runs (run-record.ts): a count only when every file's last run
 * says it, never a guess. A job is finished only when every file's last run went through its
 * whole input (read to the end, each id decided) and no shard of the set is missing.
 */

/** What one file's last run says, for `journal status` and its --json. */
export interface FileRun {
  /** How it ended (run-record.ts RunEnding); undefined when no end line says it. */
  ended: string | undefined;
  /** Why the end is unknown, when it is: no run lines (an older journal), or a start with no end. */
  unknown: 'unrecorded' | 'no-end' | 'running' | undefined;
  ids: number | undefined;
  notSent: number | undefined;
  /** Ids no line names that are left: the run's own and the earlier ones it carried (run-record.ts); undefined when unknown. */
  unrecorded: number | undefined;
  /** Of those, the ids an earlier run left that this run's list did not hold; null when it could not tell. */
  earlier: number | null | undefined;
  readAll: boolean | undefined;
  finished: boolean;
}

export function fileRun(lastRun: LastRun, running: boolean): FileRun {
  const none = { ids: undefined, notSent: undefined, unrecorded: undefined, earlier: undefined, readAll: undefined, finished: false };
  if (lastRun.kind === 'unrecorded') return { ended: undefined, unknown: running ? 'running' : 'unrecorded', ...none };
  if (lastRun.kind === 'no-end') return { ended: undefined, unknown: running ? 'running' : 'no-end', ...none, ids: lastRun.start?.ids };
  const { ending, ids, notSent, readAll } = lastRun.end;
  // null (could not tell) is kept; absent is 0, in an end line that counted.
  const earlier = lastRun.end.earlier !== undefined ? lastRun.end.earlier : ids === undefined ? undefined : 0;
  return {
    ended: ending,
    unknown: undefined,
    ids,
    notSent,
    unrecorded: outstanding(lastRun.end),
    earlier,
    readAll,
    finished: ending === 'finished' && readAll === true && notSent === 0 && earlier === 0,
  };
}

export interface JobState {
  finished: boolean;
  /** How the last runs ended, when every file's says the same; undefined otherwise (per file: FileRun). */
  ended: string | undefined;
  /** Ids the journals record as not sent plus those the last runs never sent nor named; undefined when unknown. */
  notSent: number | undefined;
  /** Of `notSent`, the ids no line names: only `journal left` can list them. Undefined when unknown. */
  unrecorded: number | undefined;
  /** Shards of the set (`2/4`) no file was given for, when every file names a shard of one split. */
  missingShards: string[];
}

export function jobState(files: readonly { shard: string | undefined; empty: boolean; run: FileRun }[], recordedNotSent: number): JobState {
  // An empty file (a run stopped before its header) names no shard: it may be any, and is left out of the count of shards.
  const missingShards = missingShardsOf(files.filter((file) => !file.empty).map((file) => file.shard));
  const endings = new Set(files.map((file) => file.run.ended));
  const ended = endings.size === 1 ? [...endings][0] : undefined;
  const known = missingShards.length === 0 && files.every((file) => file.run.unrecorded !== undefined && file.run.readAll === true);
  const unrecorded = known ? files.reduce((sum, file) => sum + (file.run.unrecorded ?? 0), 0) : undefined;
  return {
    finished: files.length > 0 && missingShards.length === 0 && files.every((file) => file.run.finished),
    ended,
    notSent: unrecorded === undefined ? undefined : recordedNotSent + unrecorded,
    unrecorded,
    missingShards,
  };
}

/** The shards `I/N` of a split that no file names, when every file names a shard of the same N; none otherwise. */
export function missingShardsOf(shards: readonly (string | undefined)[]): string[] {
  const parts = shards.map((shard) => (shard === undefined ? undefined : /^(\d+)\/(\d+)$/.exec(shard)));
  if (parts.length === 0 || parts.some((part) => part == null)) return [];
  const counts = new Set(parts.map((part) => Number(part?.[2])));
  if (counts.size !== 1) return [];
  const count = [...counts][0] as number;
  const present = new Set(parts.map((part) => Number(part?.[1])));
  const missing: string[] = [];
  for (let index = 0; index < count; index++) if (!present.has(index)) missing.push(`${index}/${count}`);
  return missing;
}
