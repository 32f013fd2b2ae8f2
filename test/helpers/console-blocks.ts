// The shell sessions the README and docs/ show, as test cases (after the `trycmd` crate and
// Rust's doctests): a ```console block holds commands, each on a line starting with `$ `, and
// after each the exact lines it prints (stdout and stderr, as a terminal interleaves them).
// `[exit N]` after the output says how it ends (0 when left out). In an expected line, `…`
// stands for any text (a duration, a port). A block fenced ```sh is shown, not run: the few
// examples that cannot run in the suite (a server left running, a CI system's syntax) use it.
// A block fenced ```console tty shows what a terminal shows (the ✓ marks): it runs on a
// pseudo-terminal, without color. A line `<!-- setup: COMMAND -->` (not shown on the rendered
// page) runs COMMAND where it stands, for an example that needs what the page sets up later
// (the opening example, before the quick start): its output is not compared, and it must exit 0.

export interface ShownCommand {
  /** The command line, without its `$ `. */
  command: string;
  /** The lines it prints, as shown. */
  output: string[];
  exit: number;
  /** Where it stands in its file, for a failure's message. */
  line: number;
  /** Run on a terminal (the block is fenced ```console tty). */
  tty: boolean;
  /** A setup step the page does not show: its output is not compared. */
  setup?: true;
}

const FENCE = /^```console( tty)?\s*$/;
const END = /^```\s*$/;
const EXIT = /^\[exit (\d+)\]$/;
const SETUP = /^<!-- setup: (.+) -->$/;

/** Every command of every ```console block in `markdown`, in order. */
export function shownCommands(markdown: string): ShownCommand[] {
  const commands: ShownCommand[] = [];
  let inBlock = false;
  let tty = false;
  let current: ShownCommand | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (!inBlock) {
      const setup = SETUP.exec(text)?.[1];
      if (setup !== undefined) commands.push({ command: setup, output: [], exit: 0, line: index + 1, tty: false, setup: true });
      const fence = FENCE.exec(text);
      inBlock = fence !== null;
      tty = fence?.[1] !== undefined;
      return;
    }
    if (END.test(text)) {
      inBlock = false;
      current = undefined;
      return;
    }
    if (text.startsWith('$ ')) {
      current = { command: text.slice(2), output: [], exit: 0, line: index + 1, tty };
      commands.push(current);
      return;
    }
    if (current === undefined) throw new Error(`line ${index + 1}: a console block must start with a "$ " command`);
    const exit = EXIT.exec(text);
    if (exit) current.exit = Number(exit[1]);
    else current.output.push(text);
  });
  if (inBlock) throw new Error('a console block is not closed');
  return commands;
}

/** Whether `actual` is `expected`, line for line, `…` in an expected line matching any text. */
export function matchesShown(expected: readonly string[], actual: readonly string[]): boolean {
  if (expected.length !== actual.length) return false;
  return expected.every((line, i) => lineMatcher(line).test(actual[i] as string));
}

function lineMatcher(line: string): RegExp {
  const parts = line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}
