// A dispatcher for the HTTP client (ApiOptions.dispatcher) that answers from a script, with no
// socket. It imitates what undici's request() hands the client, as far as the client reads it: a
// status, lower-case headers, a body of the bytes as sent (never decompressed) that may be cut by a
// connection error or stall, and the attempt's AbortSignal (src/http/deadline.ts), whose reason
// undici throws when it fires. Every request is recorded with the clocks of the
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
  /** performance.now() when its signal fired, if it did while the attempt was out. */
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
    async request(options: { origin: string; path: string; method: string; headers: Record<string, string>; signal: AbortSignal }) {
      const { signal } = options;
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
      // What undici throws once the signal fires: its reason (TIMED_OUT for our deadline). Listened
      // for only by the steps that wait for it, from the moment they are sent.
      const waits = step === undefined || typeof step === 'string' || ('answer' in step && step.stall === true);
      const fired = waits ? untilFired(signal, request) : undefined;
      fired?.catch(() => {}); // a body that stalls is awaited only once read
      if (step === undefined || step === 'silent') return fired;
      if ('error' in step) throw fail(step.error, step.message);
      const chunks = step.body === undefined ? [] : [Buffer.from(step.body)];
      return {
        statusCode: step.answer,
        headers: step.headers ?? {},
        body: {
          dump: async () => {},
          async *[Symbol.asyncIterator]() {
            yield* chunks;
            if (step.cut !== undefined) throw fail(step.cut);
            if (fired) await fired;
          },
        },
      };
    },
    close: async () => {},
  };
  return { dispatcher: dispatcher as unknown as Dispatcher, requests };
}

function untilFired(signal: AbortSignal, request: ScriptedRequest): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    const abort = () => {
      request.abortedAt = performance.now();
      reject(signal.reason);
    };
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}
