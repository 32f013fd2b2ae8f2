// Questions at one terminal take turns (src/ui/terminal-turn.ts): a second asker waits until
// the first gives the turn back or its process dies, however it dies.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InterruptedError } from '../../../src/errors.js';
import { takeTerminalTurn } from '../../../src/ui/terminal-turn.js';

const ON_LINUX = process.platform === 'linux';
const HAS_PYTHON = spawnSync('python3', ['-c', '0']).status === 0;
const nameFor = (test: string): string => `\0plantstore-test-turn-${process.pid}-${test}`;

/** Whether `promise` has settled: checked after the event loop has run everything that is ready. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe.skipIf(!ON_LINUX)('one question at a time at a terminal', () => {
  it('a second asker waits for the first to give the turn back', async () => {
    const name = nameFor('release');
    const never = new AbortController().signal;
    const first = await takeTerminalTurn(never, name);
    const second = takeTerminalTurn(never, name);
    expect(await settled(second)).toBe(false);
    first();
    const release = await second;
    // The turn is the second's now: a third waits for it.
    const third = takeTerminalTurn(never, name);
    expect(await settled(third)).toBe(false);
    release();
    (await third)();
  });

  it('the turn of a process killed with -9 passes to the next', async () => {
    const name = nameFor('killed');
    const holder = spawn(
      process.execPath,
      ['-e', `require('net').createServer().listen({ path: ${JSON.stringify(name)} }, () => console.log('held'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    onTestFinished(() => void holder.kill('SIGKILL'));
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const mine = takeTerminalTurn(new AbortController().signal, name);
    expect(await settled(mine)).toBe(false);
    holder.kill('SIGKILL');
    (await mine)();
  });

  it('Ctrl-C while waiting stops the wait', async () => {
    const name = nameFor('interrupt');
    const first = await takeTerminalTurn(new AbortController().signal, name);
    onTestFinished(first);
    const interrupt = new AbortController();
    const waiting = takeTerminalTurn(interrupt.signal, name);
    expect(await settled(waiting)).toBe(false);
    interrupt.abort();
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
  });

  it.skipIf(!HAS_PYTHON)(
    'a name bound but never listened on (every connection refused): the question is asked, not waited for forever',
    async () => {
      const name = nameFor('squatted');
      // Node cannot bind a Unix socket without listening on it; Python can.
      const squatter = spawn(
        'python3',
        [
          '-c',
          `import socket,sys,time\ns=socket.socket(socket.AF_UNIX)\ns.bind(${JSON.stringify(name)})\nprint('bound',flush=True)\ntime.sleep(60)`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      onTestFinished(() => void squatter.kill('SIGKILL'));
      await new Promise((resolve) => squatter.stdout.once('data', resolve));
      const release = await takeTerminalTurn(new AbortController().signal, name);
      release();
      // It asked without the turn: the name is still the squatter's.
      const other = takeTerminalTurn(new AbortController().signal, name);
      expect(await settled(other)).toBe(true);
    },
  );
});
