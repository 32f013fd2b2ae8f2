// Whether a 503 says the server is past its capacity, or only that it fails a few requests at
// random (a flaky backend, a load balancer shedding a share). Cutting the limit for each random
// refusal, as TCP Reno cuts for each random loss, starves the run: with 5% of answers a 503
// (`plantstore sandbox --fail 5%`), a batch settled near 1 to 8 in flight, 3,000 ids in 105 s
// where the server serves them in 1 s. So, as BBR tolerates a small loss rate, a 503 is read as
// overload when any of these holds:
// - too few first attempts are known to tell (a short run, the start of one): as it always was;
// - 503s are more than a tenth of the recent first attempts: a server past its capacity refuses
//   more and more of what is sent past it;
// - the refused request left at a load no admitted one of late left at: what is new at the top
//   of the load is what a server past its capacity refuses first.
// A share at or under a tenth, at a load the server has been taking, is the server's own trouble:
// that id retries on its own, as a retry's 503 does.

/** The recent first attempts the share is read over. */
const WINDOW = 64;
/** Below this many answers, any 503 is overload, as it always was. */
const MIN_SAMPLE = 20;
/** A share of 503s at or below this, at a load the server takes, is not ours to cut for. */
const TOLERATED_SHARE = 0.1;

export class RefusalShare {
  /** 0 for a refusal; for an admitted first attempt, the requests in flight when it left (at least 1). */
  readonly #loads = new Uint32Array(WINDOW);
  #next = 0;
  #count = 0;
  #refused = 0;

  /** A first attempt admitted: it left with `inFlightAtStart` in flight. */
  admitted(inFlightAtStart: number): void {
    this.#push(Math.max(1, inFlightAtStart));
  }

  /** A first attempt refused for load (503): whether that says overload (see above). Noted either way. */
  refused(inFlightAtStart: number): boolean {
    const topAdmitted = this.#topAdmitted();
    this.#push(0);
    if (this.#count < MIN_SAMPLE) return true;
    return this.#refused / this.#count > TOLERATED_SHARE || inFlightAtStart > topAdmitted;
  }

  #topAdmitted(): number {
    let top = 0;
    for (let i = 0; i < this.#count; i++) top = Math.max(top, this.#loads[i] as number);
    return top;
  }

  #push(load: number): void {
    if (this.#count === WINDOW) {
      if (this.#loads[this.#next] === 0) this.#refused--;
    } else this.#count++;
    this.#loads[this.#next] = load;
    if (load === 0) this.#refused++;
    this.#next = (this.#next + 1) % WINDOW;
  }
}
