import { Argument, type Command } from 'commander';
import { completes } from '../../completion/tree.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import {
  JOURNAL_GLOBALS,
  type JournalFlags,
  type JournalOptions,
  type JournalStatusFlags,
  journalOptions,
  journalStatusOptions,
  WATCH,
} from './flags.js';
import { runJournalLeft } from './left.js';
import { runJournalFailed, runJournalStatus } from './run.js';

/** Stand-ins for the run functions of the journal commands: a test of argv captures the options and runs nothing. */
export interface JournalSeams {
  journalStatus?: (opts: JournalOptions, ctx: Context) => Promise<ExitCode>;
  journalFailed?: (opts: JournalOptions, ctx: Context) => Promise<ExitCode>;
  journalLeft?: (opts: JournalOptions, ctx: Context) => Promise<ExitCode>;
}

const files = (): Argument =>
  completes(new Argument('<file...>', 'journals written by a run with --journal: one, or the shards of one job'), { kind: 'files' });

/** Registers `journal status`, `journal failed` and `journal left`: reading a journal, never writing or locking it. */
export function journalCommand(program: Command, ctx: Context, finish: Finish, seams: JournalSeams = {}): Command {
  const run = {
    status: seams.journalStatus ?? runJournalStatus,
    failed: seams.journalFailed ?? runJournalFailed,
    left: seams.journalLeft ?? runJournalLeft,
  };
  const journal = documented(program.command('journal').description('read what a --journal file records, without sending anything'), {
    examples: [
      ['plantstore journal status dead-plants.journal'],
      ['plantstore journal failed dead-plants.journal > retry.txt'],
      ['plantstore journal left dead-plants.journal < dead-plants.txt > left.txt'],
    ],
  });

  const status = journal
    .command('status')
    .description(
      'count the ids a journal records as deleted, absent, failed, in flight and not sent (in the words of the operation that wrote it), and say whether the job is finished; works while a run holds the journal',
    )
    .addArgument(files())
    .addOption(WATCH.option())
    .action(action(ctx, finish, (flags: JournalStatusFlags, names: string[]) => run.status(journalStatusOptions(flags, names), ctx)));
  documented(status, {
    globals: JOURNAL_GLOBALS,
    concerns: {
      variables: ['NO_COLOR, FORCE_COLOR'],
      exits: [Exit.ok, Exit.usage, Exit.interrupted],
      ok: 'the journals were read; with --watch, the job finished, or Ctrl-C or SIGTERM ended the watch',
    },
    examples: [
      ['plantstore journal status dead-plants.journal'],
      ['plantstore journal status shard-*.journal', 'the shards of one job, summed'],
      ['plantstore --json journal status dead-plants.journal', 'one object: deleted, absent, failed, inFlight, notSent...'],
      ['plantstore journal status --watch shard-*.journal', 'follow the shards while they run; Ctrl-C stops watching'],
    ],
  });

  const failed = journal
    .command('failed')
    .description('print the ids still to do (failed, in flight at a stop, not sent), one a line, ready for delete --stdin')
    .addArgument(files())
    .action(action(ctx, finish, (flags: JournalFlags, names: string[]) => run.failed(journalOptions(flags, names), ctx)));
  documented(failed, {
    globals: JOURNAL_GLOBALS,
    concerns: { variables: ['NO_COLOR, FORCE_COLOR'], exits: [Exit.ok, Exit.usage, Exit.interrupted], ok: 'the journals were read' },
    examples: [
      [
        'plantstore journal failed dead-plants.journal \\\n      | plantstore delete --ignore-missing --stdin',
        'redo them; the API\'s "no such plant" counts as done',
      ],
      ['plantstore --json journal failed dead-plants.journal', 'one object per id, with its state, exit and error code'],
    ],
  });

  const left = journal
    .command('left')
    .description(
      'print the ids of the list on stdin that the journals do not record as done, in its order: what is left after any stop, ids never sent included',
    )
    .addArgument(files())
    .action(action(ctx, finish, (flags: JournalFlags, names: string[]) => run.left(journalOptions(flags, names), ctx)));
  documented(left, {
    globals: JOURNAL_GLOBALS,
    concerns: {
      variables: ['NO_COLOR, FORCE_COLOR'],
      exits: [Exit.ok, Exit.usage, Exit.interrupted],
      ok: 'the journals and the list were read',
    },
    examples: [
      [
        'plantstore journal left dead-plants.journal < dead-plants.txt \\\n      | plantstore delete --ignore-missing --stdin',
        'finish the job, whatever stopped it',
      ],
      ['plantstore journal left shard-*.journal < dead-plants.txt', 'the shards of one job'],
    ],
  });

  return journal;
}
