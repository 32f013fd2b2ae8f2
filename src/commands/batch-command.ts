// A batch command, declared once (gh: a verb is its own file plus one AddCommand line). A verb
// says what is its own: its name and description, its flags and how they read, its operation,
// what success means and its own examples. Everything else, the same for every batch (the
// ids argument, the batch and global flags, the help's environment, exit codes and examples,
// the seam tests run it through), is built here, so adding a verb is its folder plus the two
// lines in cli.ts that import and register it.

import type { Command } from 'commander';
import type { Context } from '../context.js';
import { type BatchOptions, batchFlags, batchOptions, RATE } from '../engine/batch-flags.js';
import { type JournalWords, registerJournalWords } from '../engine/journal-words.js';
import type { Operation } from '../engine/operation.js';
import { runBatch } from '../engine/run-batch.js';
import { EXIT_CODE_HELP, Exit, type ExitCode } from '../errors.js';
import type { AnyFlag, FlagReader } from '../flags/flag.js';
import { GLOBAL_FLAGS } from '../flags/global.js';
import { type ServiceSettings, serviceSettings } from '../service/settings.js';
import { declareFatalFields, type FatalFields } from './fatal-fields.js';
import { action, type Finish } from './finish.js';
import { documented } from './help/documented.js';

/** What a batch command runs with: the batch's options, where requests go, and the verb's own (`O`). */
export type VerbOptions<O> = BatchOptions & ServiceSettings & O;

/** A command's run function, or a test's stand-in for it (gh's runF): it gets the options, and may run nothing. */
export type Run<O> = (opts: O, ctx: Context) => Promise<ExitCode>;

/**
 * Stand-ins for the batch commands' run functions, by command name: a test of argv captures the
 * options (`{ delete: capture }`) and runs nothing. Keyed by name, so a new verb needs no entry in cli.ts.
 */
export type VerbSeams = { readonly [command: string]: Run<never> | undefined };

/** A help example: a command line, and what it shows. */
export type Example = readonly [string, string?];

/** Everything a batch command declares; the rest is the same for every batch (see batchCommand). */
export interface BatchVerb<F extends AnyFlag, O, R extends { id: string }> {
  /** As typed after `plantstore`. */
  name: string;
  /** Its help's first line: what it does, and the request it sends. */
  description: string;
  /**
   * Whether its operation destroys what it is sent for: only then does it declare and read the
   * guard's flags (--max-deletes, --yes), and only then can it exit 9. Its operation says the same.
   */
  destructive: boolean;
  /** Its own flags: --help lists them after the pace's. */
  flags: readonly F[];
  /** Its own options, read from its flags after the pace's and before the output's (the order problems are found in). */
  read(flags: FlagReader<F>): O;
  /** The operation of one run, made from its options. */
  operation(opts: VerbOptions<O>): Operation<R>;
  /** What exit 0 means, for the help's exit codes: "every plant deleted". */
  ok: string;
  /** The file of ids its --stdin example reads: "ids.txt" unless said. */
  idsFile?: string;
  /** Its own examples, after the batch's first (ids, stdin, dry run, journal). */
  examples?: readonly Example[];
  /** What a failure before any request adds to its --json object (ui/fatal.ts): the field scripts test on every line. */
  fatalFields?: FatalFields;
  /**
   * The words `journal status`, `failed`, `left` and `--watch` say its journals' counts in, found by
   * the journal header's operation, its name: `journalWordsFrom(its results' states)`
   * (engine/journal-words.ts), with its own where a journal's differ. Required: a verb that left
   * them out would have its journals read in the engine's names (`done 142`), not its own.
   */
  journalWords: JournalWords;
}

/** Registers a command on the program; `seams` replace run functions in tests. */
export type Register = (program: Command, ctx: Context, finish: Finish, seams?: VerbSeams) => Command;

