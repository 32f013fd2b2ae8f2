// Whether someone is watching the sandbox at a terminal: its request log and "Ctrl-C stops it"
// are for them. The rule: stderr (where both go) is a terminal, and the sandbox is in that
// terminal's foreground, where Ctrl-C reaches it. Started with `&`, or moved there with Ctrl-Z
// and `bg`, it is not: its log would mix into whatever runs in the foreground, and Ctrl-C goes
// to that instead.
//
// Node has no tcgetpgrp(). On Linux /proc/self/stat has what it would answer: the process
// group (field 5) and the terminal's foreground group (field 8, tpgid); in the foreground
// they are equal. Where /proc cannot be read (macOS, BSD), a terminal on stderr is taken as
// the foreground: the log shows, as before 2.1, and --quiet stops it.
import { readFileSync } from 'node:fs';

/** From the text of /proc/<pid>/stat: in its terminal's foreground (true), not (false), or unknown. */
export function foregroundFromStat(stat: string): boolean | undefined {
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // state ppid pgrp session tty_nr tpgid
  const [pgrp, ttyNumber, tpgid] = [rest[2], rest[4], rest[5]].map(Number);
  if (!Number.isInteger(pgrp) || !Number.isInteger(ttyNumber) || !Number.isInteger(tpgid)) return undefined;
  // No controlling terminal: nothing is in its foreground.
  if (ttyNumber === 0 || tpgid === -1) return false;
  return pgrp === tpgid;
}

/** This process's answer, or undefined where /proc/self/stat cannot be read. */
export function readForeground(): boolean | undefined {
  try {
    return foregroundFromStat(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/** How long an answer is kept: fg and bg can move the sandbox at any time, and a read per request would cost. */
const RECHECK_MS = 1000;

/**
 * A function answering "is someone watching at the terminal?" now. Never, when stderr is not a
 * terminal; else whether the process is in the foreground, read at most once a RECHECK_MS.
 */
export function watchedAtTerminal(
  stderrIsTTY: boolean,
  foreground: () => boolean | undefined = readForeground,
  now: () => number = () => performance.now(),
): () => boolean {
  if (!stderrIsTTY) return () => false;
  let answer = false;
  let readAt = Number.NEGATIVE_INFINITY;
  return () => {
    const time = now();
    if (time - readAt >= RECHECK_MS) {
      answer = foreground() ?? true;
      readAt = time;
    }
    return answer;
  };
}
