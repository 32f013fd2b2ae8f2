import { bash } from './bash.js';
import { fish } from './fish.js';
import { plan } from './plan.js';
import { powershell } from './powershell.js';
import type { CompletionTree, Shell } from './tree.js';
import { zsh } from './zsh.js';

/**
 * Shell completion scripts for `plantstore completion bash|zsh|fish|powershell`,
 * generated from the commander program (tree.ts): every command,
 * subcommand and option the program has is in them, so they cannot drift from it.
 *
 * The scripts are plain text with the word lists written in, so completing never
 * starts Node, except for profile names: those live in the config file, and the
 * scripts ask `plantstore completion --list-profiles` (one name per line) rather
 * than read a file whose format is ours to change.
 */
export function completionScript(shell: Shell, tree: CompletionTree): string {
  const w = plan(tree);
  switch (shell) {
    case 'bash':
      return bash(w);
    case 'zsh':
      return zsh(w);
    case 'fish':
      return fish(w);
    case 'powershell':
      return powershell(w);
  }
}
