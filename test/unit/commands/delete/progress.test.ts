// delete --progress (issue 29 item 7), in process, on fake timers: outside a terminal a plain
// status line reaches stderr every 30 s while the batch runs; without the opt-in, stderr holds
// what it always did. The fake service answers each id after a second of fake time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Answer, inProcess } from '../../../helpers/in-process.js';

const READY = { PLANTSTORE_BASE_URL: 'https://api.example.com', PLANTSTORE_TOKEN: 'sandbox-token-0123456789' };
const { run } = inProcess();

beforeEach(() => {
  vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

async function batch(argv: string[], env: Record<string, string> = READY) {
  // One deletion a second of fake time, one after another (the fake service takes no permits, so it queues them itself).
  let queue = Promise.resolve();
  const slowly = (): Promise<Answer> => {
    queue = queue.then(() => new Promise((resolve) => setTimeout(resolve, 1000)));
    return queue.then(() => ({ kind: 'ok', status: 204, body: '' }));
  };
  const ids = Array.from({ length: 70 }, (_, i) => String(i + 1));
  // The fake service awaits what answer returns: a promise makes it slow.
  const pending = run(['delete', '-q', ...argv, ...ids], { env, answer: slowly as unknown as (id: string) => Answer });
  for (let second = 0; second < 75; second++) await vi.advanceTimersByTimeAsync(1000);
  return pending;
}

describe('delete --progress outside a terminal', () => {
  it.each([
    ['--progress', ['--progress'], READY],
    ['PLANTSTORE_PROGRESS=1', [], { ...READY, PLANTSTORE_PROGRESS: '1' }],
  ])('%s prints a plain status line every 30 s', async (_name, argv, env) => {
    const result = await batch(argv, env);
    expect(result.exit).toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^progress: \d+\/70 \(\d+%\), [\d.]+\/s, 0:30 elapsed, \d+:\d\d left, 0 failed, limit \d+ of 64$/);
    expect(lines[1]).toMatch(/^progress: \d+\/70 \(\d+%\), [\d.]+\/s, 1:00 elapsed, \d+:\d\d left, 0 failed, limit \d+ of 64$/);
  });

  it('without it, stderr stays as it was: nothing for a quiet batch that succeeds', async () => {
    const result = await batch([]);
    expect(result.exit).toBe(0);
    expect(result.stderr).toBe('');
  });
});
