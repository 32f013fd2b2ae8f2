import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { EXIT_CODE_HELP, type ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import { DELETE_FLAGS, DELETE_GLOBALS, type DeleteFlags, type DeleteOptions, deleteOptions } from './flags.js';
import { runDelete } from './run.js';

/** What a failure before any request adds to its --json object: scripts test `deleted` on every line. */
export const DELETE_FATAL_FIELDS = { deleted: false } as const;

/**
 * Registers `delete`. `run` is the seam of gh's `newCmdDelete(f, runF)`: a test of argv passes
 * its own and captures the options, running nothing.
 */
export function deleteCommand(
  program: Command,
  ctx: Context,
  finish: Finish,
  run: (opts: DeleteOptions, ctx: Context) => Promise<ExitCode> = runDelete,
): Command {
  const command = program
    .command('delete')
    .description('delete plants by id: DELETE {base}/plants/{id} for each id')
    .argument('[id...]', 'plant ids (64-bit integers); all are checked before any is sent; - reads stdin');
  for (const flag of DELETE_FLAGS) command.addOption(flag.option());
  command.action(action(ctx, finish, (flags: DeleteFlags, ids: string[]) => run(deleteOptions(flags, ids), ctx)));
  return documented(command, {
    globals: DELETE_GLOBALS,
    concerns: {
      variables: [
        'PLANTSTORE_TOKEN',
        'PLANTSTORE_TOKEN_COMMAND',
        'PLANTSTORE_CONFIG_DIR',
        'https_proxy, http_proxy',
        'NO_COLOR, FORCE_COLOR',
      ],
      // A deletion can end with any of them.
      exits: EXIT_CODE_HELP.map(([code]) => code),
      ok: 'every plant deleted',
      exitsNote: 'with several ids, the code of the first failing id',
    },
    examples: [
      ['plantstore delete 42'],
      ['plantstore delete -- -5', 'a negative id is a valid int64 too (the -- is optional)'],
      ['plantstore delete --stdin < dead-plants.txt', 'ids from a file, checked before any is sent; or ... | plantstore delete -'],
      ['plantstore delete --dry-run 42 43', 'show the requests, send nothing'],
      [
        'plantstore delete --journal run.journal --stdin < ids.txt',
        'a killed or failed run, run again the same way, skips what it already did',
      ],
      [
        'plantstore delete --ignore-missing --missing-error 1 - < ids.txt',
        're-run a batch: plants the API says do not exist (error 1) count as done',
      ],
      [
        'plantstore delete --max-deletes 1000 --max-failures 5% --stdin < ids.txt',
        'refuse a list of more than 1000 ids (exit 9); stop once 5% of them fail',
      ],
      [
        'plantstore delete --journal run.journal --max-duration 5h --stdin < ids.txt',
        'stop at 5 hours (exit 10); the same command goes on',
      ],
      ['plantstore delete --shard 0/4 --journal part0.journal --stdin < ids.txt', 'part 0 of 4: run 1/4, 2/4, 3/4 elsewhere'],
    ],
  });
}
