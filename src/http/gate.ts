// The port between the transport and whatever paces a run: every attempt asks the gate for a
// permit and releases it with what the answer said about the server's load. The transport
// knows only this; the batch's throttle (src/batch/throttle/) implements it.

import { classifyStatus, isLoadRefusal, type LoadRefusal } from './classify.js';
import type { FailedAttempt } from './outcome.js';

/** What an answer says about the server's load (see feedbackFor). */
export type Feedback =
  /** The server processed the request: 2xx, or an answer that is not a refusal (400, 401, 404...). */
  | { kind: 'ok' }
  /**
   * The server refused because of load, as the status table says (`load`); `status` is carried
   * for the words only, and retryAfterMs comes from its Retry-After header.
   */
  | { kind: 'refused'; load: LoadRefusal; status: number; retryAfterMs: number | undefined }
  /**
   * The service, or the way to it, is failing: a gateway's 502 or 504, a refused or reset
   * connection. One such answer is one id's bad luck; 8 ids in a row failing on their first attempt, with no good answer between, an outage
   * (throttle/outage.ts). `status` is the answer's, undefined for a connection that failed.
   */
  | { kind: 'failing'; status: number | undefined }
  /** No answer, or one that says nothing about load (timeout, 500). */
  | { kind: 'neutral' };

/** Permission to send one attempt. Release it once, with what the answer said. */
export interface Permit {
  /** On the gate's clock. */
  readonly startedAt: number;
  release(feedback: Feedback): void;
}

/** The one gate every attempt of a run passes, first or retry: it paces the run when the server pushes back. */
export interface AttemptGate {
  /** A permit to send one attempt; undefined means do not send (`signal` aborted, or the gate gave up or closed). */
  acquire(kind: 'first' | 'retry', signal: AbortSignal): Promise<Permit | undefined>;
  /** Why the run stopped trying, once the server has refused everything for too long. */
  gaveUp(): string | undefined;
  /**
   * Whether the server has lately admitted requests of this run. A refusal then is the run's
   * pacing, not this id failing, and costs a fifth of a retry; otherwise a whole one.
   */
  admitting(): boolean;
  /** A request the HTTP layer sent again on its own (HTTP/2): it counts against --rate like any start. */
  resent?(): void;
  /**
   * Whether the whole service is failing now (8 ids in a row failing on their first attempt, with no good answer between:
   * 502/503/504 or failed connections): the batch is paused and probing, and a failure then is the service's, not
   * the id's, so it costs the id a fifth of a retry, as a paced refusal does.
   */
  outage?(): boolean;
}

/** What an HTTP answer says about load; `status` null when no answer arrived. */
export function feedbackFor(status: number | null, retryAfterMs?: number): Feedback {
  // No answer says nothing about load; what an answer says is in the one table (classify.ts).
  if (status === null) return NEUTRAL;
  const { load } = classifyStatus(status);
  if (isLoadRefusal(load)) return { kind: 'refused', load, status, retryAfterMs };
  return load === 'ok' ? OK : NEUTRAL;
}

/** Connection failures that say the service (or the gateway before it) is not taking requests. */
const FAILING_CONNECTIONS = new Set(['refused', 'reset', 'closed', 'closed-while-sending']);

/**
 * What an attempt's ending says about load: feedbackFor's answer, except that a gateway's 502
 * or 504, and a connection refused or reset, say the service is failing.
 */
export function feedbackForAttempt(attempt: FailedAttempt | undefined, status: number | null, retryAfterMs?: number): Feedback {
  if (status === 502 || status === 504) return { kind: 'failing', status };
  if ((attempt?.kind === 'network' || attempt?.kind === 'proxy-unreachable') && FAILING_CONNECTIONS.has(attempt.what))
    return { kind: 'failing', status: undefined };
  return feedbackFor(status, retryAfterMs);
}

const OK: Feedback = { kind: 'ok' };
const NEUTRAL: Feedback = { kind: 'neutral' };
