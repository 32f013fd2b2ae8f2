import fs from 'node:fs';
import { JournalWriteError, shownPath, writeFailed } from './errors.js';
import { isResultLineFor, sentLine } from './format.js';
import type { JournalLock } from './journal-lock.js';

/** The system calls the writer makes: the real ones, or a test's that fail on cue (EIO from fsync). */
export interface JournalIo {
  write(fd: number, data: Buffer, offset: number, length: number): number;
  fsync(fd: number): void;
  ftruncate(fd: number, length: number): void;
}

export const realIo: JournalIo = {
  write: (fd, data, offset, length) => fs.writeSync(fd, data, offset, length),
  fsync: (fd) => fs.fsyncSync(fd),
  ftruncate: (fd, length) => fs.ftruncateSync(fd, length),
};

export interface WriterOptions {
  /** Flush, fsync and renew the lock this often (default 1000 ms). */
  flushEveryMs?: number;
  /** Called once, when a write, an fsync or the lock fails: the command stops the run. */
  onFailure?: (error: JournalWriteError) => void;
  io?: JournalIo;
}

/**
 * Appends lines to an open journal (O_APPEND), in the order they are recorded:
 * - a sent line is written (to the file, not only held here) before recordSent returns, so
 *   the id's request leaves after the journal knows of it: a kill -9 then loses no id that
 *   was sent, only the results of those in flight;
 * - result lines are written at the end of this turn of the event loop (one write for all
 *   the results of the turn), or sooner with the next sent line.
 * What was written is fsynced on a one-second timer (unref'd: it never keeps the process
 * alive), by flush() and by close(): a process kill loses nothing written, a power cut at
 * most the last second. All of it is synchronous, so a signal handler's flush() has
 * finished when it returns.
 *
 * A failed write is never silent: the bytes of the failed write are cut off again (the
 * file stays parseable), `failure` is set, onFailure is called, and every later record,
 * flush and close throws it.
 */
export class JournalWriter {
  readonly #fd: number;
  readonly #file: string;
  readonly #lock: JournalLock;
  readonly #io: JournalIo;
  readonly #onFailure: ((error: JournalWriteError) => void) | undefined;
  readonly #timer: NodeJS.Timeout;
  #size: number;
  #pending: string[] = [];
  /** A write of the pending results is scheduled for the end of this turn of the event loop. */
  #writeScheduled = false;
  #unsynced = false;
  #failure: JournalWriteError | undefined;
  #closed = false;

  constructor(fd: number, file: string, size: number, lock: JournalLock, options: WriterOptions = {}) {
    this.#fd = fd;
    this.#file = file;
    this.#size = size;
    this.#lock = lock;
    this.#io = options.io ?? realIo;
    this.#onFailure = options.onFailure;
    this.#timer = setInterval(() => this.#tick(), options.flushEveryMs ?? 1000);
    this.#timer.unref();
  }

  get failure(): JournalWriteError | undefined {
    return this.#failure;
  }

  /** Queues `line` (the result line for `id`, records.ts, without a newline). Throws `failure` once a write has failed. */
  record(id: string, line: string): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new Error(`journal ${this.#file} recorded after close`);
    if (!isResultLineFor(id, line)) throw new Error(`journal line for id ${id} is not its result line: ${line.slice(0, 80)}`);
    this.#pending.push(line, '\n');
    if (this.#writeScheduled) return;
    this.#writeScheduled = true;
    setImmediate(() => this.#writeSoon());
  }

  /** Queues a run's start or end line (run-record.ts), in order with the id lines around it. Throws `failure`. */
  recordRun(line: string): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new Error(`journal ${this.#file} recorded after close`);
    if (!line.startsWith('{') || !line.endsWith('}') || line.includes('\n')) throw new Error(`not a run line: ${line.slice(0, 80)}`);
    this.#pending.push(line, '\n');
    if (this.#writeScheduled) return;
    this.#writeScheduled = true;
    setImmediate(() => this.#writeSoon());
  }

  /**
   * Writes `id`'s sent line (with its value's `print`, in a journal of values), with any results recorded before it, to the file before it
   * returns: its request may leave once it has. Throws `failure` (then it must not be sent).
   */
  recordSent(id: string, print?: string): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new Error(`journal ${this.#file} recorded after close`);
    this.#pending.push(sentLine(id, print), '\n');
    this.#guard(() => this.#write());
  }

  #writeSoon(): void {
    this.#writeScheduled = false;
    if (this.#failure || this.#closed) return;
    try {
      this.#guard(() => this.#write());
    } catch {
      // Kept in `failure` and passed to onFailure; the next record throws it.
    }
  }

  /** Writes and fsyncs everything recorded so far; synchronous. Throws `failure`. */
  flush(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) return;
    this.#guard(() => this.#sync());
  }

  /** Flushes, closes the file and releases the lock; idempotent. Throws `failure` (after closing). */
  close(): void {
    if (this.#closed) {
      if (this.#failure) throw this.#failure;
      return;
    }
    clearInterval(this.#timer);
    try {
      if (!this.#failure) this.#guard(() => this.#sync());
    } catch {
      // Thrown below, once the file is closed and the lock released.
    }
    this.#closed = true;
    fs.closeSync(this.#fd);
    this.#lock.release();
    if (this.#failure) throw this.#failure;
  }

  #tick(): void {
    if (this.#failure || this.#closed) return;
    if (!this.#lock.renew()) {
      const why = 'another plantstore took it over (its lock was not renewed for 30 s: was this run stopped?)';
      const advice = 'once that run has ended, run the same command again to resume';
      this.#fail(
        new JournalWriteError(
          `another plantstore took over journal ${shownPath(this.#file)} (its lock was not renewed for 30 s: was this run stopped?); results from here on are not recorded in it; ${advice}`,
          'lock-lost',
          why,
          advice,
        ),
      );
      return;
    }
    try {
      this.#guard(() => this.#sync());
    } catch {
      // Kept in `failure` and passed to onFailure; the next record throws it.
    }
  }

  #sync(): void {
    this.#write();
    if (!this.#unsynced) return;
    this.#io.fsync(this.#fd);
    this.#unsynced = false;
  }

  #write(): void {
    if (this.#pending.length === 0) return;
    const data = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    const before = this.#size;
    let written = 0;
    try {
      while (written < data.length) written += this.#io.write(this.#fd, data, written, data.length - written);
    } catch (error) {
      // A part of a line would make every later line "after a bad line": cut back to whole lines.
      if (written > 0) {
        try {
          this.#io.ftruncate(this.#fd, before);
        } catch {
          // The reader ignores a torn last line; nothing more is written after it.
        }
      }
      throw error;
    }
    this.#size += data.length;
    this.#unsynced = true;
  }

  #guard(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#fail(writeFailed(this.#file, error, 'the results from here on are not recorded'));
      throw this.#failure;
    }
  }

  #fail(error: JournalWriteError): void {
    this.#failure = error;
    this.#pending = [];
    this.#onFailure?.(error);
  }
}
