import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdList } from '../../../src/ids/list.js';

describe('IdList', () => {
  it.each([
    [
      ['1', '2', '3'],
      ['1', '2', '3'],
    ],
    [
      ['3', '1', '3', '2', '1'],
      ['3', '1', '2'],
    ],
    [
      ['-9223372036854775808', '9223372036854775807', '0', '-9223372036854775808'],
      ['-9223372036854775808', '9223372036854775807', '0'],
    ],
    [
      ['9007199254740993', '9007199254740992'],
      ['9007199254740993', '9007199254740992'],
    ],
    [
      ['4294967296', '1', '0'],
      ['4294967296', '1', '0'],
    ],
  ])('keeps %j in first-seen order as %j', (input, expected) => {
    const list = IdList.from(input);
    expect([...list]).toEqual(expected);
    expect(list.size).toBe(expected.length);
  });

  it('reports whether an id was new', () => {
    const list = new IdList();
    expect(list.add('42')).toBe(true);
    expect(list.add('42')).toBe(false);
    expect(list.size).toBe(1);
  });

  it('grows past its first table and keeps every id', () => {
    const list = new IdList();
    for (let i = 0; i < 50_000; i++) list.add(String(i * 4096)); // multiples of a power of two: a weak hash would cluster them
    for (let i = 0; i < 50_000; i++) expect(list.add(String(i * 4096))).toBe(false);
    expect(list.size).toBe(50_000);
    expect([...list].at(-1)).toBe(String(49_999 * 4096));
  });

  it('agrees with a Set of strings on any int64 input', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 300 }), (values) => {
        const ids = values.map(String);
        expect([...IdList.from(ids)]).toEqual([...new Set(ids)]);
      }),
    );
  });
});
