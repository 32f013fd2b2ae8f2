// Reading a token from stdin or a hidden prompt stops at once on Ctrl-C / SIGTERM (ctx.signal),
// even when no input ever comes, and leaves the terminal as it found it.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Exit, InterruptedError } from '../../../src/errors.js';
import type { Stdin } from '../../../src/platform/stdin.js';
import { readAllStdin, readHiddenLine } from '../../../src/ui/prompt.js';

const STDIN_MESSAGE = 'interrupted while reading the token from standard input; nothing was stored';
const PROMPT_MESSAGE = 'login cancelled; nothing was stored';

async function interrupted(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => expect.unreachable('expected an InterruptedError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InterruptedError);
  expect((error as InterruptedError).exit).toBe(Exit.interrupted);
  expect((error as InterruptedError).message).toBe(message);
}

describe('readAllStdin with an interrupt', () => {
  it('stops while waiting on a pipe that stays open, and destroys it', async () => {
    const stdin = new PassThrough();
    stdin.write('half-a-tok');
    const controller = new AbortController();
    const read = readAllStdin(stdin as unknown as Stdin, 8192, { signal: controller.signal, message: STDIN_MESSAGE });
    controller.abort('SIGTERM');
    await interrupted(read, STDIN_MESSAGE);
    expect(stdin.destroyed).toBe(true);
  });

  it('an interrupt before reading: nothing is read', async () => {
    const stdin = new PassThrough();
    stdin.end('whole-Token-123456\n');
    const controller = new AbortController();
    controller.abort('SIGINT');
    await interrupted(readAllStdin(stdin as unknown as Stdin, 8192, { signal: controller.signal, message: STDIN_MESSAGE }), STDIN_MESSAGE);
    expect(stdin.destroyed).toBe(true);
  });

  it('without an abort, reads to the end as before', async () => {
    const stdin = new PassThrough();
    stdin.end('whole-Token-123456\n');
    const signal = new AbortController().signal;
    await expect(readAllStdin(stdin as unknown as Stdin, 8192, { signal, message: STDIN_MESSAGE })).resolves.toBe('whole-Token-123456\n');
  });
});

/** A terminal in miniature: raw mode, data events, pause and resume, all recorded. */
function fakeTerminal() {
  const events = new EventEmitter();
  const rawModes: boolean[] = [];
  const stdin = {
    isTTY: true,
    setRawMode: (raw: boolean) => rawModes.push(raw),
    on: (event: 'data', listener: (chunk: Buffer) => void) => events.on(event, listener),
    off: (event: 'data', listener: (chunk: Buffer) => void) => events.off(event, listener),
    pause: () => {},
    resume: () => {},
    async *[Symbol.asyncIterator]() {},
  } satisfies Stdin;
  return { stdin, rawModes, listeners: () => events.listenerCount('data'), type: (text: string) => events.emit('data', Buffer.from(text)) };
}

describe('readHiddenLine with an interrupt', () => {
  it('a signal while waiting cancels, and the terminal leaves raw mode', async () => {
    const terminal = fakeTerminal();
    const controller = new AbortController();
    let written = '';
    const read = readHiddenLine(terminal.stdin, (text) => (written += text), 'Token: ', {
      signal: controller.signal,
      message: PROMPT_MESSAGE,
    });
    terminal.type('abc');
    controller.abort('SIGTERM');
    await interrupted(read, PROMPT_MESSAGE);
    expect(terminal.rawModes).toEqual([true, false]);
    expect(terminal.listeners()).toBe(0);
    expect(written).toBe('Token: \n');
  });

  it('SIGHUP with the terminal already gone (raw mode off throws EIO): still cancelled, the listener removed', async () => {
    const terminal = fakeTerminal();
    const setRawMode = terminal.stdin.setRawMode;
    terminal.stdin.setRawMode = (raw: boolean) => {
      if (!raw) {
        setRawMode(raw);
        throw Object.assign(new Error('setRawMode EIO'), { code: 'EIO' });
      }
      return setRawMode(raw);
    };
    const controller = new AbortController();
    const read = readHiddenLine(terminal.stdin, () => {}, 'Token: ', { signal: controller.signal, message: PROMPT_MESSAGE });
    controller.abort('SIGHUP');
    await interrupted(read, PROMPT_MESSAGE);
    expect(terminal.rawModes).toEqual([true, false]);
    expect(terminal.listeners()).toBe(0);
  });

  it('an interrupt before the prompt: no prompt, raw mode never set', async () => {
    const terminal = fakeTerminal();
    const controller = new AbortController();
    controller.abort('SIGINT');
    let written = '';
    await interrupted(
      readHiddenLine(terminal.stdin, (text) => (written += text), 'Token: ', { signal: controller.signal, message: PROMPT_MESSAGE }),
      PROMPT_MESSAGE,
    );
    expect(terminal.rawModes).toEqual([]);
    expect(written).toBe('');
  });

  it('Enter still ends the line', async () => {
    const terminal = fakeTerminal();
    const read = readHiddenLine(terminal.stdin, () => {}, 'Token: ', { signal: new AbortController().signal, message: PROMPT_MESSAGE });
    terminal.type('secret-Token-1\r');
    await expect(read).resolves.toBe('secret-Token-1');
    expect(terminal.rawModes).toEqual([true, false]);
  });
});
