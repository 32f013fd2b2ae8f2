// The flags of any batch, declared once (their variables' help names the flag alone: they are
// every batch command's, not one verb's): where the ids come from, the pace, the journal, when
// to stop, progress. A command that runs a batch adds them all (BATCH_FLAGS) to its own.

import { DEFAULT_AUTO_CEILING } from '../batch/adaptive/latency-tuning.js';
import { MAX_CONCURRENCY } from '../batch/ordered-pool.js';
import type { Rate } from '../batch/rate-limit.js';
import type { Concurrency } from '../batch/throttle/throttle.js';
import { Flag, type FlagReader, type Sourced } from '../flags/flag.js';
import { JSON_OUTPUT, QUIET, VERBOSE } from '../flags/global.js';
import { concurrency, duration, filePath, rate } from '../flags/kinds.js';
import { type MaxFailures, MIN_DECIDED_FOR_SHARE, maxFailures, STALL_RETRY_WAITS } from './budgets.js';
import { ASK_ABOVE, maxDeletes } from './guard.js';
import type { OutputMode } from './report.js';
import { type Shard, shard } from './shard.js';

export const STDIN = Flag.switch({
  key: 'stdin',
  flags: '--stdin',
  help: 'read ids from standard input (whitespace-separated, # comments)',
});

export const CONCURRENCY = Flag.valued(
  {
    key: 'concurrency',
    flags: '--concurrency <n|auto[:max]>',
    help: `requests in flight: n (1..${MAX_CONCURRENCY}), or auto, found from the server's latency up to ${DEFAULT_AUTO_CEILING} (auto:N: up to N)`,
    env: 'PLANTSTORE_CONCURRENCY',
    envHelp: 'like --concurrency: a number, auto, or auto:max',
    default: 'auto',
    completes: { kind: 'words', words: ['auto', `auto:${MAX_CONCURRENCY}`] },
  },
  concurrency(MAX_CONCURRENCY, DEFAULT_AUTO_CEILING),
);

export const RATE = Flag.valued(
  {
    key: 'rate',
    flags: '--rate <n[/s|/m|/h|/d]>',
    help: 'at most n requests a second (/m a minute, /h, /d), such as 40/s or 300/m',
    env: 'PLANTSTORE_RATE',
    envHelp: 'like --rate',
  },
  rate,
);

export const FAIL_FAST = Flag.switch({
  key: 'failFast',
  flags: '--fail-fast',
  help: 'send nothing new after the first failure (--max-failures 1)',
});

export const MAX_FAILURES = Flag.valued(
  {
    key: 'maxFailures',
    flags: '--max-failures <n|n%>',
    help: `send nothing new once n ids, or n% of those decided (from ${MIN_DECIDED_FOR_SHARE} on), have failed`,
    env: 'PLANTSTORE_MAX_FAILURES',
    envHelp: 'like --max-failures: a number of ids or a share such as 5%',
  },
  maxFailures,
);

export const MAX_DURATION = Flag.valued(
  {
    key: 'maxDuration',
    flags: '--max-duration <time>',
    help:
      'at this time after the start (90s, 45m, 5h; a bare number is seconds), send nothing new, let requests in flight finish, and exit 10; ' +
      'with --journal, the same command goes on from there',
    env: 'PLANTSTORE_MAX_DURATION',
    envHelp: 'like --max-duration',
  },
  duration,
);

export const MAX_OUTAGE = Flag.valued(
  {
    key: 'maxOutage',
    flags: '--max-outage <time>',
    help:
      'give up on a service that has failed or refused every request for this long (30s, 10m): the ids left fail or are not sent, exit 6; ' +
      `default ${STALL_RETRY_WAITS} × --max-retry-wait (2m at its default), at least 1s`,
    env: 'PLANTSTORE_MAX_OUTAGE',
    envHelp: 'like --max-outage',
  },
  duration,
);

export const MAX_DELETES = Flag.valued(
  {
    key: 'maxDeletes',
    flags: '--max-deletes <n>',
    help: 'refuse a batch of more than n ids to send (exit 9, nothing sent)',
    env: 'PLANTSTORE_MAX_DELETES',
    envHelp: 'like delete --max-deletes',
    profileKey: 'max-deletes',
  },
  maxDeletes,
);

export const YES = Flag.switch({
  key: 'yes',
  // -y as apt-get, npx and most installers take it: the short form an operator types first.
  flags: '-y, --yes',
  help: `at a terminal, send a batch of more than ${ASK_ABOVE} ids without asking for its count first`,
});

export const SHARD = Flag.valued(
  {
    key: 'shard',
    flags: '--shard <i/n>',
    help: 'take only part i of n of the ids (0 ≤ i < n), by a hash of each id',
    env: 'PLANTSTORE_SHARD',
    envHelp: 'like --shard: i/n',
  },
  shard,
);

export const DRY_RUN = Flag.switch({ key: 'dryRun', flags: '--dry-run', help: 'print the requests that would be sent; send nothing' });

export const JOURNAL = Flag.valued(
  {
    key: 'journal',
    flags: '--journal <file>',
    help: 'record each result in this file; a run with it again skips what is done',
    completes: { kind: 'files' },
  },
  filePath,
);

