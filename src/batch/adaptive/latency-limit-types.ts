// The shape of `--concurrency auto`'s limit (latency-limit.ts): what the throttle calls, what it
// reports, and what it can be given.

import type { LoopUse } from './client-busy.js';

/**
 * The shape the throttle's fixed in-flight limit has too, so this one can stand in for it behind
 * `--concurrency auto`. The throttle calls onAdmitted for every answer the server processed
 * (2xx, or one that is not a refusal: 400, 404...) and onOverloaded for a 503; not for 429 (the
 * rate's business) nor for answers that say nothing about load (timeouts, 500, 502, 504).
 */
export interface ConcurrencyLimit {
  /** Requests allowed in flight now: a whole number, at least 1. */
  readonly limit: number;
  /** `inFlightAtStart`: requests in flight when this one started, itself included. */
  onAdmitted(rttMs: number, inFlightAtStart: number): void;
  onOverloaded(inFlightAtStart: number): void;
}

export type LimitChangeReason = 'latency flat' | 'queueing' | 'overloaded (503)' | 'measuring base latency' | 'base latency measured';

/** One per change of the limit, never per request: `* concurrency 24 → 32: latency flat`. */
export interface LimitChange {
  from: number;
  to: number;
  reason: LimitChangeReason;
  /** The base latency the decision was made against, in ms; undefined until first measured. */
  baseRttMs: number | undefined;
}

export interface LatencySample {
  rttMs: number;
  inFlightAtStart: number;
  /** When the answer arrived, on the limiter's clock. */
  now: number;
}

export interface LatencyLimitOptions {
  /** Milliseconds; default performance.now. Only onAdmitted and onOverloaded read it. */
  now?: () => number;
  onChange?: (change: LimitChange) => void;
  /** Default MAX_AUTO_CONCURRENCY. */
  ceiling?: number;
  /** Where the limit starts and the base latency is first measured; default BASE_PROBE_LIMIT (see startingLimit). */
  start?: number;
  /** `--shard i/n`'s n: above 1, the shards measure the base latency together (shard-sync.ts). */
  shards?: number;
  /** How busy the client's event loop is (client-busy.ts); default this process's, or never busy with an injected clock. */
  loop?: LoopUse;
}
