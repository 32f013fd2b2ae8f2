// A setup file (vitest.config.ts): the CPU each test file costs, for the slowest-files report.
// On a 2-core machine the suite is bound by CPU, not by waiting: a file's wall-clock says little
// when other files share the cores, its CPU says what it takes from them. Counted from its first
// test to its last: its worker's own CPU (the test's servers) and that of the processes it started
// and waited for (each built CLI it spawned; not those a tmux server starts for it, nor a daemon).
// Linux only (/proc); elsewhere the report says unknown.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** CPU seconds (user + system) of the file's worker and of the processes its tests started, or absent if unknown. */
    cpuSeconds?: number;
  }
}

/** Clock ticks a second of /proc's figures: 100 on every Linux that Node runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** This process's CPU and its reaped children's, in ticks; undefined where there is no /proc. */
function cpuTicks(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // After the command name (in parentheses, which may hold spaces): state, then fields 4 on;
  // utime, stime, cutime and cstime are fields 14 to 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  if ([utime, stime, cutime, cstime].some((n) => n === undefined || !Number.isFinite(n))) return undefined;
  return (utime as number) + (stime as number) + (cutime as number) + (cstime as number);
}

let startedAt: number | undefined;

beforeAll(() => {
  startedAt = cpuTicks();
});

// The file is the hook's second argument; vitest reads the first as the fixtures it asks for.
// biome-ignore lint/correctness/noEmptyPattern: vitest requires a pattern there, and none is wanted.
afterAll(({}, file) => {
  const now = cpuTicks();
  if (startedAt !== undefined && now !== undefined) file.meta.cpuSeconds = (now - startedAt) / TICKS_PER_SECOND;
});
