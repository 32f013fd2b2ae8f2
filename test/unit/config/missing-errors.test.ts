import { describe, expect, it } from 'vitest';
import { formatMissingErrors, missingErrorsFrom, parseMissingErrors } from '../../../src/config/missing-errors.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { thrown } from '../../helpers/thrown.js';

describe('parseMissingErrors', () => {
  it.each<[string, number[] | undefined]>([
    ['1', [1]],
    ['1,7', [1, 7]],
    [' 1 , 7 ,1', [1, 7]],
    ['-5', [-5]],
    ['2147483647,-2147483648', [2147483647, -2147483648]],
    ['', undefined],
    ['1,', undefined],
    ['one', undefined],
    ['1.5', undefined],
    ['2147483648', undefined],
    ['1;2', undefined],
  ])('%j -> %j', (raw, codes) => {
    expect(parseMissingErrors(raw)).toEqual(codes);
  });

  it('stores the canonical spelling', () => {
    expect(formatMissingErrors(parseMissingErrors(' 7, 1 ') ?? [])).toBe('7,1');
  });

  it.each([
    [true, UsageError, 2],
    [false, ConfigError, 3],
  ] as const)('a bad value on the command line: %s -> exit %#', (onCommandLine, Kind, exit) => {
    const error = thrown(() => missingErrorsFrom('x', 'somewhere', onCommandLine));
    expect(error).toBeInstanceOf(Kind);
    expect((error as UsageError).exit).toBe(exit);
    expect((error as UsageError).message).toBe(
      "invalid missing-error 'x' (from somewhere): give API error codes separated by commas, such as 1 or 1,7",
    );
  });
});
