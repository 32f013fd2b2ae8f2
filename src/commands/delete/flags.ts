import { DEFAULT_AUTO_CEILING } from '../../batch/latency-tuning.js';
import { MAX_CONCURRENCY } from '../../batch/ordered-pool.js';
import type { Rate } from '../../batch/rate-limit.js';
import type { Concurrency } from '../../batch/throttle/throttle.js';
import { Flag, type FlagReader } from '../../flags/flag.js';
import { GLOBAL_FLAGS, JSON_OUTPUT, QUIET, VERBOSE } from '../../flags/global.js';
import { concurrency, filePath, missingErrors, rate } from '../../flags/kinds.js';
import { type ServiceSettings, serviceSettings } from '../../service/settings.js';
import type { MissingRule } from './outcomes.js';
import type { OutputMode } from './report.js';

export const STDIN = Flag.switch({
  key: 'stdin',
  flags: '--stdin',
  help: 'read ids from standard input (whitespace-separated, # comments)',
});

export const CONCURRENCY = Flag.valued(
  {
    key: 'concurrency',
    flags: '--concurrency <n|auto[:max]>',
    help:
      `requests in flight at once: n fixed, 1..${MAX_CONCURRENCY}; auto finds it from the server's latency, ` +
      `up to ${DEFAULT_AUTO_CEILING} (auto:${MAX_CONCURRENCY} lets it go up to ${MAX_CONCURRENCY}); --concurrency 8 was the default before auto`,
    env: 'PLANTSTORE_CONCURRENCY',
    envHelp: 'like delete --concurrency: a number, auto, or auto:max',
    default: 'auto',
    completes: { kind: 'words', words: ['auto', `auto:${MAX_CONCURRENCY}`] },
  },
  concurrency(MAX_CONCURRENCY, DEFAULT_AUTO_CEILING),
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

export const JOURNAL = Flag.valued(
  {
    key: 'journal',
    flags: '--journal <file>',
    help: 'record each result in this file as it is decided; a re-run with the same file skips what it records as done',
    completes: { kind: 'files' },
  },
  filePath,
);

export const JOURNAL_SAME_ACCOUNT = Flag.switch({
  key: 'journalSameAccount',
  flags: '--journal-same-account',
  help: 'resume a --journal written with other credentials (a renewed token, a changed token command) as the same account',
});

export const PROGRESS = Flag.switch({
  key: 'progress',
  flags: '--progress',
  help: 'when stderr is not a terminal, print a status line to it every 30s (keeps a CI log alive)',
  env: 'PLANTSTORE_PROGRESS',
  envHelp: 'like delete --progress',
});

export const DELETE_FLAGS = [
  STDIN,
  CONCURRENCY,
  RATE,
  IGNORE_MISSING,
  MISSING_ERROR,
  FAIL_FAST,
  DRY_RUN,
  JOURNAL,
  JOURNAL_SAME_ACCOUNT,
  PROGRESS,
] as const;

/** Every one of the program's flags: a deletion uses them all. */
export const DELETE_GLOBALS = GLOBAL_FLAGS;

export type DeleteFlags = FlagReader<(typeof DELETE_FLAGS)[number] | (typeof DELETE_GLOBALS)[number]>;

/** Everything `plantstore delete` was asked, read from flags, variables and the profile; where and how requests go included. */
export interface DeleteOptions extends ServiceSettings {
  /** The ids as given on the command line; `-` alone reads stdin, as --stdin does. */
  ids: string[];
  stdin: boolean;
  /** A fixed number of requests in flight, or `{ auto: ceiling }`: found from the server's latency, up to the ceiling. */
  concurrency: Concurrency;
  rate: Rate | undefined;
  missing: MissingRule;
  failFast: boolean;
  dryRun: boolean;
  output: OutputMode;
  verbose: boolean;
  /** --journal: where results are recorded, and read back to skip what an earlier run finished. */
  journal: string | undefined;
  /** --journal-same-account: a journal written with other credentials is resumed (journal/identity.ts). */
  journalSameAccount: boolean;
  /** --progress: a plain status line every 30 s when stderr is not a terminal. */
  progress: boolean;
}

/**
 * Reads every flag the command declares, once, in this order: a bad value is reported by the
 * first read that meets it, so the order below is the order in which problems are found.
 */
export function deleteOptions(flags: DeleteFlags, ids: string[]): DeleteOptions {
  return {
    ids,
    stdin: flags.value(STDIN),
    concurrency: flags.value(CONCURRENCY),
    rate: flags.value(RATE),
    ...serviceSettings(flags),
    missing: { codes: flags.value(MISSING_ERROR) ?? [], ignore: flags.value(IGNORE_MISSING) },
    output: { json: flags.value(JSON_OUTPUT), quiet: flags.value(QUIET) },
    dryRun: flags.value(DRY_RUN),
    verbose: flags.value(VERBOSE),
    failFast: flags.value(FAIL_FAST),
    journal: flags.value(JOURNAL),
    journalSameAccount: flags.value(JOURNAL_SAME_ACCOUNT),
    progress: flags.value(PROGRESS),
  };
}
