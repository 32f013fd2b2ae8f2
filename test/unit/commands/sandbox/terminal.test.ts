// The rule for the sandbox's request log and its "Ctrl-C stops it": stderr a terminal, and the
// process in that terminal's foreground, read from /proc/self/stat (test/e2e/sandbox-terminal
// plays it on a real pseudo-terminal).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { foregroundFromStat, readForeground, watchedAtTerminal } from '../../../../src/commands/sandbox/terminal.js';

// pid (comm) state ppid pgrp session tty_nr tpgid flags…
const stat = (comm: string, pgrp: number, tty: number, tpgid: number) => `4242 (${comm}) S 1 ${pgrp} ${pgrp} ${tty} ${tpgid} 4194560 100 0`;

describe('foregroundFromStat', () => {
  it.each<[string, string, boolean | undefined]>([
    ['its group is the terminal’s foreground group', stat('node', 4242, 34816, 4242), true],
    ['another group is in the foreground (started with &, or bg)', stat('node', 4242, 34816, 4100), false],
    ['no controlling terminal', stat('node', 4242, 0, -1), false],
    ['a command name with spaces and parentheses', stat('my (odd) name', 7, 34816, 7), true],
    ['text that is not a stat line', 'nonsense', undefined],
  ])('%s', (_name, text, expected) => {
    expect(foregroundFromStat(text)).toBe(expected);
  });

  it.runIf(process.platform === 'linux')('reads this process as ps(1) sees it: in its terminal’s foreground or not', () => {
    // ps reads the same kernel fields by another route: the process group and the terminal's foreground group.
    const [pgid, tpgid] = execFileSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(process.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(readForeground()).toBe(tpgid !== -1 && tpgid === pgid);
  });
});

describe('watchedAtTerminal', () => {
  it('never, when stderr is not a terminal, whatever the foreground', () => {
    expect(watchedAtTerminal(false, () => true)()).toBe(false);
  });

  it('asks again at most once a second: fg and bg move the sandbox', () => {
    let time = 0;
    let foreground = true;
    let reads = 0;
    const watched = watchedAtTerminal(
      true,
      () => {
        reads++;
        return foreground;
      },
      () => time,
    );
    expect(watched()).toBe(true);
    foreground = false;
    time = 999;
    expect(watched()).toBe(true);
    time = 1000;
    expect(watched()).toBe(false);
    expect(reads).toBe(2);
  });

  it('takes a terminal as watched where the foreground cannot be read (no /proc)', () => {
    expect(watchedAtTerminal(true, () => undefined)()).toBe(true);
  });
});
