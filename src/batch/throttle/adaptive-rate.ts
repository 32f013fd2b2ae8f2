// The throttle's sending rate, for a server that says "too fast" (rate-limited): unpaced until
// the first refusal, then cut multiplicatively from the rate the server admitted, found again by
// a slow start after the first cut, and grown back along CUBIC's curve after later ones. It
// keeps no clock: every call is given the time, so a test drives it with plain numbers.

import { RecentCount } from '../rate-limit.js';

/** A cut multiplies the rate by this (TCP CUBIC's and the AWS SDKs' factor)... */
export const RATE_DECREASE = 0.7;
/**
 * ...but by this after the first: the first cut is made on the least evidence (see
 * PROBE_DOUBLING_MS) and a slow start finds the server's rate from there; each later one comes
 * where the rate had climbed back to what the server admitted, so only the overshoot past it is
 * taken back. Against a token bucket of 150/s (burst 10, 30 ms answers) each cut took 0.3 of the
 * rate and the 2 s climb back averaged 0.93 of it: runs of 1,200 ids read 0.77-0.93×.
 */
export const LATER_RATE_DECREASE = 0.85;
/** Seconds of good answers for the rate to climb back to where the server pushed back. */
export const RATE_RECOVERY_S = 2;
/**
 * Recovery is reported once the rate is this many times the rate where the server pushed back.
 * Pacing goes on: the curve soon makes it a no-op, while dropping it at once would send all
 * that is held back in one burst, which the server would refuse.
 */
export const RECOVERED_ABOVE = 2;
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

/** The admitted rate is measured over about the last second. */
const MEASURE_MS = 1000;
/** Less time than this since the first start is not a span to divide by: see #admittedRate. */
const MIN_MEASURE_MS = 10;

/**
 * The rate after a cut, as a multiple of the rate where the server pushed back, after `seconds`
 * of good answers: CUBIC's curve (TCP, and the AWS SDKs' adaptive mode) scaled to that rate.
 * It climbs from `decrease` (the cut's), levels off at 1 after RATE_RECOVERY_S, then climbs ever faster:
 * a cut made on thin evidence, like the first one after the opening burst, can be far too deep,
 * and a straight line would take minutes to find that out.
 */
export function cubicGrowth(seconds: number, decrease = RATE_DECREASE): number {
  const t = seconds - RATE_RECOVERY_S;
  // Past the level the climb is the same whatever the cut took off: a milder cut probes no slower.
  return 1 + ((t < 0 ? 1 - decrease : 1 - RATE_DECREASE) / RATE_RECOVERY_S ** 3) * t * t * t;
}

export class AdaptiveRate {
  /** Requests per second; Infinity until the first cut. */
  #rate = Number.POSITIVE_INFINITY;
  /** Where the server pushed back at the last cut. */
  #rateAtCut = 0;
  /** The last cut's factor: RATE_DECREASE for the first, LATER_RATE_DECREASE after. */
  #decrease = RATE_DECREASE;
  /** Seconds of good answers since the last cut, counted in answers at the current rate. */
  #sinceCut = 0;
  readonly #oks = new RecentCount(MEASURE_MS);
  readonly #recentOks = new RecentCount(MEASURE_MS / 4);
  /** 'ok' answers since the run began. */
  #okCount = 0;
  #firstStartAt: number | undefined;
  /** Slow start after the first cut: from this rate, at this time, doubling until the next cut. */
  #probe: { from: number; since: number } | undefined;
  /** A cut put off (deferCut): the count of 'ok' answers then, and when. */
  #probeAfterWait: { oks: number; since: number } | undefined;
  #cuts = 0;

  /** Requests per second now (Infinity: not paced), as of the last advance(). */
  get perSecond(): number {
    return this.#rate;
  }

  /** Cuts so far, slow starts after a wait included; a restart after an outage is not one (restart). */
  get cuts(): number {
    return this.#cuts;
  }

  /** Paced no slower than the server's pace since the last cut, and done with any slow start. */
  get recovered(): boolean {
    return this.#probe === undefined && this.#rate >= RECOVERED_ABOVE * this.#rateAtCut;
  }

  /** A start: the first one begins the span the admitted rate is measured over. */
  onStart(now: number): void {
    this.#firstStartAt ??= now;
  }

