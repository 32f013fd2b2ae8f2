// --shard I/N: which part an id falls in is a contract between versions (a job half-done under
// one version may be finished under another), so it is pinned here id by id; N parts cover
// every id exactly once, whatever the order or repeats of the list, and evenly.
import { describe, expect, it } from 'vitest';
import { idsOfShard, mix64, partOf, shard } from '../../../src/engine/shard.js';
import { Exit } from '../../../src/errors.js';
import { IdList } from '../../../src/ids/list.js';
import { thrown } from '../../helpers/thrown.js';

const typed = { source: '--shard', onCommandLine: true };

describe('the part of an id', () => {
  it("is splitmix64's finalizer: its published first output from seed 0", () => {
    // splitmix64 with state 0 returns mix(0 + 0x9e3779b97f4a7c15) = 0xe220a8397b1dcdaf first.
    expect(mix64(0x9e3779b97f4a7c15n)).toBe(0xe220a8397b1dcdafn);
    expect(mix64(0n)).toBe(0n);
  });

  it('never changes: fixed ids fall in fixed parts (of 8 and of 3)', () => {
    const pinned: Array<[string, number, number]> = [
      ['1', 5, 1],
      ['2', 2, 1],
      ['3', 0, 2],
      ['42', 2, 2],
      ['1000', 7, 0],
      ['123456789', 0, 2],
      ['-1', 3, 0],
      ['-5', 6, 0],
      ['0', 0, 0],
      ['9223372036854775807', 5, 1],
      ['-9223372036854775808', 2, 0],
    ];
    expect(pinned.map(([id]) => [id, partOf(id, 8), partOf(id, 3)])).toEqual(pinned);
  });

  it.each([2, 3, 8])('N = %i parts cover a list exactly once, whatever its order and repeats', (count) => {
    const ids = ['5', '-7', '5', '900', '12', '3', '900', '77', '-1', '64', '8', '5'];
    const list = IdList.from(ids);
    const reversed = IdList.from([...ids].reverse());
    const parts = Array.from({ length: count }, (_, index) => [...idsOfShard(list, { index, count })]);
    expect(parts.flat().sort()).toEqual([...list].sort());
    // Input order is kept within a part, and the part of an id does not depend on it.
    for (const [index, part] of parts.entries()) {
      expect(new Set([...idsOfShard(reversed, { index, count })])).toEqual(new Set(part));
      expect(part).toEqual([...list].filter((id) => part.includes(id)));
    }
  });

  const spread = (ids: (i: number) => bigint, count: number): number[] => {
    const sizes = new Array<number>(count).fill(0);
    for (let i = 1; i <= 1_000_000; i++) {
      const part = Number(mix64(ids(i)) % BigInt(count));
      sizes[part] = (sizes[part] ?? 0) + 1;
    }
    return sizes;
  };
  const within2Percent = (sizes: number[]) => {
    const even = 1_000_000 / sizes.length;
    for (const size of sizes) expect(Math.abs(size - even) / even).toBeLessThan(0.02);
  };

  it.each([2, 3, 8])('splits a million sequential ids into %i parts, each within 2 percent of even', (count) => {
    within2Percent(spread((i) => BigInt(i), count));
  });

  it.each([2, 3, 8])('splits a million ids that are all multiples of N = %i, each part within 2 percent of even', (count) => {
    within2Percent(spread((i) => BigInt(i * count), count));
  });
});

describe('--shard I/N', () => {
  it('takes part I of N, counted from 0', () => {
    expect(shard('0/8', typed)).toEqual({ index: 0, count: 8 });
    expect(shard('7/8', typed)).toEqual({ index: 7, count: 8 });
    expect(shard('0/1', typed)).toEqual({ index: 0, count: 1 });
  });

  it.each(['8/8', '1/0', '0/0', '-1/4', '1', '1/2/3', 'a/4', '1.5/4', '', '0/1000001'])('refuses %j, saying how to write it', (raw) => {
    const error = thrown(() => shard(raw, typed));
    expect(error).toMatchObject({ exit: Exit.usage });
    expect((error as Error).message).toContain('give I/N, part I of N counted from 0');
  });
});
