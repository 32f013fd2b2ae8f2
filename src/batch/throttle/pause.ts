// When the whole run stops sending for a while, and when it stops for good: a long Retry-After,
// or refusals that go on although the run slowed down, pause every start (never longer than
// maxPauseMs); a server that refuses every request for stallMs is given up on. Like the other
// parts it keeps no clock: every call is given the time.

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
/** Ids refused on their first attempt (or probes in an outage) it takes, over stallMs, to give up on a server. */
const STALL_MIN_IDS = 2;
/** Cuts in a row with no good answer between, after which a refusal pauses instead of cutting again. */
const CUTS_BEFORE_PAUSE = 2;

/** 'failing': 8 ids in a row failing on their first attempt, with no good answer between said the service is failing (outage.ts). */
export type PauseReason = 'retry-after' | 'refusing' | 'failing';

export class PauseRule {
  readonly #stallMs: number;
  readonly #maxPauseMs: number;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  /**
   * When the current (or last) pause began, and whether anything waited for it. Only a pause
   * something waited for is reported, and only for as long as the run lasted: a run whose
   * last requests were told to wait past --max-retry-wait stops at once, and waits for nothing.
   */
  #pauseFrom = 0;
  #pauseFelt = false;
  /** Why the current (or last) pause, as the caller said. */
  #reason: PauseReason = 'refusing';
  /** Pauses over before the current one, that something waited for, and their length. */
  #pauses = 0;
  #pausedMs = 0;
  #cutsSinceOk = 0;
  #refusingSince: number | undefined;
  /** Since refusingSince: the failed answers, and what they were. */
  #refusedCount = 0;
  #freshRefusals = 0;
  readonly #refusedWith = new Set<number | undefined>();

  constructor(options: { stallMs?: number | undefined; maxPauseMs?: number | undefined } = {}) {
    this.#stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    this.#maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  }

  /** Nothing starts before this time. */
  get until(): number {
    return this.#pausedUntil;
  }

  /** Two cuts did not help: the server needs a break, not a slightly slower client. */
  get cutsNotHelping(): boolean {
    return this.#cutsSinceOk >= CUTS_BEFORE_PAUSE;
  }

  /** An answer that was not a refusal: the count of cuts and of refusing time start again. */
  onAdmitted(): void {
    this.#cutsSinceOk = 0;
    this.#refusingSince = undefined;
    this.#refusedCount = 0;
    this.#freshRefusals = 0;
    this.#refusedWith.clear();
  }

  /**
   * A refusal, or an answer that says the service is failing (`status` undefined: a connection
   * that failed); why to give up once every answer for stallMs was one, else undefined. Any
   * answer that was not (a good one, a 404) starts the count again: a server that processes
   * some requests is not given up on, however many ids it refuses. Only `fresh` evidence (an
   * id's first attempt, or any attempt in an outage) starts the count, and it takes more than
   * one: at the end of a run, an id that fails over and over may be all that is left to answer.
   */
  onRefused(now: number, status?: number, fresh = true): string | undefined {
    if (this.#refusingSince === undefined && !fresh) return undefined;
    this.#refusingSince ??= now;
    this.#refusedCount += 1;
    this.#refusedWith.add(status);
    if (fresh) this.#freshRefusals += 1;
    const refusingMs = now - this.#refusingSince;
    // One id refused over and over is that id's business, however long its retries go on.
    if (refusingMs < this.#stallMs || this.#freshRefusals < STALL_MIN_IDS) return undefined;
    const what = [...this.#refusedWith]
      .sort((a, b) => (a ?? 1000) - (b ?? 1000))
      .map((status) => (status === undefined ? 'failed connections' : String(status)))
      .join(', ');
    return `the server refused all ${this.#refusedCount} requests it answered over ${Math.round(refusingMs / 1000)} s (${what})`;
  }

  /** The rate or the limit was cut. */
  onCut(): void {
    this.#cutsSinceOk += 1;
  }

  /**
   * Nothing starts for `forMs` (at most maxPauseMs). Undefined when an earlier pause already
   * lasts as long; else whether a pause began (rather than one under way being made longer), and for how long.
   */
  pause(forMs: number, now: number, reason?: PauseReason): { began: boolean; forMs: number } | undefined {
    const until = now + Math.min(forMs, this.#maxPauseMs);
    if (until <= this.#pausedUntil) return undefined;
    if (reason !== undefined) this.#reason = reason;
    const began = this.#pausedUntil <= now;
    if (began) {
      // The last pause is over: into the totals if anything waited for it, whole.
      if (this.#pauseFelt) {
        this.#pauses += 1;
        this.#pausedMs += this.#pausedUntil - this.#pauseFrom;
      }
      this.#pauseFrom = now;
      this.#pauseFelt = false;
    }
    this.#pausedUntil = until;
    return { began, forMs: until - now };
  }

  /** The pause under way at `now`, if any: how long it has left, and why. */
  current(now: number): { leftMs: number; reason: PauseReason } | undefined {
    return this.#pausedUntil > now ? { leftMs: this.#pausedUntil - now, reason: this.#reason } : undefined;
  }

  /** Something is held back now: if by a pause, that pause is real and is counted. */
  noteHeldBack(now: number): void {
    if (this.#pausedUntil > now) this.#pauseFelt = true;
  }

  /** The pauses something waited for, and their length up to `end` (the run's end, or now); overlaps counted once. */
  totals(end: number): { pauses: number; pausedMs: number } {
    const current = this.#pauseFelt ? Math.max(0, Math.min(this.#pausedUntil, end) - this.#pauseFrom) : 0;
    return { pauses: this.#pauses + (this.#pauseFelt ? 1 : 0), pausedMs: this.#pausedMs + current };
  }
}
