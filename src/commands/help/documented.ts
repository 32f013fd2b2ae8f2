import type { Command, Option } from 'commander';
import type { AnyFlag } from '../../flags/flag.js';

/** One width everywhere: `--help` prints the text captured at build time, so `help` must match it. */
export const HELP_WIDTH = 80;

const README_URL = 'https://www.npmjs.com/package/plantstore';
const LEARN_MORE = [
  'Learn more:',
  '  Use plantstore help <command> for the help of any command.',
  `  Read the README at ${README_URL}`,
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
}

/** gh's help, after commander's: examples, anything more, then where to read more. */
export function documented(command: Command, extras: HelpExtras): Command {
  if (extras.globals !== undefined) {
    globalsOf.set(command, new Set(extras.globals.map((flag) => flag.long)));
  }
  // As gh writes them: a comment goes on its own line, above its command.
  const examples = extras.examples.flatMap(([line, comment]) => [...(comment ? [`  # ${comment}`] : []), `  $ ${line}`]);
  command.addHelpText(
    'after',
    ['', 'Examples:', ...examples, ...(extras.more ?? []).flatMap((section) => ['', section]), '', LEARN_MORE].join('\n'),
  );
  return command;
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
