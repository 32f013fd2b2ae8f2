import type { Argument, Command, Option } from 'commander';

/**
 * What completion offers, read from the commander program itself, so that a flag
 * added to a command is completable without another list to keep: the commands
 * and subcommands, every visible option (which take a value, and what that value
 * may be), and what a command's first argument may be.
 */
/** The shells `plantstore completion` writes scripts for (scripts.ts). */
export type Shell = 'bash' | 'zsh' | 'fish' | 'powershell';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish', 'powershell'];

/**
 * How to load each shell's script in every new shell: the one advice the help, the scripts'
 * own first lines and the README give. The folders are made first, so a line works in a
 * fresh home (bash-completion and fish read those folders, but do not create them).
 */
export const INSTALL: Readonly<Record<Shell, string>> = {
  bash: 'mkdir -p ~/.local/share/bash-completion/completions && plantstore completion bash > ~/.local/share/bash-completion/completions/plantstore',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own syntax, printed as is
  zsh: 'plantstore completion zsh > "${fpath[1]}/_plantstore"',
  fish: 'mkdir -p ~/.config/fish/completions && plantstore completion fish > ~/.config/fish/completions/plantstore.fish',
  powershell: 'plantstore completion powershell >> $PROFILE',
};

export interface CompletionTree {
  name: string;
  description: string;
  /** Options of this command only; the root's are global, offered before a command. */
  options: CompletableOption[];
  /** The root's options this command reads (for a group, any of its commands): offered after it, no others. */
  globals: CompletableOption[];
  commands: CompletionTree[];
  /** What the first argument of this command completes to, when anything. */
  argument: Values | undefined;
}

export interface CompletableOption {
  /** Every spelling: `-q`, `--quiet`. */
  names: string[];
  description: string;
  /** undefined for a flag without a value. */
  value: Values | undefined;
}

/** What a value completes to: files, profile names (from the config file), commands, a fixed list, or nothing known. */
export type Values =
  | { kind: 'files' }
  | { kind: 'profiles' }
  | { kind: 'commands' }
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'any' };

const offers = new WeakMap<Option | Argument, Values>();

/**
 * Says what an option's value or an argument completes to. commander's own
 * `.choices()` would also validate, and some commands give better errors themselves
 * (`config get token` says where the token lives).
 */
export function completes<T extends Option | Argument>(item: T, values: Values): T {
  offers.set(item, values);
  return item;
}

/**
 * The tree of `command`. `reads` says which of the program's options a command reads (the help's
 * Global Options: commands/help/documented.ts): after `plantstore sandbox` only those are offered,
 * not the client's flags it would refuse.
 */
export function completionTree(command: Command, reads: (command: Command) => readonly Option[]): CompletionTree {
  const first = command.registeredArguments[0];
  const visible = (options: readonly Option[]): CompletableOption[] => options.filter((option) => !option.hidden).map(completableOption);
  return {
    name: command.name(),
    description: firstSentence(command.description()),
    options: visible(command.options),
    globals: command.parent === null ? [] : visible(reads(command)),
    commands: command.commands.map((sub) => completionTree(sub, reads)),
    argument: first === undefined ? undefined : offers.get(first),
  };
}

function completableOption(option: Option): CompletableOption {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  const takesValue = option.required || option.optional;
  const value = !takesValue
    ? undefined
    : (offers.get(option) ?? (option.argChoices ? { kind: 'words' as const, words: option.argChoices } : { kind: 'any' as const }));
  return { names, description: firstSentence(option.description), value };
}

/** Shells show one short line per candidate. */
function firstSentence(text: string): string {
  const line = text.split(/[;(]/)[0]?.trim() ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** Every option of the tree that takes a value, once per spelling: the word after one is never a command. */
export function valueOptions(tree: CompletionTree): CompletableOption[] {
  const own = tree.options.filter((option) => option.value !== undefined);
  return [...own, ...tree.commands.flatMap(valueOptions)];
}
