// What the throttle tells the rest of the run (its changes of state, its account of the run)
// and what the controller knows of each start: shared by controller.ts, throttle.ts and the
// parts that watch starts (overdue.ts, outage.ts).

import type { LimitChangeReason } from '../adaptive/latency-limit.js';
import type { Rate } from '../rate-limit.js';
import type { RecentCauses } from './pace-causes.js';
import type { PauseReason } from './pause.js';

/** What the throttle reports, once per change of state; `status` is the refusal's, for the words. */
export type ThrottleChange =
  | { kind: 'slowed'; status: number; ratePerSecond: number }
  | { kind: 'concurrency'; status: number; limit: number }
  /** `--concurrency auto`: the limit moved, a 503 cut included (then no 'concurrency' change). */
  | { kind: 'limit'; from: number; to: number; reason: LimitChangeReason }
  | { kind: 'paused'; forMs: number; reason: PauseReason }
  | { kind: 'recovered' }
  /** The service answered again after an outage (outage.ts) of `afterMs`: the run starts again slowly. */
  | { kind: 'service-back'; afterMs: number }
  | { kind: 'gave-up'; reason: string };

export interface ThrottleStats {
  /** Answers that refused for load. */
  refusals: number;
  /** Answers that said the service was failing: a gateway's 502 or 504, a refused or reset connection. */
  failures: number;
  /** Times the whole service failed (outage.ts): the run paused and probed. */
  outages: number;
  /** Cuts of the sending rate for refusals; the slow restart after an outage is none. */
  rateCuts: number;
  concurrencyCuts: number;
  /**
   * Pauses of the whole run that held something back, and their total length up to the end of
   * the run (overlaps counted once). A pause nothing waited for is not counted.
   */
  pauses: number;
  pausedMs: number;
  /** The adaptive sending rate now; undefined while unpaced (before any rate cut or restart after an outage, or once a slow start ended unrefused). */
  ratePerSecond: number | undefined;
  /** Requests allowed in flight now. */
  concurrencyLimit: number;
  /** With `--concurrency auto` only: the limit the run works at (see AutoConcurrency.settled). */
  settledConcurrency?: number;
  /**
   * Whether the run came back to full speed after it was last slowed: unpaced, the limit at its
   * ceiling, out of any outage, and admitted since. False for a run never slowed, and for one whose
   * pace only stopped being cut while nothing was admitted (a slow start that ran out in an outage).
   */
  recovered: boolean;
  /** The service was down (an outage) when the run ended, or is now. */
  downAtEnd: boolean;
  /**
   * Answers the server processed per second, from the first refusal for load to the last such
   * answer: what it took once it pushed back, measured, where `ratePerSecond` is only the
   * throttle's current cap. Undefined without a refusal, or over less than MEASURED_SPAN_MS.
   */
  servedPerSecond: number | undefined;
}

/** Why the pace is cut now, as data (the words are the UI's): Throttle.pace(). */
export interface PaceState extends RecentCauses {
  /**
   * The pace is cut now: the service is down, the run is paused, the sending rate is capped, the
   * in-flight limit is below its ceiling after a cut, or the latency-based limit was cut lately.
   */
  cut: boolean;
  /** A pause of the whole run under way: how long it has left, and why. */
  pause: { leftMs: number; reason: PauseReason } | undefined;
  /** While the service is down (an outage), for how long so far. */
  downForMs: number | undefined;
}

/** A start, as the controller numbered it (onStart). */
export interface Started {
  readonly startedAt: number;
  /** The how-many-th start: tells whether it began before or after a cut, even within one millisecond. */
  readonly sequence: number;
  /** Requests in flight when it started, itself included. */
  readonly inFlightAtStart: number;
  /**
   * An id's attempt after its first failed. Its failure is that id's again: a few ids failing
   * over and over are theirs, and move neither the limit nor the pace of the others.
   */
  readonly retry: boolean;
}

/** `--concurrency`: a fixed number in flight, or the limit found from latency (auto) up to a ceiling. */
export type Concurrency = number | { auto: number };

export interface ThrottleOptions {
  /**
   * Never more requests in flight than this (--concurrency n), or found from latency: 'auto' up to
   * MAX_AUTO_CONCURRENCY, `{ auto: n }` up to n.
   */
  ceiling: Concurrency | 'auto';
  /** A hard cap on starts in any window (--rate), on top of the adaptive rate. */
  rate?: Rate;
  /** Give up once the server has refused every request for this long (default DEFAULT_STALL_MS). */
  stallMs?: number;
  /** The longest pause of the whole run, whatever Retry-After says (default DEFAULT_MAX_PAUSE_MS). */
  maxPauseMs?: number;
  /** `--shard i/n`'s n: the run is one of n on the same server (../adaptive/shard-sync.ts). */
  shards?: number;
  /** Milliseconds; default performance.now. */
  now?: () => number;
  /** Calls back after `delayMs` unless cancelled; default a setTimeout. */
  setTimer?: (callback: () => void, delayMs: number) => () => void;
  /** Called once per change of state (a cut, a pause, recovery, giving up), never per request. */
  onChange?: (change: ThrottleChange) => void;
}
