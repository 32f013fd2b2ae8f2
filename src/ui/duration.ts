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
