import { InterruptedError, UsageError } from '../errors.js';
import { type Interrupt, type Stdin, untilAborted } from '../platform/stdin.js';

/**
 * Reads all of stdin, refusing more than `limit` bytes (a token is short; a file piped by
 * mistake, or /dev/zero, is not). Reading stops at the first byte past the limit: the
 * rest is never pulled, and leaving the loop destroys the stream. An interrupt (Ctrl-C,
 * SIGTERM) stops it at once, even while it waits for input.
 */
export async function readAllStdin(stdin: Stdin, limit: number, interrupt?: Interrupt): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of untilAborted(stdin, interrupt)) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (total + bytes.length > limit) throw new UsageError(`standard input holds more than ${limit} bytes; pipe just the token`);
    chunks.push(bytes);
    total += bytes.length;
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Reads one line from a terminal without echoing it, the way ssh and sudo ask
 * for secrets. Ctrl-C aborts, Ctrl-U clears, backspace erases. An interrupt (SIGTERM,
 * or a SIGINT sent from elsewhere) aborts too, and leaves the terminal out of raw mode.
 */
export function readHiddenLine(stdin: Stdin, writePrompt: (text: string) => void, prompt: string, interrupt: Interrupt): Promise<string> {
  if (!stdin.setRawMode) throw new UsageError('standard input is not a terminal; pipe the token with --with-token');
  const { signal, message: cancelled } = interrupt;
  if (signal.aborted) return Promise.reject(new InterruptedError(cancelled));
  const setRawMode = stdin.setRawMode.bind(stdin);
  writePrompt(prompt);
  return new Promise((resolve, reject) => {
    let line = '';
    const finish = (error?: Error): void => {
      stdin.off('data', onData);
      signal.removeEventListener('abort', onAbort);
      // Echo back on, whatever ended the prompt. After SIGHUP the terminal may be gone (EIO):
      // the rest of the ending (the InterruptedError, exit 129) must happen all the same.
      try {
        setRawMode(false);
      } catch {}
      stdin.pause();
      writePrompt('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onAbort = (): void => finish(new InterruptedError(cancelled));
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          return;
        }
        if (char === '\u0003') {
          finish(new InterruptedError(cancelled));
          return;
        }
        if (char === '\u0015') line = '';
        else if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else line += char;
      }
    };
    setRawMode(true);
    signal.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.resume();
  });
}
