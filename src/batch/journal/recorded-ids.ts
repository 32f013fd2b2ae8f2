import { hashId } from '../../ids/list.js';
import { RECORDED_KINDS, Recorded, type RecordedCode, type RecordedKind } from './format.js';

/**
 * Set beside an id's kind once a request for it may have reached the server with no decided
 * answer: in flight when a run stopped (a sent line followed by another sent line, a later run
 * sending it again, with no result between them), or a failure recorded as uncertain (a
 * timeout, a reset, a 5xx, a signal while waiting). It stays through later failures, since that
 * request may have deleted the plant, and is cleared by a result that settles the id (deleted or absent).
 */
const IN_FLIGHT_AT_A_STOP = 0x80;
const KIND_BITS = 0x7f;

/**
 * What a journal last said of each id: an open-addressing table over a BigInt64Array
 * and a Uint8Array, 9 bytes a slot, kept at most half full. A million ids take ~36 MB
 * at the largest (while growing), where a Map of strings costs several times that.
 */
export class RecordedIds {
  #keys = new BigInt64Array(1024);
  // 0: empty slot; otherwise a RecordedCode, with IN_FLIGHT_AT_A_STOP when it applies.
  #kinds = new Uint8Array(1024);
  #size = 0;
  readonly #counts = new Uint32Array(RECORDED_KINDS.length + 1);

  get size(): number {
    return this.#size;
  }

  /** Later lines win: a success recorded after a failure counts. `uncertain`: see IN_FLIGHT_AT_A_STOP. */
  set(id: bigint, kind: RecordedCode, uncertain = false): void {
    const slot = this.#find(id);
    const previous = this.#kinds[slot] as number;
    let flag = uncertain ? IN_FLIGHT_AT_A_STOP : 0;
    if (previous === 0) {
      this.#keys[slot] = id;
      this.#size++;
    } else {
      const previousKind = previous & KIND_BITS;
      (this.#counts[previousKind] as number)--;
      const settles = kind === Recorded.deleted || kind === Recorded.absent;
      const sentAgain = previousKind === Recorded.sent && kind === Recorded.sent;
      if (!settles && (sentAgain || (previous & IN_FLIGHT_AT_A_STOP) !== 0)) flag = IN_FLIGHT_AT_A_STOP;
    }
    this.#kinds[slot] = kind | flag;
    (this.#counts[kind] as number)++;
    if (this.#size * 2 > this.#keys.length) this.#grow();
  }

  /** The kind last recorded for `id`, or 0 when the journal does not mention it. */
  get(id: bigint): RecordedCode | 0 {
    return ((this.#kinds[this.#find(id)] as number) & KIND_BITS) as RecordedCode | 0;
  }

  /**
   * Whether a request for `id` may have deleted the plant without its answer being recorded:
   * its last line is a sent line (in flight when the last run stopped), or a request was in
   * flight at an earlier stop, or failed uncertain, and nothing since has said deleted or absent.
   */
  wasInFlight(id: bigint): boolean {
    const code = this.#kinds[this.#find(id)] as number;
    return (code & KIND_BITS) === Recorded.sent || (code & IN_FLIGHT_AT_A_STOP) !== 0;
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
    for (let i = 0; i < this.#kinds.length; i++) {
      const code = this.#kinds[i] as number;
      if (code === 0) continue;
      const kind = (code & KIND_BITS) as RecordedCode;
      visit(this.#keys[i] as bigint, kind, kind === Recorded.sent || (code & IN_FLIGHT_AT_A_STOP) !== 0);
    }
  }

  #find(id: bigint): number {
    const mask = this.#keys.length - 1;
    let slot = hashId(id) & mask;
    while (this.#kinds[slot] !== 0 && this.#keys[slot] !== id) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const kinds = this.#kinds;
    this.#keys = new BigInt64Array(keys.length * 2);
    this.#kinds = new Uint8Array(kinds.length * 2);
    for (let i = 0; i < keys.length; i++) {
      const kind = kinds[i] as number;
      if (kind === 0) continue;
      const slot = this.#find(keys[i] as bigint);
      this.#keys[slot] = keys[i] as bigint;
      this.#kinds[slot] = kind;
    }
  }
}
