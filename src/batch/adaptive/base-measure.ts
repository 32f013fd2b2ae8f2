// A measure of the base latency (latency-limit.ts): a few requests in flight, and the median of
// their answers' latency. Alone at a server, one round of them shows it. Shards of one job are
// not alone: while one measures, another may already hold a queue at the server, and that queue
// would read as the base (see shard-sync.ts). So a shard's measure lasts a span of time
// (`until`), rounds after rounds, and keeps the lowest median: the moment in it when the others
// held no queue either.

export interface BaseReading {
  /** The round's median latency: the base. */
  rtt: number;
  /** Its mean in flight, and how busy the client's event loop was through it (client-busy.ts). */
  load: number;
  loopBusy: number;
}

export class BaseMeasure {
  #lowest: BaseReading | undefined;
  #from: number | undefined;
  #lastEnd: number | undefined;

  /**
   * `restoreTo`: the limit to go back to after it (undefined for the run's first measure, which
   * grows from where it started); `lastsMs`: rounds go on until this long after it began (0: one round).
   */
  constructor(
    public restoreTo: number | undefined,
    readonly lastsMs = 0,
    from?: number,
  ) {
    this.#from = from;
  }

  /** The measure's requests begin to go out (the run's first measure: its first start). */
  begin(now: number): void {
    this.#from ??= now;
  }

  /**
   * A round at the measuring limit ended at `now`: the base once the measure is over, else
   * undefined. It is over once another round would end further past its span than short of it:
   * against a server of 200 ms a round takes 400 ms, and a second one would only delay the run.
   */
  add(round: BaseReading, now: number): BaseReading | undefined {
    if (this.#lowest === undefined || round.rtt < this.#lowest.rtt) this.#lowest = round;
    const from = this.#from ?? now;
    const roundMs = now - (this.#lastEnd ?? from);
    this.#lastEnd = now;
    return now + roundMs / 2 >= from + this.lastsMs ? this.#lowest : undefined;
  }
}
