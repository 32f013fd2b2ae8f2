import { Argument, type Command } from 'commander';
import { completes, completionTree, INSTALL, SHELLS } from '../../completion/tree.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented, globalOptionsFor } from '../help/documented.js';
import { COMPLETION_GLOBALS, type CompletionFlags, type CompletionOptions, completionOptions, LIST_PROFILES } from './flags.js';
import { runCompletion } from './run.js';

/**
 * The scripts are written from `program`, the whole command line, so every option is completable.
 * `run` is the seam of gh's `newCmd…(f, runF)`: a test of argv passes its own and captures the options.
 */
export function completionCommand(
  program: Command,
  ctx: Context,
  finish: Finish,
  run: (opts: CompletionOptions, ctx: Context) => Promise<ExitCode> = runCompletion,
): Command {
  const command = program
    .command('completion')
    .description('print a shell completion script; its help says how to load it in every new shell')
    .addArgument(completes(new Argument('[shell]', `one of ${SHELLS.join(', ')}`), { kind: 'words', words: SHELLS }))
    .addOption(LIST_PROFILES.option())
    .action(
      action(ctx, finish, (flags: CompletionFlags, shell?: string) =>
        run(completionOptions(flags, shell, completionTree(program, globalOptionsFor)), ctx),
      ),
    );
  return documented(command, {
    globals: COMPLETION_GLOBALS,
    concerns: { variables: ['PLANTSTORE_CONFIG_DIR', 'NO_COLOR, FORCE_COLOR'], exits: [Exit.ok, Exit.usage] },
    // The one advice (completion/tree.ts INSTALL), a line too long for the help continued before `&&` and `>`.
    examples: SHELLS.map((shell) => [INSTALL[shell].length <= 70 ? INSTALL[shell] : INSTALL[shell].replace(/ (&&|>) /g, ' \\\n      $1 ')]),
  });
}
