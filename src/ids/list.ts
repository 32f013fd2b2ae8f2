/**
 * Plant ids in first-seen order without repeats, at 8 bytes an id plus an index
 * table, where a Set of strings costs ~80: a million ids from stdin fit in ~25 MB.
 * Ids arrive as canonical decimal strings (parsePlantId) and leave the same way.
 */
export class IdList implements Iterable<string> {
  #values: BigInt64Array = new BigInt64Array(1024);
  #size = 0;
  // Open addressing: slot holds index+1 into #values, 0 when empty. Kept at most half full.
  #slots = new Int32Array(2048);

  get size(): number {
    return this.#size;
  }

  /** Adds a canonical id; returns false when it was already there. */
  add(id: string): boolean {
    const value = BigInt(id);
    const slot = this.#find(value);
    if (this.#slots[slot] !== 0) return false;
    if (this.#size === this.#values.length) this.#values = grow(this.#values);
    this.#values[this.#size] = value;
    this.#size++;
    this.#slots[slot] = this.#size;
    if (this.#size * 2 > this.#slots.length) this.#rehash();
    return true;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.#size; i++) yield (this.#values[i] as bigint).toString();
  }

  /** The ids as numbers, in order: a reader of a million need not parse them back from strings. */
  *values(): Iterator<bigint> & Iterable<bigint> {
    for (let i = 0; i < this.#size; i++) yield this.#values[i] as bigint;
  }

  /** The slot holding `value`, or the empty slot where it would go. */
  #find(value: bigint): number {
    const mask = this.#slots.length - 1;
    let slot = hashId(value) & mask;
    for (;;) {
      const entry = this.#slots[slot] as number;
      if (entry === 0 || this.#values[entry - 1] === value) return slot;
      slot = (slot + 1) & mask;
    }
  }

  #rehash(): void {
    this.#slots = new Int32Array(this.#slots.length * 2);
    for (let i = 0; i < this.#size; i++) this.#slots[this.#find(this.#values[i] as bigint)] = i + 1;
  }

  static from(ids: Iterable<string>): IdList {
    const list = new IdList();
    for (const id of ids) list.add(id);
    return list;
  }
}

function grow(values: BigInt64Array): BigInt64Array {
  const bigger = new BigInt64Array(values.length * 2);
  bigger.set(values);
  return bigger;
}

// Mixes both 32-bit halves (murmur3 finaliser): sequential ids must not cluster.
export function hashId(value: bigint): number {
  let h = Number(BigInt.asUintN(32, value)) ^ Number(BigInt.asUintN(32, value >> 32n));
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
