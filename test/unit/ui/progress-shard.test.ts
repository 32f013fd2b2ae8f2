// A shard's progress (issue 41): shards started together (xargs -P) share one terminal, where
// lines redrawn in place overwrite each other's. So a shard's line names it, and at a terminal
// is a plain line every SHARD_EVERY_MS; outside one, the --progress line names it too. Fake
// timers stand in for the seconds a run takes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIO } from '../../../src/ui/io.js';
import { PLAIN_EVERY_MS, type ProgressState, SHARD_EVERY_MS, startProgress } from '../../../src/ui/progress.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function stderrOf(isTTY: boolean) {
  let written = '';
  const stderr = { write: (text: string) => (written += text), isTTY, columns: 60 };
  const io = createIO({ write: () => true }, stderr, false, { NO_COLOR: '1' });
  return { io, written: () => written };
}

const state = (done: number): ProgressState => ({ done, sent: done, failed: 0, limit: 16, ceiling: 64 });

describe('a shard', () => {
  it('at a terminal: a plain line every 5 s that names it, never redrawn in place, whole however wide', () => {
    const stderr = stderrOf(true);
    let done = 0;
    const progress = startProgress(stderr.io, 480, () => state(done), { shard: '2/4' });
    done = 40;
    vi.advanceTimersByTime(SHARD_EVERY_MS - 1);
    expect(stderr.written()).toBe('');
    vi.advanceTimersByTime(1);
    done = 120;
    vi.advanceTimersByTime(SHARD_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toBe(
      '[shard 2/4] progress: 40/480 (8%), 8.0/s, 0:05 elapsed, 0:55 left, 0 failed, limit 16 of 64\n' +
        '[shard 2/4] progress: 120/480 (25%), 12/s, 0:10 elapsed, 0:30 left, 0 failed, limit 16 of 64\n',
    );
    expect(stderr.written()).not.toContain('\x1b');
  });

  it('outside a terminal, with --progress: the 30 s line names it', () => {
    const stderr = stderrOf(false);
    const progress = startProgress(stderr.io, 480, () => state(300), { shard: '0/4', plain: true });
    vi.advanceTimersByTime(PLAIN_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toMatch(/^\[shard 0\/4\] progress: 300\/480 \(62%\), /);
  });

  it('outside a terminal, without --progress: nothing, as for any run', () => {
    const stderr = stderrOf(false);
    const progress = startProgress(stderr.io, 480, () => state(300), { shard: '0/4' });
    vi.advanceTimersByTime(PLAIN_EVERY_MS * 2);
    progress.stop();
    expect(stderr.written()).toBe('');
  });
});
