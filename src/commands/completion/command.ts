import { Argument, type Command } from 'commander';
import { completes, completionTree, SHELLS } from '../../completion/tree.js';
import type { Context } from '../../context.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import { COMPLETION_GLOBALS, type CompletionFlags, LIST_PROFILES } from './flags.js';

/** The scripts are written from `program`, the whole command line, so every option is completable. */
export function completionCommand(program: Command, ctx: Context, finish: Finish): Command {
  const command = program
    .command('completion')
    .description('print a shell completion script: plantstore completion bash >> ~/.bashrc')
    .addArgument(completes(new Argument('[shell]', `one of ${SHELLS.join(', ')}`), { kind: 'words', words: SHELLS }))
    .addOption(LIST_PROFILES.option())
    .action(
      action(ctx, finish, async (flags: CompletionFlags, shell?: string) => {
        // The scripts are long strings that no other command needs at start-up.
        const { runCompletion } = await import('./run.js');
        return runCompletion({ listProfiles: flags.value(LIST_PROFILES), tree: completionTree(program), shell }, ctx);
      }),
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
