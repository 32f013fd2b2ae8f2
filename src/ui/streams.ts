/** What streams.ts needs of process.stdout / process.stderr. */
export interface OutputStream {
  isTTY?: boolean;
  /** A terminal's width, as it is now (Node updates it on SIGWINCH). */
  columns?: number;
  writableNeedDrain: boolean;
  write(text: string): boolean;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/** One of the two outputs as the IO writes to it. */
export interface Sink {
  readonly isTTY: boolean;
  /** The terminal's width now, read at each call (a resize changes it); undefined for a pipe or a file. */
  readonly columns?: number | undefined;
  write(text: string): void;
}

export interface OrderedStreams {
  stdout: Sink;
  stderr: Sink;
  /** Writes what is queued, now: before exiting, and before waiting on backlog(). */
  flush(): void;
  /** A promise while a reader is slower than we write (resolves once it catches up); undefined when writing may go on. */
  backlog(): Promise<void> | undefined;
}

/**
 * stdout and stderr as commands see them.
 * - Order: lines written in one turn of the event loop are queued in the order
 *   written, whichever stream they are for, and go out together at the end of
 *   the turn (a write per line would cost a large batch much of its speed).
 *   `plantstore delete 1 2 3 > log 2>&1` therefore reads in the order results
 *   were decided.
 * - Backpressure: when a reader is slower than us, backlog() says so; callers
 *   stop producing until it catches up, instead of queuing without bound.
 * - A closed reader (`| head -1`, EPIPE) drops that stream's output quietly. The
 *   deletions asked for go on, and the exit code still reports them: stopping
 *   halfway and exiting 0 would hide a half-done batch.
 */
const FLUSH_AT_CHARS = 16 * 1024;

export function orderedStreams(
  out: OutputStream,
  err: OutputStream,
  onFailure: (error: NodeJS.ErrnoException, stream: 'stdout' | 'stderr') => void = () => {},
): OrderedStreams {
  const queue: Array<{ stream: OutputStream; text: string }> = [];
  const closed = new Set<OutputStream>();
  let scheduled = false;
  let queuedChars = 0;
  // One flag per stream: a full disk seen first on stderr must not hide that stdout, with
  // the results, failed too (`> log 2>&1` on a full disk exited 0 with every result lost).
  const failed = new Set<OutputStream>();
  for (const stream of [out, err]) {
    stream.on('error', (error) => {
      closed.add(stream);
      // A reader leaving is normal; anything else (a full disk) is worth a word.
      if (error.code === 'EPIPE' || failed.has(stream)) return;
      failed.add(stream);
      onFailure(error, stream === out ? 'stdout' : 'stderr');
    });
  }

  const flush = (): void => {
    scheduled = false;
    // Consecutive lines for the same stream go out in one write.
    let i = 0;
    while (i < queue.length) {
      const { stream } = queue[i] as { stream: OutputStream };
      let text = '';
      for (; i < queue.length && (queue[i] as { stream: OutputStream }).stream === stream; i++) {
        text += (queue[i] as { text: string }).text;
      }
      if (!closed.has(stream)) stream.write(text);
    }
    queue.length = 0;
    queuedChars = 0;
  };

  const sink = (stream: OutputStream): Sink => ({
    isTTY: stream.isTTY === true,
    get columns() {
      return stream.columns;
    },
    write(text) {
      if (closed.has(stream)) return;
      queue.push({ stream, text });
      queuedChars += text.length;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  });

  return {
    stdout: sink(out),
    stderr: sink(err),
    flush,
    backlog() {
      // A producer that never yields to the event loop (a dry run's loop) must not queue without bound.
      if (queuedChars >= FLUSH_AT_CHARS) flush();
      const waiting = [out, err].filter((stream) => stream.writableNeedDrain && !closed.has(stream));
      if (waiting.length === 0) return undefined;
      return Promise.all(
        waiting.map(
          (stream) =>
            new Promise<void>((resolve) => {
              // A reader that leaves while we wait releases us too. Whichever comes first removes
              // both: a long output waits here thousands of times, and listeners must not pile up.
              const done = (): void => {
                stream.off('drain', done);
                stream.off('close', done);
                resolve();
              };
              stream.once('drain', done);
              stream.once('close', done);
            }),
        ),
      ).then(() => undefined);
    },
  };
}
