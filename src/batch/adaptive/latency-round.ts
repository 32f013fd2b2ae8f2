// One round of `--concurrency auto` (latency-limit.ts): the answers since the limit last changed
// or the last round ended, summed as they come and read once at its end.

export interface RoundSummary {
  /** The median latency: what the round's verdict (flat, hold, queueing) is read from. */
  medianRtt: number;
  /** The mean latency: with meanInFlight, the throughput by Little's law. */
  meanRtt: number;
  /** Requests in flight when each of its requests started, itself included, on average... */
  meanInFlight: number;
  /** ...and at most. */
  maxInFlight: number;
  /** How many answers the round holds. */
  answers: number;
}

export class LatencyRound {
  #rtts: number[] = [];
  #sumRtt = 0;
  #sumInFlight = 0;
  #maxInFlight = 0;

  get size(): number {
    return this.#rtts.length;
  }

  add(rttMs: number, inFlightAtStart: number): void {
    this.#rtts.push(rttMs);
    this.#sumRtt += rttMs;
    this.#sumInFlight += inFlightAtStart;
    this.#maxInFlight = Math.max(this.#maxInFlight, inFlightAtStart);
  }

  /** What the round saw (it must hold at least one answer); the round starts over empty. */
  close(): RoundSummary {
    const count = this.#rtts.length;
    const summary = {
      medianRtt: median(this.#rtts),
      meanRtt: this.#sumRtt / count,
      meanInFlight: this.#sumInFlight / count,
      maxInFlight: this.#maxInFlight,
      answers: count,
    };
    this.clear();
    return summary;
  }

  clear(): void {
    this.#rtts = [];
    this.#sumRtt = 0;
    this.#sumInFlight = 0;
    this.#maxInFlight = 0;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
