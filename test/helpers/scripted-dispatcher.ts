// A dispatcher for the HTTP client (TransportOptions.dispatcher) that answers from a script, with
// no socket. It drives the handler the client dispatches with as undici does, as far as the client
// reads it: the request starts (is written) at once, then a status and lower-case headers, a body
// of the bytes as sent (never decompressed) that may be cut by a connection error or stall, or an
// error; abort() (our deadline, Ctrl-C) ends it. Every request is recorded with the clocks of the
// moment, fake ones under vi.useFakeTimers(): a test can say when each attempt went out without
// waiting for it.
import type { Dispatcher } from 'undici';

export type Step =
  /** An answer: its head, then `body`; `cut` then ends the body with that error code, `stall` leaves it unfinished until the signal fires. */
  | { answer: number; headers?: Record<string, string>; body?: string | Buffer; cut?: string; stall?: true }
  /** What the lower layers throw before any answer came (ECONNRESET, UND_ERR_SOCKET...). */
  | { error: string; message?: string }
  /** No answer at all: the attempt ends when its signal fires, our deadline or Ctrl-C. */
  | 'silent';

export interface ScriptedRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  /** performance.now() when it was sent. */
  at: number;
  /** Date.now() when it was sent: comparable with HTTP dates. */
  wallClock: number;
  /** performance.now() when the client abandoned it (deadline, Ctrl-C), if it did while the attempt was out. */
  abortedAt?: number;
}

export interface ScriptedDispatcher {
  dispatcher: Dispatcher;
  /** Every request, in the order sent. */
  requests: ScriptedRequest[];
}

/** Answers each request with the next step; the last step repeats. */
export function scriptedDispatcher(steps: readonly Step[]): ScriptedDispatcher {
  const requests: ScriptedRequest[] = [];
  const fail = (code: string, message = `${code} (scripted)`) => Object.assign(new Error(message), { code });
  const dispatcher = {
    dispatch(
      options: { origin: string; path: string; method: string; headers: Record<string, string> },
      handler: Dispatcher.DispatchHandler,
    ): boolean {
      const step = steps[Math.min(requests.length, steps.length - 1)];
      const request: ScriptedRequest = {
        origin: options.origin,
        path: options.path,
        method: options.method,
        headers: options.headers,
        at: performance.now(),
        wallClock: Date.now(),
      };
      requests.push(request);
      // As undici's: abort() ends the request with its reason, once, and nothing is delivered after it.
      let aborted: Error | null = null;
      const controller: Dispatcher.DispatchController = {
        get aborted() {
          return aborted !== null;
        },
        get paused() {
          return false;
        },
        get reason() {
          return aborted;
        },
        abort(reason: Error) {
          if (aborted !== null) return;
          aborted = reason;
          request.abortedAt = performance.now();
          handler.onResponseError?.(controller, reason);
        },
        pause() {},
        resume() {},
      };
      // Written at once: no connection to wait for.
      handler.onRequestStart?.(controller, {});
      // The rest comes later, as from a socket; a step that waits ("silent", "stall") ends only by abort().
      queueMicrotask(() => {
        if (aborted !== null || step === undefined || step === 'silent') return;
        if ('error' in step) return handler.onResponseError?.(controller, fail(step.error, step.message));
        handler.onResponseStart?.(controller, step.answer, step.headers ?? {}, '');
        if (aborted !== null) return;
        if (step.body !== undefined) handler.onResponseData?.(controller, Buffer.from(step.body));
        if (aborted !== null || step.stall === true) return;
        if (step.cut !== undefined) return handler.onResponseError?.(controller, fail(step.cut));
        handler.onResponseEnd?.(controller, {});
      });
      return true;
    },
    close: async () => {},
    destroy: async () => {},
  };
  return { dispatcher: dispatcher as unknown as Dispatcher, requests };
}
