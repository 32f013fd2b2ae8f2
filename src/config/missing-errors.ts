import { badValue } from '../errors.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The spec's Error.error is an int32: what a server may send, and what --missing-error may name. */
export function isApiErrorCode(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}

/**
 * The API error codes that mean "no plant with this id". The spec leaves that
 * case unspecified (one 400 "unexpected error" with an int32 code), so only the
 * user can say which codes mean it: `--missing-error 1,7`. Returns undefined for
 * text that is not a comma-separated list of int32 codes.
 */
export function parseMissingErrors(raw: string): number[] | undefined {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^-?\d{1,10}$/.test(part))) return undefined;
  const codes = parts.map(Number);
  if (!codes.every(isApiErrorCode)) return undefined;
  return [...new Set(codes)];
}

/** The canonical spelling stored in a profile: `1,7`. */
export function formatMissingErrors(codes: readonly number[]): string {
  return codes.join(',');
}

/** Parses a value from `source`; a bad one is a usage error on the command line, else a configuration error. */
export function missingErrorsFrom(raw: string, source: string, onCommandLine: boolean): number[] {
  const codes = parseMissingErrors(raw);
  if (codes !== undefined) return codes;
  throw badValue(
    `invalid missing-error '${raw}' (from ${source}): give API error codes separated by commas, such as 1 or 1,7`,
    onCommandLine,
  );
}
