import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Exit, UsageError } from '../../../src/errors.js';
import { parsePlantId, parsePlantIds } from '../../../src/ids/parse.js';
import { thrown } from '../../helpers/thrown.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

describe('parsePlantId: valid ids', () => {
  it.each([
    ['42', '42'],
    ['0', '0'],
    ['-5', '-5'],
    ['007', '7'],
    ['-0', '0'],
    ['-007', '-7'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['09223372036854775807', '9223372036854775807'],
    ['9007199254740993', '9007199254740993'],
  ])('%j -> %j', (raw, canonical) => {
    expect(parsePlantId(raw)).toBe(canonical);
  });
});

describe('parsePlantId: invalid ids are usage errors naming the argument', () => {
  it.each([
    ['abc', 'abc'],
    ['1.5', '1.5'],
    ['1e3', '1e3'],
    ['0x10', '0x10'],
    [' 12', ' 12'],
    ['12 ', '12 '],
    ['', ''],
    ['+5', '+5'],
    ['--5', '--5'],
    ['-', '-'],
    ['1_000', '1_000'],
    ['١٢', '١٢'], // Arabic-Indic digits
    ['１２', '１２'], // fullwidth digits
    ['9223372036854775808', '9223372036854775808'], // INT64_MAX + 1
    ['-9223372036854775809', '-9223372036854775809'], // INT64_MIN - 1
    ['99999999999999999999999', '99999999999999999999999'],
  ])('%j', (raw, shown) => {
    const error = thrown(() => parsePlantId(raw));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exit).toBe(Exit.usage);
    expect((error as UsageError).message).toContain(`'${shown}'`);
  });

  it('says "out of range" for a well-formed id past int64, on both sides', () => {
    expect(() => parsePlantId('9223372036854775808')).toThrow(/out of range/);
    expect(() => parsePlantId('-9223372036854775809')).toThrow(/out of range/);
  });

  it('does not let control characters or line breaks of a bad id reach the message', () => {
    const error = thrown(() => parsePlantId('1\u001b[2J\n2')) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(error.message).toContain('\\x1b');
  });

  it('shortens a long bad id without splitting a character in half', () => {
    // 39 ASCII characters then an emoji: a cut at 40 UTF-16 units would leave a lone surrogate.
    const error = thrown(() => parsePlantId(`${'1'.repeat(39)}😀${'2'.repeat(10)}`)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('shortens a very long bad id in the message', () => {
    const error = thrown(() => parsePlantId('9'.repeat(5000))) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toContain('…');
  });
});

describe('parsePlantIds', () => {
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
      ['7', '007', '-0', '0'],
      ['7', '0'],
    ],
    [['9223372036854775807', '9223372036854775807'], ['9223372036854775807']],
  ])('%j -> %j (duplicates removed, first occurrence kept in order)', (raws, ids) => {
    expect([...parsePlantIds(raws)]).toEqual(ids);
  });

  it('rejects an empty list as a usage error (exit 2)', () => {
    const error = thrown(() => parsePlantIds([]));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exit).toBe(2);
    expect((error as UsageError).message).toMatch(/no plant id/);
  });

  it('names the first bad argument even when others are valid', () => {
    const error = thrown(() => parsePlantIds(['1', '2', 'x9', 'y']));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("'x9'");
  });
});

describe('parsePlantId properties', () => {
  const ID_SYNTAX = /^-?[0-9]+$/;
  // Plain strings rarely look like ids, so mix in strings that do, with and without range problems.
  const anyString = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.stringMatching(/^[+-]{0,2}[0-9]{1,22}$/),
    fc.stringMatching(/^\s?-?0*[0-9]{1,19}\s?$/),
  );

  it('either returns the canonical form of an in-range decimal, or throws UsageError', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        let result: string;
        try {
          result = parsePlantId(s);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          const valid = ID_SYNTAX.test(s) && BigInt(s) >= INT64_MIN && BigInt(s) <= INT64_MAX;
          expect(valid).toBe(false);
          return;
        }
        expect(s).toMatch(ID_SYNTAX);
        const value = BigInt(s);
        expect(value >= INT64_MIN && value <= INT64_MAX).toBe(true);
        expect(result).toBe(value.toString());
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips every int64 exactly, edges included', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (n) => {
        expect(parsePlantId(String(n))).toBe(String(n));
      }),
      {
        numRuns: 2000,
        examples: [[INT64_MIN], [INT64_MAX], [0n], [-1n], [2n ** 53n + 1n], [-(2n ** 53n) - 1n]],
      },
    );
  });

  it('keeps 9007199254740993 exact (a Number would round it to ...992)', () => {
    expect(parsePlantId('9007199254740993')).toBe('9007199254740993');
    expect(String(Number('9007199254740993'))).not.toBe('9007199254740993');
  });
});
