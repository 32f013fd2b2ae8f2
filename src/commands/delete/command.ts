// `plantstore delete`: the batch command (commands/batch-command.ts builds the rest) and its operation.

import type { AnyFlag, FlagReader } from '../../flags/flag.js';
import { type BatchVerb, batchCommand, type VerbOptions, verbOptions } from '../batch-command.js';
import { DELETE_OWN_FLAGS, DESTRUCTIVE, type DeleteOwn, readDeleteFlags } from './flags.js';
import { DELETE_JOURNAL_WORDS, deleteOperation } from './operation.js';
import type { DeleteResult } from './result.js';

export const DELETE: BatchVerb<(typeof DELETE_OWN_FLAGS)[number], DeleteOwn, DeleteResult> = {
  name: 'delete',
  description: 'delete plants by id: DELETE {base}/plants/{id} for each id',
  destructive: DESTRUCTIVE,
  flags: DELETE_OWN_FLAGS,
  read: readDeleteFlags,
  operation: (opts) => deleteOperation(opts.missing),
  ok: 'every plant deleted',
  idsFile: 'dead-plants.txt',
  examples: [
    [
      'plantstore delete --ignore-missing --missing-error 1 - < ids.txt',
      're-run a batch: plants the API says do not exist (error 1) count as done',
    ],
  ],
  // Scripts test `deleted` on every line: a failure before any request says it too.
  fatalFields: { deleted: false },
  journalWords: DELETE_JOURNAL_WORDS,
};

/** Registers `delete`. */
export const deleteCommand = batchCommand(DELETE);

/** Everything `plantstore delete` was asked, read from flags, variables and the profile; where and how requests go included. */
export type DeleteOptions = VerbOptions<DeleteOwn>;

/** The options of a delete run, read from its flags as the command reads them (tests that run it in-process). */
export function deleteOptions(flags: FlagReader<AnyFlag>, ids: string[]): DeleteOptions {
  return verbOptions(DELETE, flags, ids);
}
