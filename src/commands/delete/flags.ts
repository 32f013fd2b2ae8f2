// delete's own flags: what "no such plant" looks like, and whether it counts as done. The
// batch's flags (ids, pace, journal, progress) are the engine's (engine/batch-flags.ts).

import { Flag, type FlagReader } from '../../flags/flag.js';
import { MISSING_ERROR, type MissingRule } from '../plants/shared/missing.js';

export const IGNORE_MISSING = Flag.switch({
  key: 'ignoreMissing',
  flags: '--ignore-missing',
  help: 'count a plant the API says does not exist as success (already absent): a 404 with an Error object, or a --missing-error code',
});

/** A deletion destroys: the guard's flags are delete's (operation.ts says the same to the engine). */
export const DESTRUCTIVE = true;

/** delete's own, in --help's order (after the pace). */
export const DELETE_OWN_FLAGS = [IGNORE_MISSING, MISSING_ERROR] as const;

/** What delete reads besides the batch's options. */
export interface DeleteOwn {
  missing: MissingRule;
}

export function readDeleteFlags(flags: FlagReader<(typeof DELETE_OWN_FLAGS)[number]>): DeleteOwn {
  return { missing: { codes: flags.value(MISSING_ERROR) ?? [], ignore: flags.value(IGNORE_MISSING) } };
}
