import type { CompletionTree } from '../../completion/tree.js';
import { Flag, type FlagReader } from '../../flags/flag.js';
import { COLOR } from '../../flags/global.js';

/** Hidden: what the scripts call to complete --profile. */
export const LIST_PROFILES = Flag.switch({
  key: 'listProfiles',
  flags: '--list-profiles',
  help: 'print profile names (used by the scripts)',
  hidden: true,
});

export const COMPLETION_GLOBALS = [COLOR] as const;

export type CompletionFlags = FlagReader<typeof LIST_PROFILES | (typeof COMPLETION_GLOBALS)[number]>;

/** What `plantstore completion [shell]` was asked. */
export interface CompletionOptions {
  /** As typed; the run checks it, since --list-profiles needs none. */
  shell?: string | undefined;
  /** Hidden: what the scripts call to complete --profile. */
  listProfiles: boolean;
  /** The program's commands and options, which the script is written from. */
  tree: CompletionTree;
}

/** Reads the one flag the command declares. */
export function completionOptions(flags: CompletionFlags, shell: string | undefined, tree: CompletionTree): CompletionOptions {
  return { shell, listProfiles: flags.value(LIST_PROFILES), tree };
}
