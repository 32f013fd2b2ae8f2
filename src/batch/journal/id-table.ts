import { hashId } from '../../ids/list.js';

/** The values a table holds: bytes for a few flags (RecordedIds), or 32-bit numbers. */
type ValueArray = Uint8Array | Uint32Array;
type ValueArrayType = typeof Uint8Array | typeof Uint32Array;

/**
 * A number for each id (0 is none): an open-addressing table over a BigInt64Array and the value
 * array it is given, a Uint32Array (12 bytes a slot) or a Uint8Array (9 bytes: RecordedIds' few
 * flags), kept at most half full. A million ids take 2^21 slots, ~25 MB at 12 bytes a slot (~19 MB
 * at 9), half as much again while the table grows, where a Map keyed by BigInt, or by the ids'
 * strings, costs several times that.
 */
export class IdTable {
  readonly #Values: ValueArrayType;
  #keys = new BigInt64Array(1024);
  // 0: an empty slot.
  #values: ValueArray;
  #size = 0;

  constructor(Values: ValueArrayType = Uint32Array) {
    this.#Values = Values;
    this.#values = new Values(1024);
  }

  get size(): number {
    return this.#size;
  }

  /** The value of `id`, or 0 when it has none. */
  get(id: bigint): number {
    return this.#values[this.#find(id)] as number;
  }

  /** Sets `id`'s value (not 0); returns the one it replaces, 0 when it had none. */
  set(id: bigint, value: number): number {
    const slot = this.#find(id);
    const previous = this.#values[slot] as number;
    this.#values[slot] = value;
    if (previous !== 0) return previous;
    this.#keys[slot] = id;
    this.#size++;
    if (this.#size * 2 > this.#keys.length) this.#grow();
    return 0;
  }

  /** Each id with its value, in no particular order. */
  forEach(visit: (id: bigint, value: number) => void): void {
    for (let i = 0; i < this.#values.length; i++) {
      const value = this.#values[i] as number;
      if (value !== 0) visit(this.#keys[i] as bigint, value);
    }
  }

  #find(id: bigint): number {
    const mask = this.#keys.length - 1;
    let slot = hashId(id) & mask;
    while (this.#values[slot] !== 0 && this.#keys[slot] !== id) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = new BigInt64Array(keys.length * 2);
    this.#values = new this.#Values(values.length * 2);
    for (let i = 0; i < keys.length; i++) {
      const value = values[i] as number;
      if (value === 0) continue;
      const slot = this.#find(keys[i] as bigint);
      this.#keys[slot] = keys[i] as bigint;
      this.#values[slot] = value;
    }
  }
}
