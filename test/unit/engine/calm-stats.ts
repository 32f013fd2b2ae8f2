import type { ThrottleStats } from '../../../src/batch/throttle/throttle.js';

/** A run the server never pushed back on, at a fixed 8 in flight: what the summary tests start from. */
export const CALM: ThrottleStats = {
  refusals: 0,
  failures: 0,
  outages: 0,
  rateCuts: 0,
  concurrencyCuts: 0,
  pauses: 0,
  pausedMs: 0,
  ratePerSecond: undefined,
  concurrencyLimit: 8,
  recovered: false,
  downAtEnd: false,
  servedPerSecond: undefined,
};
