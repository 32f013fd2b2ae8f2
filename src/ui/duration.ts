// Every duration the program prints, in one place: each of these is asserted on by scripts
// and tests, so two spellings of the same time would be two contracts.

/** A duration in a message or a trace line: seconds, to the millisecond, without trailing zeros (0.05s, 30s). */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** A run's length in a summary: seconds with one decimal (12.3s). */
export function formatRunSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** How long a step took, in a trace line (12.3 ms). */
export function formatMilliseconds(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

const DURATION_UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A time as it would be typed (flags/kinds.ts's grammar): 45m, 5h, 90s, 1.5s. */
export function describeDuration(ms: number): string {
  if (ms % DURATION_UNIT_MS.h === 0) return `${ms / DURATION_UNIT_MS.h}h`;
  if (ms % DURATION_UNIT_MS.m === 0) return `${ms / DURATION_UNIT_MS.m}m`;
  return `${ms / DURATION_UNIT_MS.s}s`;
}
