import { EXIT_CODE_HELP } from '../../errors.js';
import { RECORDED_KINDS, Recorded, type RecordedCode, type RecordedKind } from './format.js';
import { IdTable } from './id-table.js';
import { type ValuePrint, ValuePrints } from './value-print.js';

/**
 * Set beside an id's kind once a request for it may have reached the server with no decided
 * answer: in flight when a run stopped (a sent line followed by another sent line, a later run
 * sending it again, or by a not-sent line, with no result between them), or a failure recorded as uncertain (a
 * timeout, a reset, a 5xx, a signal while waiting). It stays through later failures, since that
 * request may have been carried out, and is cleared by a result that settles the id (done or absent).
 */
const IN_FLIGHT_AT_A_STOP = 0x80;
const KIND_BITS = 0x07;
/**
 * The exit code of the id's last failure line, as its place in the exit-code table (1 to 15; 0: none,
 * or one not in the table): what an id an operation does not repeat is reported with when an earlier
 * run left it in flight. In the byte's spare bits, so a million ids cost not a byte more.
 */
const EXIT_SHIFT = 3;
const EXIT_BITS = 0x78;
const EXIT_CODES: readonly number[] = [-1, ...EXIT_CODE_HELP.map(([code]) => code)];

/** What a journal last said of each id: its RecordedCode, with IN_FLIGHT_AT_A_STOP when it applies, a byte a slot. */
export class RecordedIds {
  readonly #codes = new IdTable(Uint8Array);
  readonly #counts = new Uint32Array(RECORDED_KINDS.length + 1);
  /** The print of the value each id's last line is about, in a journal whose ids carry values (carryValues); undefined in any other. */
  #prints: ValuePrints | undefined;

  /** The journal's ids carry values: each line's print is kept, and an id's lines are one request's only while it is the same. */
  carryValues(): void {
    this.#prints ??= new ValuePrints();
  }

  get size(): number {
    return this.#codes.size;
  }

  /**
   * Later lines win: a success recorded after a failure counts. `uncertain`: see IN_FLIGHT_AT_A_STOP.
   * `exit`: a failure line's. `hi`, `lo`: the line's print, in a journal of values: a line about
   * another value than the id's last is another request, which no earlier one leaves in flight.
   */
  set(id: bigint, kind: RecordedCode, uncertain = false, exit?: number, hi = 0, lo = 0): void {
    const flag = uncertain ? IN_FLIGHT_AT_A_STOP : 0;
    const exitIndex = exit === undefined ? 0 : EXIT_CODES.indexOf(exit);
    // Four bits: a table grown past 15 codes keeps the first 15 (a later one reads as none, never as the flag).
    const exitBits = exitIndex > 0 && exitIndex <= EXIT_BITS >>> EXIT_SHIFT ? exitIndex << EXIT_SHIFT : 0;
    const code = kind | exitBits;
    const previous = this.#codes.set(id, code | flag);
    const sameValue = this.#prints === undefined || this.#prints.set(id, hi, lo);
    if (previous !== 0) {
      const previousKind = previous & KIND_BITS;
      (this.#counts[previousKind] as number)--;
      const settles = kind === Recorded.done || kind === Recorded.absent;
      // A sent line whose request got no answer before the next line: sent again, or a not-sent
      // line (2.0 wrote one for an id a later run stopped before sending, which erased the mark).
      const unanswered = previousKind === Recorded.sent && (kind === Recorded.sent || kind === Recorded.notSent);
      // Set again only for such an id or one already flagged: a few of a journal's lines.
      if (flag === 0 && !settles && sameValue && (unanswered || (previous & IN_FLIGHT_AT_A_STOP) !== 0)) {
        this.#codes.set(id, code | IN_FLIGHT_AT_A_STOP);
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

  /** The exit code `id`'s last line carries (a failure's), undefined when it carries none. */
  exitOf(id: bigint): number | undefined {
    const index = (this.#codes.get(id) & EXIT_BITS) >>> EXIT_SHIFT;
    return index === 0 ? undefined : EXIT_CODES[index];
  }

  /** Whether `id`'s last line is about the value of `print`: always, in a journal whose ids carry none. */
  sameValue(id: bigint, print: ValuePrint | undefined): boolean {
    return this.#prints === undefined || print === undefined || this.#prints.matches(id, print);
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
