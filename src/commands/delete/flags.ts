import { MAX_CONCURRENCY } from '../../batch/ordered-pool.js';
import { Flag, type FlagReader } from '../../flags/flag.js';
import { GLOBAL_FLAGS } from '../../flags/global.js';
import { missingErrors, rate, wholeNumber } from '../../flags/kinds.js';

export const STDIN = Flag.switch({
  key: 'stdin',
  flags: '--stdin',
  help: 'read ids from standard input (whitespace-separated, # comments)',
});

export const CONCURRENCY = Flag.valued(
  {
    key: 'concurrency',
    flags: '--concurrency <n>',
    help: `requests in flight at once, 1..${MAX_CONCURRENCY}`,
    default: '8',
  },
  wholeNumber(1, MAX_CONCURRENCY),
);

export const RATE = Flag.valued(
  {
    key: 'rate',
    flags: '--rate <n[/s|/m|/h|/d]>',
    help: 'one request every second (minute, hour, day) / n, such as 40/s or 300/m; a bare n is per second',
    env: 'PLANTSTORE_RATE',
    envHelp: 'like delete --rate',
  },
  rate,
);

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

export const FAIL_FAST = Flag.switch({ key: 'failFast', flags: '--fail-fast', help: 'send nothing new after the first failure' });

export const DRY_RUN = Flag.switch({ key: 'dryRun', flags: '--dry-run', help: 'print the requests that would be sent; send nothing' });

export const DELETE_FLAGS = [STDIN, CONCURRENCY, RATE, IGNORE_MISSING, MISSING_ERROR, FAIL_FAST, DRY_RUN] as const;

/** Every one of the program's flags: a deletion uses them all. */
export const DELETE_GLOBALS = GLOBAL_FLAGS;

export type DeleteFlags = FlagReader<(typeof DELETE_FLAGS)[number] | (typeof DELETE_GLOBALS)[number]>;
