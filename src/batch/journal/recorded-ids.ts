import { RECORDED_KINDS, Recorded, type RecordedCode, type RecordedKind } from './format.js';
import { IdTable } from './id-table.js';

/**
 * Set beside an id's kind once a request for it may have reached the server with no decided
 * answer: in flight when a run stopped (a sent line followed by another sent line, a later run
 * sending it again, or by a not-sent line, with no result between them), or a failure recorded as uncertain (a
 * timeout, a reset, a 5xx, a signal while waiting). It stays through later failures, since that
 * request may have been carried out, and is cleared by a result that settles the id (done or absent).
 */
const IN_FLIGHT_AT_A_STOP = 0x80;
const KIND_BITS = 0x7f;

/** What a journal last said of each id: its RecordedCode, with IN_FLIGHT_AT_A_STOP when it applies, a byte a slot. */
export class RecordedIds {
  readonly #codes = new IdTable(Uint8Array);
  readonly #counts = new Uint32Array(RECORDED_KINDS.length + 1);

  get size(): number {
    return this.#codes.size;
  }

  /** Later lines win: a success recorded after a failure counts. `uncertain`: see IN_FLIGHT_AT_A_STOP. */
  set(id: bigint, kind: RecordedCode, uncertain = false): void {
    const flag = uncertain ? IN_FLIGHT_AT_A_STOP : 0;
    const previous = this.#codes.set(id, kind | flag);
    if (previous !== 0) {
      const previousKind = previous & KIND_BITS;
      (this.#counts[previousKind] as number)--;
      const settles = kind === Recorded.done || kind === Recorded.absent;
      // A sent line whose request got no answer before the next line: sent again, or a not-sent
      // line (2.0 wrote one for an id a later run stopped before sending, which erased the mark).
      const unanswered = previousKind === Recorded.sent && (kind === Recorded.sent || kind === Recorded.notSent);
      // Set again only for such an id or one already flagged: a few of a journal's lines.
      if (flag === 0 && !settles && (unanswered || (previous & IN_FLIGHT_AT_A_STOP) !== 0)) {
        this.#codes.set(id, kind | IN_FLIGHT_AT_A_STOP);
      }
    }
    (this.#counts[kind] as number)++;
  }

  /** The kind last recorded for `id`, or 0 when the journal does not mention it. */
  get(id: bigint): RecordedCode | 0 {
    return (this.#codes.get(id) & KIND_BITS) as RecordedCode | 0;
  }

  /**
   * Whether a request for `id` may have been carried out without its answer being recorded:
   * its last line is a sent line (in flight when the last run stopped), or a request was in
   * flight at an earlier stop, or failed uncertain, and nothing since has said done or absent.
   */
  wasInFlight(id: bigint): boolean {
    return inFlight(this.#codes.get(id));
  }

  /** How many ids each kind holds, by their last line. */
  counts(): Record<RecordedKind, number> {
    const counts = {} as Record<RecordedKind, number>;
    RECORDED_KINDS.forEach((kind, index) => {
      counts[kind] = this.#counts[index + 1] as number;
    });
    return counts;
  }

  /** Each id with its last kind and wasInFlight(id), in no particular order. */
  forEach(visit: (id: bigint, kind: RecordedCode, inFlight: boolean) => void): void {
    this.#codes.forEach((id, code) => {
      visit(id, (code & KIND_BITS) as RecordedCode, inFlight(code));
    });
  }
}

function inFlight(code: number): boolean {
  return (code & KIND_BITS) === Recorded.sent || (code & IN_FLIGHT_AT_A_STOP) !== 0;
}
