// Whether the run was slowed and came back, and why its pace is cut now, as data for the words
// the UI and the summary say (never words here). Recovery is said only with an answer to show for
// it, never because a cap ran out while nothing was admitted (a slow start that ends during an
// outage, when nothing is refused because nothing but a probe is sent). What the server took once
// it pushed back is measured from the answers, not read from the throttle's cap: a cap grown back
// past what the server takes (~243/s against a server of 200/s) is no rate anyone saw.

import type { Feedback } from '../../http/gate.js';
import type { AdaptiveRate } from './adaptive-rate.js';
import type { AutoConcurrency } from './auto-concurrency.js';
import type { InFlightLimit } from './concurrency-limit.js';
import type { OutageWatch } from './outage.js';
import { CauseWindow } from './pace-causes.js';
import type { PauseRule } from './pause.js';
import type { PaceState, ThrottleStats } from './throttle-types.js';

/** Less time than this from the first refusal to the last good answer is no span to give a served rate over. */
const MEASURED_SPAN_MS = 1000;

/** The controller's parts that cut the pace, read (never moved) to say whether it is cut and how. */
export interface PaceParts {
  rate: AdaptiveRate;
  limit: InFlightLimit;
  /** With `--concurrency auto`: the same limit, whose cuts of late it counts (AutoConcurrency.cutsLately). */
  auto: AutoConcurrency | undefined;
  pauses: PauseRule;
  outage: OutageWatch;
}

export class Slowdown {
  readonly #parts: PaceParts;
  readonly #causes = new CauseWindow();
  /** Slowed down, and recovery not reported yet. */
  #slowed = false;
  #everSlowed = false;
  #admittedSince = false;
  /** From the first refusal for load: when it came, and the good answers since, to the last. */
  #firstRefusalAt: number | undefined;
  #served = 0;
  #lastServedAt = 0;

  constructor(parts: PaceParts) {
    this.#parts = parts;
  }

  onAnswer(feedback: Feedback, now: number): void {
    this.#causes.onAnswer(feedback, now);
    if (feedback.kind === 'refused') this.#firstRefusalAt ??= now;
    if (feedback.kind !== 'ok') return;
    this.#admittedSince = true;
    if (this.#firstRefusalAt === undefined) return;
    this.#served += 1;
    this.#lastServedAt = now;
  }

  /** The rate or the limit was cut, or the run restarts slowly after an outage. */
  slowed(): void {
    this.#slowed = true;
    this.#everSlowed = true;
    this.#admittedSince = false;
  }

  /** Slowed, and admitted since: recovery may be reported once the pace allows it. */
  get awaitingRecovery(): boolean {
    return this.#slowed && this.#admittedSince;
  }

  recovered(): void {
    this.#slowed = false;
  }

  /** The summary's part of the stats. */
  stats(): Pick<ThrottleStats, 'recovered' | 'downAtEnd' | 'servedPerSecond'> {
    const from = this.#firstRefusalAt;
    const span = from === undefined ? 0 : this.#lastServedAt - from;
    return {
      recovered: this.#everSlowed && !this.#slowed,
      downAtEnd: this.#parts.outage.active,
      servedPerSecond: span < MEASURED_SPAN_MS ? undefined : (this.#served * 1000) / span,
    };
  }

  /** Why the pace is cut at `now`: the answers of late, and the parts' state. `downSince`: while the service is down, since when. */
  pace(now: number, downSince: number | undefined): PaceState {
    const { rate, limit, auto, pauses } = this.#parts;
    const downForMs = downSince === undefined ? undefined : now - downSince;
    const pause = pauses.current(now);
    const autoCuts = auto?.cutsLately(now);
    // A fixed limit is cut while below its ceiling; the latency-based one moves on its own, up and down: only a cut of late counts.
    const limitCut = autoCuts === undefined ? limit.limit < limit.ceiling : autoCuts.any > 0;
    const cut = downForMs !== undefined || pause !== undefined || rate.perSecond !== Number.POSITIVE_INFINITY || limitCut;
    return { ...this.#causes.read(now), latencyCuts: autoCuts?.latency ?? 0, cut, pause, downForMs };
  }
}
