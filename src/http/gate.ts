// The port between the transport and whatever paces a run: every attempt asks the gate for a
// permit and releases it with what the answer said about the server's load. The transport
// knows only this; the batch's throttle (src/batch/throttle/) implements it.

import { classifyStatus, isLoadRefusal, type Load, type LoadRefusal } from './classify.js';

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
   * The service, or the way to it, is failing, as the table says (`failing`: a gateway's 502 or
   * 504, a refused or reset connection). One such answer is one id's bad luck; 8 ids in a row failing on their first attempt, with no good answer between, an outage
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
  /**
   * A retry after a failing answer (502, 504, a failed connection) while the service serves the
   * run's other requests, paid from a budget its good answers refill: true when paid, and then it
   * costs the id a fifth of a retry. A share of failures costs retries, not ids.
   */
  spareRetry?(): boolean;
  /** Aborted once the gate grants nothing more (it gave up, or the run stopped): a retry's wait ends then. */
  readonly stopped?: AbortSignal;
}

/** What an HTTP answer says about load, by its status's row (classify.ts); `status` null when no answer arrived. */
export function feedbackFor(status: number | null, retryAfterMs?: number): Feedback {
  return status === null ? NEUTRAL : feedbackOf(classifyStatus(status).load, status, retryAfterMs);
}

/**
 * The feedback for what the one table (classify.ts) says an attempt's ending tells of load: its
 * verdict's `load`, with the status of the answer, if one had begun, and its Retry-After.
 */
export function feedbackOf(load: Load, status: number | undefined, retryAfterMs?: number): Feedback {
  if (load === 'ok') return OK;
  if (load === 'failing') return { kind: 'failing', status };
  // A refusal is a status's row: an answer came.
  if (isLoadRefusal(load) && status !== undefined) return { kind: 'refused', load, status, retryAfterMs };
  return NEUTRAL;
}

const OK: Feedback = { kind: 'ok' };
const NEUTRAL: Feedback = { kind: 'neutral' };
