import { randomBytes } from 'node:crypto';
import { IdTable } from './id-table.js';

/**
 * The print of an id's value (a rename's new name) that a journal of an operation whose ids carry
 * values keeps beside each id line: an id is done only with the value it was done with, so a
 * resume that asks `42 Rose` after a run that did `42 Fern` sends it again.
 *
 * A print, not the value: a journal travels as a CI artifact, and a value may be private (a name,
 * an address). 64 bits, so a changed value reads as the same one about once in 2^64 resumes of an
 * id (32 bits would be once in 4 billion, a silent skip a million-id job could meet); salted by
 * the journal (its header's `values.salt`, random), so two journals holding the same value for an
 * id do not show it, and no table of prints made ahead applies. It is no secret: whoever holds the
 * journal and guesses a value can check the guess, as for any print of a short text. Not a
 * cryptographic hash: equality is all it is asked, and the run prints every id's value once or
 * more (a million SHA-256 digests would cost a resume about a second; this costs ~0.1 µs a value).
 */

/** A print: two 32-bit halves, as a journal line writes them (16 hex digits, `hi` first). */
export interface ValuePrint {
  hi: number;
  lo: number;
}

/** A new journal's salt: 16 hex digits, random. */
export const newSalt = (): string => randomBytes(8).toString('hex');

export const SALT = /^[0-9a-f]{16}$/;

/** The halves of 16 hex digits: a journal's salt, or a print as a line writes it. */
export function halvesOf(hex: string): ValuePrint {
  return { hi: Number.parseInt(hex.slice(0, 8), 16), lo: Number.parseInt(hex.slice(8), 16) };
}

/** The print of `value` in a journal of `salt` (its halves): two lanes of a murmur3-style mix over its UTF-16 units, seeded apart. */
export function printValue(value: string, salt: ValuePrint): ValuePrint {
  return { hi: lane(value, salt.hi), lo: lane(value, (salt.lo ^ 0x9e3779b9) >>> 0) };
}

function lane(value: string, seed: number): number {
  let h = (seed ^ value.length) | 0;
  for (let i = 0; i < value.length; i++) {
    let k = Math.imul(value.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** As a line writes it: 16 lowercase hex digits. */
export const printText = (print: ValuePrint): string => print.hi.toString(16).padStart(8, '0') + print.lo.toString(16).padStart(8, '0');

/**
 * The print each id's last line carries, for a journal whose ids carry values (the table is made
 * only for such a journal: delete's million-id journal holds none). An index into two arrays of
 * halves, so a million ids cost the index (~25 MB) and 8 MB of halves.
 */
export class ValuePrints {
  readonly #index = new IdTable(Uint32Array);
  #hi = new Uint32Array(1024);
  #lo = new Uint32Array(1024);

  /** Records `id`'s print; returns whether its previous line carried the same one (true for an id not seen before). */
  set(id: bigint, hi: number, lo: number): boolean {
    let slot = this.#index.get(id);
    if (slot !== 0) {
      const same = this.#hi[slot - 1] === hi && this.#lo[slot - 1] === lo;
      this.#hi[slot - 1] = hi;
      this.#lo[slot - 1] = lo;
      return same;
    }
    slot = this.#index.size + 1;
    if (slot > this.#hi.length) {
      const hiAll = new Uint32Array(this.#hi.length * 2);
      const loAll = new Uint32Array(this.#lo.length * 2);
      hiAll.set(this.#hi);
      loAll.set(this.#lo);
      this.#hi = hiAll;
      this.#lo = loAll;
    }
    this.#index.set(id, slot);
    this.#hi[slot - 1] = hi;
    this.#lo[slot - 1] = lo;
    return true;
  }

  /** Whether `id`'s last line carries `print`; false for an id no line names. */
  matches(id: bigint, print: ValuePrint): boolean {
    const slot = this.#index.get(id);
    return slot !== 0 && this.#hi[slot - 1] === print.hi && this.#lo[slot - 1] === print.lo;
  }
}

/** The field an id line of such a journal carries right after its id: `{"id":42,"valuePrint":"…",…}`. */
export const printField = (print: string | undefined): string => (print === undefined ? '' : `,"valuePrint":"${print}"`);

// The id, then the print, spaces allowed as JSON allows them (a line edited by hand); the rest of the line from its next comma.
const PRINT_AFTER_ID = /^(\{\s*"id"\s*:\s*(?:0|-?[1-9][0-9]{0,18})\s*),\s*"valuePrint"\s*:\s*"([0-9a-f]{16})"\s*(,.*)$/s;

/** A line of such a journal as the same line without its print, and the print; undefined when the line carries none where it goes. */
export function splitPrint(text: string): { text: string; print: ValuePrint } | undefined {
  const match = PRINT_AFTER_ID.exec(text);
  if (match === null) return undefined;
  const [, head, hex, rest] = match as unknown as [string, string, string, string];
  return { text: head + rest, print: halvesOf(hex) };
}
