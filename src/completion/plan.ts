import { type CompletableOption, type CompletionTree, type Values, valueOptions } from './tree.js';

/** The word lists every shell's script is written from, read once from the completion tree. */

export type Described = ReadonlyArray<readonly [name: string, description: string]>;

/** commander gives every command -h/--help without listing it among the options. */
const HELP: CompletableOption = { names: ['-h', '--help'], description: 'show help', value: undefined };

/** The lists every script is written from. */
export interface Words {
  commands: Described;
  /** The program's options, offered before a command. */
  global: Described;
  /**
   * What is offered after a top-level command: its options and the program's it reads (-h/--help
   * included), and of its subcommands by name; a group's entry named '' is what is offered before
   * its subcommand (what any of them reads).
   */
  optionsOf: ReadonlyArray<{ command: string; own: Described; subs: ReadonlyArray<{ sub: string; own: Described }> }>;
  subcommandsOf: ReadonlyArray<{ command: string; subs: Described }>;
  /** What the first argument completes to: of a command without subcommands (sub empty), or of a subcommand. */
  argumentsOf: ReadonlyArray<{ command: string; sub: string | undefined; values: Values }>;
  /** Options followed by a value, by spelling, with what the value completes to. */
  valued: ReadonlyArray<{ name: string; values: Values }>;
  /** The commands that take options of their own or have subcommands that do. */
  withOptions: ReadonlyArray<{ command: string; own: Described; subs: ReadonlyArray<{ sub: string; own: Described }> }>;
  /** For each command: what the first word after it completes to, and the word after that, by that first word. */
  places: ReadonlyArray<Place>;
}

export interface Place {
  command: string;
  /** Subcommands (with descriptions), or the values of the command's argument. */
  first: { subs: Described } | { values: Values } | undefined;
  second: ReadonlyArray<{ after: string; values: Values }>;
}

/** The word lists of `tree`, with what every generator walks the same way worked out once. */
export function plan(tree: CompletionTree): Words {
  return planned(words(tree));
}

/** The lists as the tree has them; `withOptions` and `places` are left to planned(). */
function words(tree: CompletionTree): Words {
  const described = (options: readonly CompletableOption[]): Described =>
    options.flatMap((option) => option.names.map((name) => [name, option.description] as const));
  const commands = tree.commands;
  return {
    commands: commands.map((command) => [command.name, command.description] as const),
    global: described([...tree.options, HELP]),
    optionsOf: commands.map((command) => {
      const group = command.commands.length > 0;
      return {
        command: command.name,
        own: described([...command.options, ...(group ? [] : command.globals), HELP]),
        subs: [
          ...(group ? [{ sub: '', own: described(command.globals) }] : []),
          ...command.commands.map((sub) => ({ sub: sub.name, own: described([...sub.options, ...sub.globals]) })),
        ],
      };
    }),
    subcommandsOf: commands
      .filter((command) => command.commands.length > 0)
      .map((command) => ({ command: command.name, subs: command.commands.map((sub) => [sub.name, sub.description] as const) })),
    argumentsOf: commands.flatMap((command) => [
      ...(command.argument && command.commands.length === 0 ? [{ command: command.name, sub: undefined, values: command.argument }] : []),
      ...command.commands.flatMap((sub) => (sub.argument ? [{ command: command.name, sub: sub.name, values: sub.argument }] : [])),
    ]),
    valued: valueOptions(tree).flatMap((option) => option.names.map((name) => ({ name, values: option.value as Values }))),
    withOptions: [],
    places: [],
  };
}

/** Adds what every generator walks the same way: which commands take options, and what each place completes to. */
function planned(w: Words): Words {
  const withOptions = w.optionsOf
    .map(({ command, own, subs }) => ({ command, own, subs: subs.filter((sub) => sub.own.length > 0) }))
    .filter(({ own, subs }) => own.length > 0 || subs.length > 0);
  const places = w.commands.map(([command]): Place => {
    const subs = w.subcommandsOf.find((entry) => entry.command === command)?.subs;
    const own = w.argumentsOf.find((entry) => entry.command === command && entry.sub === undefined)?.values;
    const second =
      own?.kind === 'commands'
        ? // help <command> <TAB>: that command's subcommands.
          w.subcommandsOf.map(({ command: after, subs: s }) => ({
            after,
            values: { kind: 'words' as const, words: s.map(([name]) => name) },
          }))
        : w.argumentsOf
            .filter((entry) => entry.command === command && entry.sub !== undefined)
            .map((entry) => ({ after: entry.sub as string, values: entry.values }));
    return { command, first: subs ? { subs } : own ? { values: own } : undefined, second };
  });
  return { ...w, withOptions, places };
}

export const names = (list: Described): string => list.map(([name]) => name).join(' ');
export const valuedNames = (w: Words): string[] => w.valued.map(({ name }) => name);
/** The fixed words a value completes to: a list, or the command names (`help <TAB>`). */
export const fixedWords = (values: Values, w: Words): readonly string[] | undefined =>
  values.kind === 'words' ? values.words : values.kind === 'commands' ? w.commands.map(([name]) => name) : undefined;
