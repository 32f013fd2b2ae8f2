import { UsageError } from '../errors.js';
import { truncate } from '../text/shown.js';
import { IdList } from './list.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// ASCII digits only: \d would also be ASCII in JS, but say it outright so no one "fixes" it to \p{Nd}.
const ID_SYNTAX = /^-?[0-9]+$/;

/**
 * Parses a plant id exactly. Ids are int64, wider than a JS number can hold,
 * so they stay strings end to end; BigInt is only used to range-check and to
 * drop leading zeros. Returns the canonical decimal form ("007" -> "7", "-0" -> "0").
 */
export function parsePlantId(raw: string, where = ''): string {
  if (!ID_SYNTAX.test(raw)) {
    const listed = joinedIds(raw);
    const why = listed === undefined ? 'an id is a whole number such as 42' : `one id at a time: ${separateThem(listed, where)}`;
    throw invalidId(raw, where, why);
  }
  const value = BigInt(raw);
  if (value < INT64_MIN || value > INT64_MAX) throw invalidId(raw, where, `out of range (ids are 64-bit, ${INT64_MIN} to ${INT64_MAX})`);
  return value.toString();
}

/** The one shape of an id error: `invalid plant id '<id>'<where>: <why>`, where says e.g. " on line 7 of standard input". */
export function invalidId(raw: string, where: string, why: string): UsageError {
  return new UsageError(`invalid plant id '${printable(raw)}'${where}: ${why}`);
}

/** The ids of `42,43` or `42;43` (a list written as other tools take it), or undefined when `raw` is not one. */
function joinedIds(raw: string): string[] | undefined {
  if (!/^-?[0-9]+(?:\s*[,;]\s*-?[0-9]+)+[,;]?$/.test(raw.trim())) return undefined;
  return raw
    .split(/[,;]/)
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

/** "separate ids with spaces: 42 43", as the command line or standard input takes them. */
function separateThem(ids: string[], where: string): string {
  const shown = truncate(ids.join(' '), 40);
  return where === '' ? `separate ids with spaces: ${shown}` : `separate ids with spaces or line breaks: ${shown}`;
}

/** Bad ids on the command line named in one message, up to this many: the rest are counted. */
const MAX_NAMED_BAD_IDS = 10;

/**
 * Validates every id before anything is sent, and drops repeats (first occurrence wins). A
 * single bad id gets its own reason; several are all named (up to MAX_NAMED_BAD_IDS), so one
 * run shows every typo, with the rule they break.
 */
export function parsePlantIds(raws: readonly string[]): IdList {
  if (raws.length === 0) throw new UsageError('no plant id given: try plantstore delete 42');
  const bad = raws.filter((raw) => !isPlantId(raw));
  if (bad.length === 1) parsePlantId(bad[0] as string);
  if (bad.length > 1) {
    const named = bad.slice(0, MAX_NAMED_BAD_IDS).map((raw) => `'${printable(raw)}'`);
    const more = bad.length - named.length;
    const list = more > 0 ? `${named.join(', ')} and ${more} more` : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
    const listed = bad.map(joinedIds).find((ids) => ids !== undefined);
    const hint = listed === undefined ? '' : `; ${separateThem(listed, '')}`;
    throw new UsageError(`invalid plant ids ${list}: an id is a whole number from ${INT64_MIN} to ${INT64_MAX}, such as 42${hint}`);
  }
  return IdList.from(raws.map((raw) => parsePlantId(raw)));
}

function isPlantId(raw: string): boolean {
  if (!ID_SYNTAX.test(raw)) return false;
  const value = BigInt(raw);
  return value >= INT64_MIN && value <= INT64_MAX;
}

// An id in an error message must not carry terminal escapes or span lines.
function printable(raw: string): string {
  return truncate(raw, 40).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
