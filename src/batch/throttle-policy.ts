// The throttle's vocabulary and its tuning: what an answer tells it, what it reports,
// and the numbers that decide how hard it cuts and how fast it recovers, each with
// why it has that value. The mechanism that applies them is throttle.ts.

import { classifyStatus, isRefusal } from '../http/classify.js';
import type { Rate } from './rate-limit.js';

/** What an answer says about the server's load (see feedbackFor). */
export type Feedback =
  /** The server processed the request: 2xx, or an answer that is not a refusal (400, 401, 404...). */
  | { kind: 'ok' }
  /** The server refused because of load; retryAfterMs from its Retry-After header. */
  | { kind: 'refused'; status: 429 | 503; retryAfterMs: number | undefined }
  /** No answer, or one that says nothing about load (network failure, timeout, 500, 502, 504). */
  | { kind: 'neutral' };

/** Permission to send one attempt. Release it once, with what the answer said. */
export interface Permit {
  /** On the throttle's clock. */
  readonly startedAt: number;
  release(feedback: Feedback): void;
}

export type ThrottleChange =
  | { kind: 'slowed'; reason: 429 | 503; ratePerSecond: number }
  | { kind: 'concurrency'; limit: number }
  | { kind: 'paused'; forMs: number; reason: 'retry-after' | 'refusing' }
  | { kind: 'recovered' }
  | { kind: 'gave-up'; reason: string };

export interface ThrottleStats {
  /** 429 and 503 answers. */
  refusals: number;
  rateCuts: number;
  concurrencyCuts: number;
  /**
   * Pauses of the whole run that held something back, and their total length up to the end of
   * the run (overlaps counted once). A pause nothing waited for is not counted.
   */
  pauses: number;
  pausedMs: number;
  /** The longest an attempt, or the pool's next new item, waited to be sent. */
  longestWaitMs: number;
  /** The adaptive sending rate now; undefined until the first 429. */
  ratePerSecond: number | undefined;
  /** Requests allowed in flight now. */
  concurrencyLimit: number;
}

export interface ThrottleOptions {
  /** Never more requests in flight than this (--concurrency). */
  ceiling: number;
  /** A hard cap on starts in any window (--rate), on top of the adaptive rate. */
  rate?: Rate;
  /** Give up once the server has refused every request for this long (default DEFAULT_STALL_MS). */
  stallMs?: number;
  /** The longest pause of the whole run, whatever Retry-After says (default DEFAULT_MAX_PAUSE_MS). */
  maxPauseMs?: number;
  /** Milliseconds; default performance.now. */
  now?: () => number;
  /** Calls back after `delayMs` unless cancelled; default a setTimeout. */
  setTimer?: (callback: () => void, delayMs: number) => () => void;
  /** Called once per change of state (a cut, a pause, recovery, giving up), never per request. */
  onChange?: (change: ThrottleChange) => void;
}

/**
 * A Retry-After longer than this pauses the whole run. Shorter ones only delay the refused
 * request: a server smoothing its rate says "1 s" to the requests it cannot take right now,
 * not to the ones that fit, and pausing everything for that would waste its capacity.
 */
export const LONG_RETRY_AFTER_MS = 2000;
/** The pause when the server keeps refusing and gives no Retry-After. */
export const DEFAULT_PAUSE_MS = 1000;
export const DEFAULT_STALL_MS = 60_000;
/** --max-retry-wait's default: a request asked to wait longer fails anyway. */
export const DEFAULT_MAX_PAUSE_MS = 30_000;

/** A 429 multiplies the rate by this (TCP CUBIC's and the AWS SDKs' factor). */
export const RATE_DECREASE = 0.7;
/**
 * A 503 multiplies the requests in flight by this. Milder than for the rate because the cut
 * starts from a measurement, the count in flight when the refused request was sent, rather
 * than from the limit, so it leaves out the overshoot already.
 */
export const CONCURRENCY_DECREASE = 0.8;
/** Seconds of good answers for the rate to climb back to where the server pushed back. */
export const RATE_RECOVERY_S = 2;
/**
 * Recovery is reported once the rate is this many times the rate where the server pushed back.
 * Pacing goes on: the curve soon makes it a no-op, while dropping it at once would send all
 * that is held back in one burst, which the server would refuse.
 */
export const RECOVERED_ABOVE = 2;
/**
 * One more request in flight after this many times the limit in consecutive good answers.
 * Each time such a probe is refused at the same limit, the next waits twice as long: a server
 * with a hard limit is asked again and again otherwise, and each refused id waits its Retry-After.
 */
export const CONCURRENCY_INCREASE_AFTER = 10;
/**
 * After the first cut, the rate doubles this often until the server pushes back again (TCP's
 * slow start). The first cut is made on the least evidence: a burst the server absorbed, or
 * refusals that arrive before any admitted answer (then nothing is known and the rate starts
 * from MIN_RATE). Doubling finds the server's pace in a second or two either way.
 */
export const PROBE_DOUBLING_MS = 100;
/** A slow start that doubles this many times without a refusal ends: the rate is unlimited again. */
export const PROBE_DOUBLINGS = 10;
/** Never paced slower than this, in requests per second (pauses aside). */
export const MIN_RATE = 1;

/**
 * The rate after a cut, as a multiple of the rate where the server pushed back, after `seconds`
 * of good answers: CUBIC's curve (TCP, and the AWS SDKs' adaptive mode) scaled to that rate.
 * It climbs from RATE_DECREASE, levels off at 1 after RATE_RECOVERY_S, then climbs ever faster:
 * a cut made on thin evidence, like the first one after the opening burst, can be far too deep,
 * and a straight line would take minutes to find that out.
 */
export function cubicGrowth(seconds: number): number {
  const t = seconds - RATE_RECOVERY_S;
  return 1 + ((1 - RATE_DECREASE) / RATE_RECOVERY_S ** 3) * t * t * t;
}

/** What an HTTP answer says about load; `status` null when no answer arrived. */
export function feedbackFor(status: number | null, retryAfterMs?: number): Feedback {
  // No answer says nothing about load; what an answer says is in the one table (http/classify.ts).
  if (status === null) return NEUTRAL;
  if (isRefusal(status)) return { kind: 'refused', status, retryAfterMs };
  return classifyStatus(status).load === 'ok' ? OK : NEUTRAL;
}

const OK: Feedback = { kind: 'ok' };
const NEUTRAL: Feedback = { kind: 'neutral' };
