import { hashId } from '../../ids/list.js';

/**
 * A number (1 to 2^32-1) for each id: an open-addressing table over a BigInt64Array and a
 * Uint32Array, 12 bytes a slot, kept at most half full, as RecordedIds is. A million ids take
 * ~25 MB at the largest (while growing), where a Map keyed by BigInt costs several times that.
 */
export class IdTable {
  #keys = new BigInt64Array(1024);
  // 0: an empty slot.
  #values = new Uint32Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The value of `id`, or 0 when it has none. */
  get(id: bigint): number {
    return this.#values[this.#find(id)] as number;
  }

  /** Sets `id`'s value (not 0). */
  set(id: bigint, value: number): void {
    const slot = this.#find(id);
    if (this.#values[slot] === 0) {
      this.#keys[slot] = id;
      this.#size++;
    }
    this.#values[slot] = value;
    if (this.#size * 2 > this.#keys.length) this.#grow();
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
    this.#values = new Uint32Array(values.length * 2);
    for (let i = 0; i < keys.length; i++) {
      const value = values[i] as number;
      if (value === 0) continue;
      const slot = this.#find(keys[i] as bigint);
      this.#keys[slot] = keys[i] as bigint;
      this.#values[slot] = value;
    }
  }
}
