// How a batch ended, in the journal's word for it (batch/journal/run-record.ts): what the engine
// knows at the end of sendAll, read in the order its stops take precedence.

import type { RunEnding } from '../batch/journal/run-record.js';

export interface StopsSeen {
  /** The run's interrupt: aborted by a signal, its reason the signal's name. */
  signal: AbortSignal;
  /** Why the batch stopped starting ids, if it did (sendAll's stopReason). */
  stopReason: unknown;
  /** sendAll's --max-duration reason, compared by identity. */
  timeUp: unknown;
  /** The throttle gave up on the service. */
  gaveUp: boolean;
  /** --fail-fast (else a budget stop is --max-failures). */
  failFast: boolean;
}

export function runEnding(seen: StopsSeen): RunEnding {
  if (seen.signal.aborted) {
    const reason = seen.signal.reason;
    return typeof reason === 'string' && /^SIG[A-Z0-9]+$/.test(reason) ? reason : 'interrupted';
  }
  if (seen.stopReason === undefined) return 'finished';
  if (seen.stopReason === seen.timeUp) return 'max-duration';
  if (seen.gaveUp) return 'gave-up';
  // The only other stop sendAll makes itself; a journal that cannot be written gets no end line at all.
  return seen.failFast ? 'fail-fast' : 'max-failures';
}
