// --shard I/N: one job over N runs (machines, CI runners, processes), each taking the ids of its
// own part. The part depends on the id alone, never on input order, so N runs given the same
// list cover every id exactly once, however each one's copy is ordered or repeated. The hash is
// a contract (docs/shards.md): changing it would make a job half-done under one version finish
// under another with ids skipped and ids sent twice. test/unit/engine/shard.test.ts pins it.

import type { Parse } from '../flags/flag.js';
import { invalid } from '../flags/flag.js';
import { IdList } from '../ids/list.js';

export interface Shard {
  /** Which part this run takes, 0 to count - 1. */
  index: number;
  count: number;
}

/** The most parts a job may be split into. */
const MAX_SHARDS = 1_000_000;

/** `3/8`: part 3 of 8, counted from 0 (as JOB_COMPLETION_INDEX and matrix indexes are). */
export const shard: Parse<Shard> = (raw, origin) => {
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !(count >= 1 && count <= MAX_SHARDS) || !(index < count)) {
    throw invalid(raw, origin, `give I/N, part I of N counted from 0 (0 ≤ I < N ≤ ${MAX_SHARDS}), such as 0/8 to 7/8`);
  }
  return { index, count };
};

export const describeShard = (part: Shard): string => `${part.index}/${part.count}`;

const MASK_64 = (1n << 64n) - 1n;

/**
 * The part of N an id falls in: the splitmix64 finalizer over the id's 64-bit two's-complement
 * value (an unsigned 64-bit integer), then the remainder of dividing by N:
 *   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9; z = (z ^ (z >> 27)) * 0x94d049bb133111eb; z = z ^ (z >> 31)
 * (products mod 2^64). It spreads sequential ids, and ids that are all multiples of N, evenly.
 */
export function partOf(id: string | bigint, count: number): number {
  return Number(mix64(typeof id === 'bigint' ? id : BigInt(id)) % BigInt(count));
}

/** splitmix64's finalizer over `value` taken as an unsigned 64-bit integer. */
export function mix64(value: bigint): bigint {
  let z = BigInt.asUintN(64, value);
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
  return z ^ (z >> 31n);
}

/** The ids of `part`, in input order. */
export function idsOfShard(ids: IdList, part: Shard): IdList {
  const mine = new IdList();
  for (const id of ids) if (partOf(id, part.count) === part.index) mine.add(id);
  return mine;
}
