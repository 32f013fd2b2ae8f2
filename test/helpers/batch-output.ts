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