/** The options a batch command runs with, each flag read once, in the order problems are reported in. */
export function verbOptions<F extends AnyFlag, O, R extends { id: string }>(
  verb: BatchVerb<F, O, R>,
  /** Every flag the command declares, its own, the batch's and the program's. */
  flags: FlagReader<AnyFlag>,
  ids: string[],
): VerbOptions<O> {
  return batchOptions(flags, ids, () => ({ ...serviceSettings(flags), ...verb.read(flags) }), verb.destructive);
}

/** Runs a batch of the verb's operation. */
export function runVerb<F extends AnyFlag, O, R extends { id: string }>(
  verb: BatchVerb<F, O, R>,
  opts: VerbOptions<O>,
  ctx: Context,
): Promise<ExitCode> {
  return runBatch(verb.operation(opts), opts, ctx);
}

/** The registration of a batch command: what cli.ts calls, once, for the verb. */
export function batchCommand<F extends AnyFlag, O, R extends { id: string }>(verb: BatchVerb<F, O, R>): Register {
  return (program, ctx, finish, seams = {}) => {
    const run = (seams[verb.name] as Run<VerbOptions<O>> | undefined) ?? ((opts, runCtx) => runVerb(verb, opts, runCtx));
    const command = program
      .command(verb.name)
      .description(verb.description)
      .argument('[id...]', 'plant ids (64-bit integers); all are checked before any is sent; - reads stdin');
    // The verb's own after the ids and the pace, as delete's --help has always listed them.
    const batch = batchFlags(verb.destructive);
    const pace = batch.indexOf(RATE) + 1;
    for (const flag of [...batch.slice(0, pace), ...verb.flags, ...batch.slice(pace)]) command.addOption(flag.option());
    command.action(action(ctx, finish, (flags: FlagReader<AnyFlag>, ids: string[]) => run(verbOptions(verb, flags, ids), ctx)));
    if (verb.fatalFields !== undefined) declareFatalFields(command, verb.fatalFields);
    registerJournalWords(verb.name, verb.journalWords);
    return documented(command, {
      // A batch reads every one of the program's flags.
      globals: GLOBAL_FLAGS,
      concerns: {
        variables: [
          'PLANTSTORE_TOKEN',
          'PLANTSTORE_TOKEN_COMMAND',
          'PLANTSTORE_CONFIG_DIR',
          'https_proxy, http_proxy',
          'NO_COLOR, FORCE_COLOR',
        ],
        // A batch can end with any of them; only the guard refuses one (exit 9), and only a destructive one has it.
        exits: EXIT_CODE_HELP.map(([code]) => code).filter((code) => verb.destructive || code !== Exit.refused),
        ok: verb.ok,
        exitsNote: 'with several ids, the code of the first failing id',
      },
      examples: batchExamples(verb),
    });
  };
}

/** The examples every batch command shows, in its own name, with its own after the journal's. */
function batchExamples(verb: BatchVerb<AnyFlag, unknown, { id: string }>): Example[] {
  const command = `plantstore ${verb.name}`;
  const limits = verb.destructive
    ? [
        `${command} --max-deletes 1000 --max-failures 5% --stdin < ids.txt`,
        'refuse a list of more than 1000 ids (exit 9); stop once 5% of them fail',
      ]
    : [`${command} --max-failures 5% --stdin < ids.txt`, 'stop once 5% of them fail'];
  return [
    [`${command} 42`],
    [`${command} -- -5`, 'a negative id is a valid int64 too (the -- is optional)'],
    [`${command} --stdin < ${verb.idsFile ?? 'ids.txt'}`, `ids from a file, checked before any is sent; or ... | ${command} -`],
    [`${command} --dry-run 42 43`, 'show the requests, send nothing'],
    [`${command} --journal run.journal --stdin < ids.txt`, 'a killed or failed run, run again the same way, skips what it already did'],
    ...(verb.examples ?? []),
    limits as unknown as Example,
    [`${command} --journal run.journal --max-duration 5h --stdin < ids.txt`, 'stop at 5 hours (exit 10); the same command goes on'],
    [`${command} --shard 0/4 --journal part0.journal --stdin < ids.txt`, 'part 0 of 4: run 1/4, 2/4, 3/4 elsewhere'],
  ];
}
