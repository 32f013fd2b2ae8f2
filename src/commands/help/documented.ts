import type { Command, Option } from 'commander';
import { EXIT_CODE_HELP, type ExitCode } from '../../errors.js';
import { type AnyFlag, flagOf } from '../../flags/flag.js';
import { VARIABLES_FIRST, VARIABLES_LAST } from '../../flags/global.js';

/** One width everywhere: `--help` prints the text captured at build time, so `help` must match it. */
export const HELP_WIDTH = 80;

const README_URL = 'https://www.npmjs.com/package/plantstore';
const LEARN_MORE = [
  'Learn more:',
  '  Use plantstore help <command> for the help of any command.',
  `  Read the README at ${README_URL}`,
  // man finds the page only where npm linked it: a global install, not npx or a clone.
  '  and, after npm install -g plantstore, the manual: man plantstore',
].join('\n');

/**
 * The program's options each command reads (flags.ts's FlagReader lets it read no
 * other). Its help lists those under Global Options: all of them for delete, but
 * auth token reads no --timeout, and says so by omission.
 */
const globalsOf = new WeakMap<Command, ReadonlySet<string>>();

/** For commander's configureHelp: the global options a command's help shows. */
export function globalOptionsFor(command: Command): Option[] {
  const reads = globalsRead(command);
  if (reads.size === 0) return [];
  const options: Option[] = [];
  for (let ancestor = command.parent; ancestor; ancestor = ancestor.parent) {
    options.push(...ancestor.options.filter((option) => !option.hidden && option.long !== undefined && reads.has(option.long)));
  }
  return options;
}

/** A command's own list; for a group such as `auth`, what any of its commands reads. */
function globalsRead(command: Command): ReadonlySet<string> {
  return globalsOf.get(command) ?? new Set(command.commands.flatMap((sub) => [...globalsRead(sub)]));
}

interface HelpExtras {
  /** The program's flags the command reads. */
  globals?: readonly AnyFlag[];
  /** Command lines, each with an optional comment; a long one goes on after `\\` and a line break. */
  examples: ReadonlyArray<readonly [string, string?]>;
  /** Sections printed after the examples. */
  more?: readonly string[];
  /** What the command's help lists under Environment and Exit codes (a group's: all its commands'). */
  concerns?: Concerns;
}

/** The variables a command reads besides those of its flags, and the exit codes it can end with. */
export interface Concerns {
  /** Names from VARIABLES_FIRST and VARIABLES_LAST (flags/global.ts), which no flag stands for. */
  variables?: readonly string[];
  exits: readonly ExitCode[];
  /** What exit 0 means for this command; "success" unless said. */
  ok?: string;
  /** Said after the heading: `Exit codes (with several ids, …):`. */
  exitsNote?: string;
}

const concernsOf = new WeakMap<Command, Concerns>();

/** gh's help, after commander's: examples, anything more, then where to read more. */
export function documented(command: Command, extras: HelpExtras): Command {
  if (extras.globals !== undefined) {
    globalsOf.set(command, new Set(extras.globals.map((flag) => flag.long)));
  }
  if (extras.concerns !== undefined) concernsOf.set(command, extras.concerns);
  // As gh writes them: a comment goes on its own line, above its command.
  const examples = extras.examples.flatMap(([line, comment]) => [...(comment ? [`  # ${comment}`] : []), `  $ ${line}`]);
  // Written when the help is: by then every option, and every command of a group, is there.
  command.addHelpText('after', ({ error }) => {
    // The program's own help says Environment and Exit codes for every command in `more`; and
    // bare `plantstore` (help as an error) gets a short usage instead (cli.ts), nothing after it.
    const root = command.parent === null;
    if (root && error) return '';
    const sections = [...(extras.more ?? []), ...(root ? [] : concernSections(command))];
    return ['', 'Examples:', ...examples, ...sections.flatMap((section) => ['', section]), '', LEARN_MORE].join('\n');
  });
  return command;
}

/** Environment and Exit codes for one command: what its flags and the globals it reads name, and what it declared. */
function concernSections(command: Command): string[] {
  const leaves = command.commands.length === 0 ? [command] : command.commands.filter((sub) => concernsFor(sub) !== undefined);
  const declared = leaves.map(concernsFor).filter((concerns): concerns is Concerns => concerns !== undefined);
  if (declared.length === 0) return [];
  const rows: Array<readonly [string, string]> = [];
  const add = (row: readonly [string, string] | undefined): void => {
    if (row !== undefined && !rows.some(([name]) => name === row[0])) rows.push(row);
  };
  const named = new Set(declared.flatMap((concerns) => concerns.variables ?? []));
  for (const row of VARIABLES_FIRST) if (named.has(row[0])) add(row);
  // An option's variable is named beside it, in the Options: listed again here it was half of delete's help.
  // Only a variable to use instead of its option (a token the sandbox takes, which ps would show) keeps its row.
  const options = leaves.flatMap((leaf) => [...leaf.options, ...globalOptionsFor(leaf)]);
  for (const option of options) if (flagOf(option)?.spec.preferEnv) add(flagOf(option)?.environmentHelp());
  for (const row of VARIABLES_LAST) if (named.has(row[0])) add(row);
  const besideOptions = options.some((option) => !flagOf(option)?.spec.preferEnv && flagOf(option)?.environmentHelp() !== undefined);
  const codes = new Set(declared.flatMap((concerns) => concerns.exits));
  const ok = declared.length === 1 ? declared[0]?.ok : undefined;
  const note = declared.length === 1 ? declared[0]?.exitsNote : undefined;
  const exits = EXIT_CODE_HELP.filter(([code]) => codes.has(code)).map(([code, meaning]) =>
    wrap(`  ${String(code).padStart(3)}  `, code === 0 ? (ok ?? 'success') : meaning),
  );
  const sections = [[note === undefined ? 'Exit codes:' : `Exit codes (${note}):`, ...exits].join('\n')];
  if (rows.length === 0 && !besideOptions) return sections;
  const width = Math.max(0, ...rows.map(([name]) => name.length)) + 2;
  const listed = rows.map(([name, meaning]) => wrap(`  ${name.padEnd(width)}`, meaning));
  const beside = besideOptions ? [`  ${rows.length === 0 ? 'each' : 'and each'} option's variable, named beside it above`] : [];
  return [['Environment:', ...listed, ...beside].join('\n'), ...sections];
}

function concernsFor(command: Command): Concerns | undefined {
  return concernsOf.get(command);
}

/** `lead` then `text`, wrapped at HELP_WIDTH with the text's first column kept. */
export function wrap(lead: string, text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && lead.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((text, index) => `${index === 0 ? lead : ' '.repeat(lead.length)}${text}`).join('\n');
}
