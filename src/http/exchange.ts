// One attempt's exchange with undici, through its handler interface (dispatch) rather than
// request(): request() wraps every answer in a Readable stream and listens on an AbortSignal
// for it, which a batch of a million small answers pays a million times (on loopback, about
// a quarter of the time a 204 costs). Here the head is kept, the body gathered up to a limit
// into a buffer, and the whole ends in one promise.

import type { Dispatcher } from 'undici';
import type { Cutoff, Cuttable } from './deadline.js';

export type Headers = Record<string, string | string[] | undefined>;

/** The head of an answer: once it arrives, an answer has begun. */
export interface Head {
  status: number;
  headers: Headers;
}

/**
 * How an exchange ended. Complete when `error` is undefined. Otherwise `error` is what undici
 * threw, or the reason given to abort(); with a `head` when the answer had begun (its body cut
 * short: `body` holds what came).
 */
export interface Ended {
  head?: Head;
  body: Buffer;
  error?: unknown;
  /** Two Content-Length headers that disagree (RFC 9112 §6.3): neither the status nor the body can be trusted. */
  conflictingLengths?: true;
  /** The body went on past the limit: `body` is its first `limit` bytes, the rest was not read. */
  overLimit?: true;
}

export interface ExchangeHooks {
  /** The head has arrived (for a trace). */
  onHead?(head: Head): void;
  /** undici writes the request again on its own (HTTP/2 REFUSED_STREAM, a replay after GOAWAY): the server sees it again. */
  onResend?(): void;
}

/** What undici is told when we abandon a request: nothing reads it, since the exchange has ended by then. */
const ABANDONED = Object.assign(new Error('request abandoned by plantstore'), { code: 'UND_ERR_ABORTED' });
/** The body of an answer that had none, or whose body is not to be used. */
export const NO_BODY = Buffer.alloc(0);

/**
 * Aborts once undici's parser is done with what it is reading. Aborted from inside one of its
 * callbacks, undici would go on to end the same answer, and fail its own assertion.
 */
function dropLater(controller: Dispatcher.DispatchController): void {
  queueMicrotask(() => {
    if (!controller.aborted) controller.abort(ABANDONED);
  });
}

export class Exchange implements Dispatcher.DispatchHandler, Cuttable {
  /** Resolves once, however the exchange ends; never rejects. */
  readonly ended: Promise<Ended>;
  #resolve!: (ended: Ended) => void;
  #done = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** Set when abort() came before undici started the request: it is aborted as it starts. */
  #abandoned = false;
  #starts = 0;
  #head: Head | undefined;
  #conflictingLengths = false;
  #overLimit = false;
  /** Which of our own ends came first, if one did (an abort looks the same from inside). */
  cutoff: Cutoff | undefined;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    private readonly limit: number,
    private readonly hooks: ExchangeHooks = {},
  ) {
    this.ended = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /**
   * Whether undici has begun writing the request to a connection (the TCP and TLS handshakes
   * done). Until then nothing has left this machine: a request abandoned before was not sent.
   */
  get sent(): boolean {
    return this.#starts > 0;
  }

  /** The attempt's deadline: its time ran out, or Ctrl-C came. */
  cut(why: Cutoff, reason: unknown): void {
    if (this.#done) return;
    this.cutoff = why;
    this.abort(reason);
  }

  /** Ends the exchange now with `reason`, and drops the request where undici has it. */
  abort(reason: unknown): void {
    this.#end(reason);
    if (this.#controller === undefined) this.#abandoned = true;
    else if (!this.#controller.aborted) this.#controller.abort(ABANDONED);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // undici may hold a request in its queue past our deadline or Ctrl-C: it goes no further.
    if (this.#abandoned) {
      controller.abort(ABANDONED);
      return;
    }
    this.#controller = controller;
    if (++this.#starts > 1) this.hooks.onResend?.();
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Headers): void {
    if (status < 200 || this.#done) return; // 1xx are not the answer
    this.#head = { status, headers };
    this.hooks.onHead?.(this.#head);
    if (hasConflictingLengths(headers)) {
      // undici passes both on; which is right cannot be known, so the body is not read.
      this.#conflictingLengths = true;
      this.#end(undefined);
      dropLater(controller);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    const room = this.limit - this.#size;
    if (chunk.length <= room) {
      // A body of exactly the limit is whole: only a byte past it says there was more.
      this.#chunks.push(chunk);
      this.#size += chunk.length;
      return;
    }
    // Enough of it: a 1 GB error page must not fill memory. The rest is not read, and its connection is dropped.
    if (room > 0) this.#chunks.push(chunk.subarray(0, room));
    this.#size = this.limit;
    this.#overLimit = true;
    this.#end(undefined);
    dropLater(controller);
  }

  onResponseEnd(): void {
    this.#end(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#end(error);
  }

  #end(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    const body =
      this.#chunks.length === 0 ? NO_BODY : this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    this.#chunks = [];
    const ended: Ended = { body };
    if (this.#head !== undefined) ended.head = this.#head;
    if (error !== undefined) ended.error = error;
    if (this.#conflictingLengths) ended.conflictingLengths = true;
    if (this.#overLimit) ended.overLimit = true;
    this.#resolve(ended);
  }
}

/** Two Content-Length headers that disagree (RFC 9112 §6.3: unrecoverable). */
function hasConflictingLengths(headers: Headers): boolean {
  const lengths = headers['content-length'];
  return Array.isArray(lengths) && new Set(lengths.map((length) => length.trim())).size > 1;
}
