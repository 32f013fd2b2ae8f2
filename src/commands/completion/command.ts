import { Argument, type Command } from 'commander';
import { completes, completionTree, SHELLS } from '../../completion/tree.js';
import type { Context } from '../../context.js';
import type { ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import { COMPLETION_GLOBALS, type CompletionFlags, type CompletionOptions, completionOptions, LIST_PROFILES } from './flags.js';

/** The scripts are long strings that no other command needs at start-up. */
async function runCompletion(opts: CompletionOptions, ctx: Context): Promise<ExitCode> {
  return (await import('./run.js')).runCompletion(opts, ctx);
}

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
    .description('print a shell completion script: plantstore completion bash >> ~/.bashrc')
    .addArgument(completes(new Argument('[shell]', `one of ${SHELLS.join(', ')}`), { kind: 'words', words: SHELLS }))
    .addOption(LIST_PROFILES.option())
    .action(
      action(ctx, finish, (flags: CompletionFlags, shell?: string) => run(completionOptions(flags, shell, completionTree(program)), ctx)),
    );
  return documented(command, {
    globals: COMPLETION_GLOBALS,
    examples: [
      ['plantstore completion bash \\\n      > ~/.local/share/bash-completion/completions/plantstore'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own syntax, printed as is
      ['plantstore completion zsh > "${fpath[1]}/_plantstore"'],
      ['plantstore completion fish > ~/.config/fish/completions/plantstore.fish'],
    ],
  });
}
