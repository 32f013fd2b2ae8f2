import { completionScript } from '../../completion/scripts.js';
import { SHELLS, type Shell } from '../../completion/tree.js';
import { isProfileName } from '../../config/file.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';
import type { CompletionOptions } from './flags.js';

export async function runCompletion(opts: CompletionOptions, ctx: Context): Promise<ExitCode> {
  if (opts.listProfiles) {
    // Completion must never print errors into the user's command line: an unreadable config offers nothing.
    try {
      // Only names --profile accepts: a name planted in the file (`x;touch pwned`) would be
      // inserted into the command line as is, and run on Enter.
      for (const name of ctx.config().profileNames()) if (isProfileName(name)) ctx.io.out(name);
    } catch {
      // nothing to offer
    }
    return Exit.ok;
  }
  const shell = opts.shell;
  const supported = `${SHELLS.slice(0, -1).join(', ')} and ${SHELLS.at(-1)}`;
  if (shell === undefined) {
    throw new UsageError(`name your shell: plantstore completion ${SHELLS[0]} (or ${SHELLS.slice(1).join(', ')})`);
  }
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`unknown shell '${shell}': plantstore completion supports ${supported}`);
  }
  ctx.io.out(completionScript(shell as Shell, opts.tree).replace(/\n$/, ''));
  return Exit.ok;
}
