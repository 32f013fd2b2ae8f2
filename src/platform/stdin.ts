// What the process hands a command as standard input, and reading a stream so that Ctrl-C
// ends the read at once. A leaf: it imports nothing of the project but its errors.
import { InterruptedError } from '../errors.js';

/** What stdin offers a command: a stream, and raw mode for the hidden token prompt. */
export interface Stdin extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  /** `< /`: Node reads a directory as an empty stream, which would pass for "no ids". */
  isDirectory?(): boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** What stops a read of stdin (Ctrl-C, SIGTERM), and what the InterruptedError then says. */
export interface Interrupt {
  signal: AbortSignal;
  message: string;
}

/**
 * The chunks of a stream until it ends, or until `interrupt.signal` aborts: then at once, even
 * while a read is waiting (`sleep 30 | plantstore …`, `tail -f ids | plantstore …`), with an
 * InterruptedError carrying `interrupt.message`. The abandoned read is released by destroying the
 * stream when it can be (process.stdin can), so an open pipe no longer keeps the process
 * alive. An input that ends after the abort still counts as interrupted: the user asked to
 * stop, so nothing read is acted on.
 */
export async function* untilAborted<T>(input: AsyncIterable<T>, interrupt: Interrupt | undefined): AsyncGenerator<T> {
  if (!interrupt) {
    yield* input;
    return;
  }
  const { signal, message } = interrupt;
  if (signal.aborted) {
    destroy(input);
    throw new InterruptedError(message);
  }
  const iterator = input[Symbol.asyncIterator]();
  let onAbort = (): void => {};
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
  });
  signal.addEventListener('abort', onAbort, { once: true });
  let ended = false;
  try {
    for (;;) {
      const next = iterator.next();
      const step = await Promise.race([next, aborted]);
      if (step === ABORTED) {
        // Nobody waits for this read any more; destroying the stream ends it with an error nobody needs.
        next.catch(() => {});
        ended = true;
        destroy(input);
        iterator.return?.().catch(() => {});
        throw new InterruptedError(message);
      }
      if (step.done) {
        ended = true;
        if (signal.aborted) throw new InterruptedError(message);
        return;
      }
      yield step.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The consumer stopped early (a bad id, too many bytes): close the source as for-await would.
    if (!ended) await iterator.return?.();
  }
}

const ABORTED = Symbol('aborted');

function destroy(input: object): void {
  if ('destroy' in input && typeof input.destroy === 'function') input.destroy();
}