export const JOURNAL_SAME_ACCOUNT = Flag.switch({
  key: 'journalSameAccount',
  flags: '--journal-same-account',
  help: 'resume a --journal written with other credentials, as the same account',
});

export const PROGRESS = Flag.switch({
  key: 'progress',
  flags: '--progress',
  help: 'outside a terminal, a status line on stderr every 30s, and when the pace is cut',
  env: 'PLANTSTORE_PROGRESS',
  envHelp: 'like --progress',
});

/** The guard's flags: declared and read only by a command whose operation is destructive (guard.ts). */
export const GUARD_FLAGS = [MAX_DELETES, YES] as const;

/** In the order --help lists them, after the command's own; the guard's included (see batchFlags). */
export const BATCH_FLAGS = [
  STDIN,
  CONCURRENCY,
  RATE,
  FAIL_FAST,
  MAX_FAILURES,
  MAX_DURATION,
  MAX_OUTAGE,
  MAX_DELETES,
  YES,
  SHARD,
  DRY_RUN,
  JOURNAL,
  JOURNAL_SAME_ACCOUNT,
  PROGRESS,
] as const;

/**
 * The batch flags a command declares, in --help's order: a command whose operation is not
 * destructive has no --max-deletes, no --yes, and never reads them from the environment or a profile.
 */
export function batchFlags(destructive: boolean): readonly (typeof BATCH_FLAGS)[number][] {
  return destructive ? BATCH_FLAGS : BATCH_FLAGS.filter((flag) => !(GUARD_FLAGS as readonly unknown[]).includes(flag));
}

/** The global flags a batch reads besides the service's. */
const BATCH_GLOBALS = [JSON_OUTPUT, QUIET, VERBOSE] as const;

export type BatchFlags = FlagReader<(typeof BATCH_FLAGS)[number] | (typeof BATCH_GLOBALS)[number]>;

/** How a batch runs, read from its flags: what is the same for every operation. */
export interface BatchOptions {
  /** The ids as given on the command line; `-` alone reads stdin, as --stdin does. */
  ids: string[];
  stdin: boolean;
  /** A fixed number of requests in flight, or `{ auto: ceiling }`: found from the server's latency, up to the ceiling. */
  concurrency: Concurrency;
  rate: Rate | undefined;
  failFast: boolean;
  /** When failures stop the run: --fail-fast is `{ count: 1 }`; undefined, never. */
  maxFailures: MaxFailures | undefined;
  /** --max-duration, in milliseconds from the start: then nothing new is sent, and the run exits 10. */
  maxDuration: number | undefined;
  /** --max-outage, in milliseconds: a service failing every request this long is given up on (undefined: outageLimitMs's default). */
  maxOutage: number | undefined;
  /** --max-deletes, with where it came from (a flag, a variable, the profile); never read for an operation that is not destructive. */
  maxDeletes: Sourced<number> | undefined;
  /** --yes: no question at a terminal; false where the guard does not run. */
  yes: boolean;
  /** --shard: this run takes only the ids of this part. */
  shard: Shard | undefined;
  /** Where the shard came from: "--shard", "PLANTSTORE_SHARD"; any but the flag is said aloud (read-ids.ts). */
  shardSource?: string | undefined;
  dryRun: boolean;
  output: OutputMode;
  verbose: boolean;
  /** --journal: where results are recorded, and read back to skip what an earlier run finished. */
  journal: string | undefined;
  /** --journal-same-account: a journal written with other credentials is resumed (batch/journal/identity.ts). */
  journalSameAccount: boolean;
  /** --progress: a plain status line every 30 s when stderr is not a terminal. */
  progress: boolean;
}

/**
 * The batch's flags, each read once; `read` runs between the pace and the output flags, where a
 * command reads its own. The guard's are read only for a `destructive` operation: a read is never
 * refused by a PLANTSTORE_MAX_DELETES or a profile's max-deletes.
 */
export function batchOptions<T>(flags: BatchFlags, ids: string[], read: () => T, destructive: boolean): BatchOptions & T {
  const stdin = flags.value(STDIN);
  const concurrencyValue = flags.value(CONCURRENCY);
  const rateValue = flags.value(RATE);
  const own = read();
  return {
    ids,
    stdin,
    concurrency: concurrencyValue,
    rate: rateValue,
    ...own,
    output: { json: flags.value(JSON_OUTPUT), quiet: flags.value(QUIET) },
    dryRun: flags.value(DRY_RUN),
    verbose: flags.value(VERBOSE),
    failFast: flags.value(FAIL_FAST),
    // --fail-fast is the tightest budget there is: with it, a --max-failures (from the environment, say) does not matter.
    maxFailures: flags.value(FAIL_FAST) ? { count: 1 } : flags.value(MAX_FAILURES),
    maxDuration: flags.value(MAX_DURATION),
    maxOutage: flags.value(MAX_OUTAGE),
    maxDeletes: destructive ? flags.sourced(MAX_DELETES) : undefined,
    yes: destructive && flags.value(YES),
    shard: flags.value(SHARD),
    shardSource: flags.sourced(SHARD)?.source,
    journal: flags.value(JOURNAL),
    journalSameAccount: flags.value(JOURNAL_SAME_ACCOUNT),
    progress: flags.value(PROGRESS),
  };
}
