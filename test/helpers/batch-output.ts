// What batch tests ask of ids and of a run's output: one copy, not one per test file.

/** The plant id at the end of a request's path: `/plants/42` -> `42`. */
export const idOf = (url: string): string => url.split('/').pop() ?? '';

/** The ids `from` to `to`, both included, as the command line takes them. */
export const idRange = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** Each line of `--json` output (NDJSON), parsed; blank lines skipped, so no output is no lines. */
export const jsonLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The counts of a batch's summary line on stderr; `inFlight` is 0 when the line names none. Undefined without a summary. */
export interface SummaryCounts {
  deleted: number;
  absent: number;
  failed: number;
  /** Sent with no decided answer (the journal's "in flight"): not done, and not counted failed. */
  inFlight: number;
  notSent: number;
}

const SUMMARY_LINE =
  /^(\d+) deleted(?:, \d+ skipped \(journal\))?, (\d+) already absent(?: \([^)]*\))?, (\d+) failed(?:, (\d+) in flight \([^)]*\))?, (\d+) not sent/m;

export function summaryCounts(stderr: string): SummaryCounts | undefined {
  const match = SUMMARY_LINE.exec(stderr);
  if (match === null) return undefined;
  const [deleted, absent, failed, inFlight, notSent] = match.slice(1).map((n) => Number(n ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { deleted, absent, failed, inFlight, notSent };
}
