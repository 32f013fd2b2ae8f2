// How long to wait before trying a request again (whether to try is classify.ts's call, and,
// after a lost answer, the request's: HttpRequest.repeatable). What is never safe is hammering a
// struggling server or waiting forever.

export const BASE_DELAY_MS = 250;

/**
 * A refusal for load (classify.ts) says the request was not processed, and while the
 * server admits other requests of the run, refusals are how the run finds its pace; so one
 * costs a fifth of a retry then. With --retries 2 such an id may be refused ten times;
 * --retries 0 never retries. A lone id, or a run the server admits nothing of, has no pace
 * to find: its refusals cost a whole retry each (transport.ts).
 */
export const REFUSALS_PER_RETRY = 5;

/**
 * A retry paid by the run's budget waits as Envoy's retries do, full jitter from a 25 ms base,
 * doubling, but up to 100 ms rather than Envoy's 250: the budget already bounds how many go out,
 * and the ids still failing at the end of a run are all that is left to wait for.
 */
export const SHARED_BASE_DELAY_MS = 25;
export const SHARED_MAX_DELAY_MS = 100;

/**
 * The wait before a retry paid by the run's budget (a failing answer among good ones): its failure
 * was the upstream's, not its own, and its next attempt most likely lands on one that serves it.
 * `spent` is the id's cost so far in fifths of a retry, the one just taken included.
 */
export function sharedRetryDelayMs(spent: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, SHARED_MAX_DELAY_MS, SHARED_BASE_DELAY_MS * 2 ** Math.max(0, spent - 1));
  return Math.floor(random() * ceiling);
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, 250 ms × 2^(attempt-1))]. */
export function backoffDelayMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns milliseconds from `now`, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Waits, unless the user interrupts first. */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