  /** An answer that was not a refusal. Time moves with the answers: a run that sends less than the rate allows does not raise it. */
  onAdmitted(now: number): void {
    this.#oks.add(now);
    this.#okCount += 1;
    this.#recentOks.add(now);
    if (this.#rate !== Number.POSITIVE_INFINITY && this.#probe === undefined) {
      this.#sinceCut += 1 / this.#rate;
      this.#rate = Math.max(MIN_RATE, this.#rateAtCut * cubicGrowth(this.#sinceCut, this.#decrease));
    }
  }

  /** Whether the server admitted a request in about the last second. */
  admitting(now: number): boolean {
    return this.#oks.total(now) > 0;
  }

  /**
   * A refusal to cut from: to RATE_DECREASE × what the server admitted lately, LATER_RATE_DECREASE
   * × after the first. The first cut starts a slow start.
   */
  cut(now: number): void {
    const first = this.#cuts === 0;
    this.#decrease = first ? RATE_DECREASE : LATER_RATE_DECREASE;
    this.#rateAtCut = Math.max(MIN_RATE, Math.min(this.#rate, this.#admittedRate(now)));
    this.#rate = Math.max(MIN_RATE, this.#decrease * this.#rateAtCut);
    this.#probe = first ? { from: this.#rate, since: now } : undefined;
    this.#sinceCut = 0;
    this.#cuts += 1;
  }

  /**
   * A refusal with nothing admitted lately, so no rate to cut from: a cut would start from
   * nothing and crawl back for minutes. The caller waits instead; startDeferredCut() then
   * starts slowly from what the server admitted meanwhile (the answers to requests it had taken).
   */
  deferCut(now: number): void {
    this.#probeAfterWait = { oks: this.#okCount, since: now };
  }

  /** Once the wait is over: makes the cut deferCut() put off, as a slow start, and says whether there was one. */
  startDeferredCut(now: number): boolean {
    const base = this.#probeAfterWait;
    if (base === undefined) return false;
    this.#probeAfterWait = undefined;
    this.#slowStart(((this.#okCount - base.oks) * 1000) / Math.max(MIN_MEASURE_MS, now - base.since), now);
    this.#cuts += 1;
    return true;
  }

  /**
   * The service answers again after an outage (outage.ts): a slow start from MIN_RATE, as TCP's
   * after a loss of everything, since nothing says what it takes now. No refusal asked for it, so
   * it is no cut, unless one was put off (deferCut) meanwhile: this slow start makes that one.
   */
  restart(now: number): void {
    if (this.#probeAfterWait !== undefined) this.#cuts += 1;
    this.#probeAfterWait = undefined;
    this.#slowStart(MIN_RATE, now);
  }

  /** Paced at RATE_DECREASE × `admitted` (never below MIN_RATE), doubling from there until the next cut. */
  #slowStart(admitted: number, now: number): void {
    this.#rateAtCut = Math.max(MIN_RATE, admitted);
    this.#decrease = RATE_DECREASE;
    this.#rate = Math.max(MIN_RATE, RATE_DECREASE * this.#rateAtCut);
    this.#probe = { from: this.#rate, since: now };
  }

  /**
   * Moves a slow start on to `now`; true when it just ended: past PROBE_DOUBLINGS doublings
   * without a refusal, the first cut was a fluke, and the rate is unlimited again.
   */
  advance(now: number): boolean {
    if (this.#probe === undefined) return false;
    const doublings = (now - this.#probe.since) / PROBE_DOUBLING_MS;
    if (doublings < PROBE_DOUBLINGS) {
      this.#rate = this.#probe.from * 2 ** doublings;
      return false;
    }
    this.#probe = undefined;
    this.#rate = Number.POSITIVE_INFINITY;
    return true;
  }

  /**
   * 'ok' answers per second over the last second. Early in a run less time has passed, and
   * that time is the divisor: a full second would understate the rate. The opening burst then
   * reads high, but one cut per round trip brings the rate down within a few round trips,
   * faster than growth would find a rate set too low.
   */
  #admittedRate(now: number): number {
    const span = Math.min(MEASURE_MS, Math.max(MIN_MEASURE_MS, now - (this.#firstStartAt ?? now)));
    const overSecond = (this.#oks.total(now) * 1000) / span;
    // A second that began slowly (a slow start, a pause) understates what the server takes now.
    const lately = (this.#recentOks.total(now) * 1000) / Math.min(span, MEASURE_MS / 4);
    return Math.max(overSecond, lately);
  }
}
