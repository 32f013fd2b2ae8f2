// delete's own flags: what "no such plant" looks like, and whether it counts as done. The
// batch's flags (ids, pace, journal, progress) are the engine's (engine/batch-flags.ts).

import { BATCH_FLAGS, type BatchFlags, type BatchOptions, batchOptions } from '../../engine/batch-flags.js';
import { Flag, type FlagReader } from '../../flags/flag.js';
import { GLOBAL_FLAGS } from '../../flags/global.js';
import { missingErrors } from '../../flags/kinds.js';
import { type ServiceSettings, serviceSettings } from '../../service/settings.js';
import type { MissingRule } from './outcomes.js';

export const IGNORE_MISSING = Flag.switch({
  key: 'ignoreMissing',
  flags: '--ignore-missing',
  help: 'count a plant the API says does not exist as success (already absent): a 404 with an Error object, or a --missing-error code',
});

export const MISSING_ERROR = Flag.valued(
  {
    key: 'missingError',
    flags: '--missing-error <codes>',
    help: 'API error codes (comma-separated) that mean "no such plant", e.g. 1 for the sandbox',
    env: 'PLANTSTORE_MISSING_ERROR',
    envHelp: 'like delete --missing-error',
    profileKey: 'missing-error',
  },
  missingErrors,
);

/** A deletion destroys: the guard's flags are delete's (operation.ts says the same to the engine). */
export const DESTRUCTIVE = true;

// Every batch flag, in the order --help has always listed them: delete's own two after the pace.
export const DELETE_FLAGS = [...BATCH_FLAGS.slice(0, 3), IGNORE_MISSING, MISSING_ERROR, ...BATCH_FLAGS.slice(3)] as const;

/** Every one of the program's flags: a deletion uses them all. */
export const DELETE_GLOBALS = GLOBAL_FLAGS;

export type DeleteFlags = FlagReader<(typeof DELETE_FLAGS)[number] | (typeof DELETE_GLOBALS)[number]> & BatchFlags;

/** Everything `plantstore delete` was asked, read from flags, variables and the profile; where and how requests go included. */
export interface DeleteOptions extends BatchOptions, ServiceSettings {
  missing: MissingRule;
}

/**
 * Reads every flag the command declares, once, in this order: a bad value is reported by the
 * first read that meets it, so the order below is the order in which problems are found.
 */
export function deleteOptions(flags: DeleteFlags, ids: string[]): DeleteOptions {
  return batchOptions(
    flags,
    ids,
    () => ({
      ...serviceSettings(flags),
      missing: { codes: flags.value(MISSING_ERROR) ?? [], ignore: flags.value(IGNORE_MISSING) },
    }),
    DESTRUCTIVE,
  );
}
