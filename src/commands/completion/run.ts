import { completionScript } from '../../completion/scripts.js';
import { type CompletionTree, SHELLS, type Shell } from '../../completion/tree.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';

export interface CompletionOptions {
  shell?: string | undefined;
  /** Hidden: what the scripts call to complete --profile. */
  listProfiles: boolean;
  /** The program's commands and options, which the script is written from. */
  tree: CompletionTree;
}

export async function runCompletion(opts: CompletionOptions, ctx: Context): Promise<ExitCode> {
  if (opts.listProfiles) {
    // Completion must never print errors into the user's command line: an unreadable config offers nothing.
    try {
      for (const name of ctx.config().profileNames()) ctx.io.out(name);
    } catch {
      // nothing to offer
    }
    return Exit.ok;
  }
  const shell = opts.shell;
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`completion needs a shell: plantstore completion ${SHELLS.join('|')}`);
  }
  ctx.io.out(completionScript(shell as Shell, opts.tree).replace(/\n$/, ''));
  return Exit.ok;
}
