// A question asked at the terminal itself (/dev/tty), not on stdin or stderr: a batch whose ids
// come from `--stdin < list.txt` still asks the person at the keyboard, and its answer is never
// mistaken for an id. The line is read as the terminal edits it (canonical mode, echoed).

import { openSync } from 'node:fs';
import tty from 'node:tty';
import { InterruptedError } from '../errors.js';
import { takeTerminalTurn } from './terminal-turn.js';

/**
 * Writes `question` to the terminal and resolves with the line typed back, without its end;
 * undefined at end of input (Ctrl-D on an empty line) or when there is no terminal to ask.
 */
export async function askAtTerminal(question: string, interrupt: AbortSignal): Promise<string | undefined> {
  // Another process's question at this terminal is answered first (terminal-turn.ts).
  const release = await takeTerminalTurn(interrupt);
  let input: tty.ReadStream;
  let output: tty.WriteStream;
  try {
    input = new tty.ReadStream(openSync('/dev/tty', 'r'));
    output = new tty.WriteStream(openSync('/dev/tty', 'w'));
  } catch {
    release();
    return undefined;
  }
  if (interrupt.aborted) {
    release();
    input.destroy();
    output.destroy();
    throw new InterruptedError();
  }
  output.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (answer: string | undefined, error?: Error): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      interrupt.removeEventListener('abort', onAbort);
      // At end of input the cursor is still on the question's line.
      if (answer === undefined) output.write('\n');
      input.destroy();
      output.end();
      release();
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: Buffer): void => {
      typed += chunk.toString('utf8');
      const end = typed.indexOf('\n');
      if (end !== -1) finish(typed.slice(0, end).replace(/\r$/, ''));
    };
    const onEnd = (): void => finish(undefined);
    const onAbort = (): void => finish(undefined, new InterruptedError());
    input.on('data', onData);
    input.on('end', onEnd);
    interrupt.addEventListener('abort', onAbort, { once: true });
  });
}
