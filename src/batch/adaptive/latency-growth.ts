// How far `--concurrency auto` (latency-limit.ts) grows its limit after a round that allows it:
// doubling in slow start, then steps that speed up while more in flight keeps carrying more,
// and near a count the server refused with a 503, one at a time and less and less often.

import { DEEPEST_CUT, FLAT_BELOW, QUEUEING_ABOVE, SHALLOWEST_CUT } from './latency-tuning.js';

export class LatencyGrowth {
  /** In-flight count of the last 503: growth slows to one at a time near it. */
  #overloadedAt: number | undefined;
  /**
   * 503s in a row at (or above) the count refused before: each doubles the rounds the limit
   * waits just below it before asking for it again. A server with a hard limit is otherwise
   * asked every other round, and each probe costs refusals (the fixed limit does the same).
   */
  #refusedAgain = 0;
  /** Flat, filled rounds spent just below #overloadedAt since the last 503. */
  #roundsBelowRefused = 0;
  /**
   * Rounds in a row that grew the limit, flat and carrying more than a lower load did. Each
   * doubles the next step (up to the band's width): the longer more in flight keeps carrying
   * more, the further off the server's capacity (CUBIC's growth away from its last loss). From a
   * cut to 64 against a server with room for 200, steps of the square root took 17 rounds back
   * to 256, growing steps take 9.
   */
  #grownInARow = 0;

  /** A round ended: the streak of rounds that grew is over unless `keepStreak` says otherwise. */
  takeStreak(): number {
    const streak = this.#grownInARow;
    this.#grownInARow = 0;
    return streak;
  }

  keepStreak(streak: number): void {
    this.#grownInARow = streak;
  }

  /** A 503 to a request sent with `inFlightAtStart` in flight. */
  onOverloaded(inFlightAtStart: number): void {
    this.#refusedAgain = this.#overloadedAt !== undefined && inFlightAtStart >= this.#overloadedAt ? this.#refusedAgain + 1 : 0;
    this.#roundsBelowRefused = 0;
    this.#grownInARow = 0;
    this.#overloadedAt = inFlightAtStart;
  }

  /** The limit after `limit`, before the ceiling; undefined to wait a round just below a refused count. */
  next(limit: number, slowStart: boolean): number | undefined {
    if (this.#overloadedAt !== undefined && limit >= this.#overloadedAt) {
      // A round at the count the server last refused, without a refusal: it takes that now.
      // Past it, growth starts again from small steps.
      this.#overloadedAt = undefined;
      this.#refusedAgain = 0;
      this.#grownInARow = 0;
    }
    // Envoy's headroom (the square root), doubled for each round in a row that grew, flat and
    // carrying more (#grownInARow), but never a step that could carry the limit across the band
    // where it holds, from its flat edge past its queueing one (1.5 / 1.25 = 1.2).
    const headroom = Math.floor(Math.sqrt(limit)) * 2 ** Math.min(this.#grownInARow, 8);
    const step = Math.max(1, Math.min(headroom, Math.floor((QUEUEING_ABOVE / FLAT_BELOW - 1) * limit)));
    let next = slowStart ? limit * 2 : limit + step;
    // Quickly back to just below where the server refused, then one at a time.
    if (this.#overloadedAt !== undefined) {
      next = Math.min(next, Math.max(limit + 1, this.#overloadedAt - 1));
      // Asking for the refused count again: only after 2^n - 1 good rounds below it, n the refusals there in a row.
      if (next >= this.#overloadedAt && this.#roundsBelowRefused < 2 ** this.#refusedAgain - 1) {
        this.#roundsBelowRefused += 1;
        this.#grownInARow = 0;
        return undefined;
      }
    }
    this.#grownInARow += 1;
    return next;
  }
}

/**
 * Whether `load` would still read short of a cut (`cutAt` times the base), were latency to go on
 * rising with the load as it did from the base latency's round to this one. A server whose
 * latency rises with every request it holds shows it before a doubling lands past twice its base
 * latency (at 8 in flight 1.2× the base, at 16 2.1×); one that serves K at once and queues the
 * rest is flat until K, and doubles as before.
 */
export function doublingStaysShort(
  base: { rtt: number; load: number },
  now: { rtt: number; load: number },
  load: number,
  cutAt: number,
): boolean {
  if (now.load <= base.load || now.rtt <= base.rtt) return true;
  const perRequest = (now.rtt - base.rtt) / (now.load - base.load);
  return now.rtt + perRequest * (load - now.load) < cutAt * base.rtt;
}

/**
 * The limit after a cut for queueing, from `limit`. Little's law: the server gets through
 * meanInFlight / rtt per ms; at its base latency that throughput needs meanInFlight × base / rtt
 * in flight, and no queue. Never below DEEPEST_CUT of the limit, and at least SHALLOWEST_CUT off it.
 */
export function queueingCut(limit: number, round: { meanInFlight: number; rtt: number; baseRtt: number }): number {
  const fit = Math.floor((round.meanInFlight * round.baseRtt) / round.rtt);
  return Math.max(1, Math.ceil(DEEPEST_CUT * limit), Math.min(fit, Math.floor(SHALLOWEST_CUT * limit)));
}
