// What a page of the README or docs/ gives a reader to run, as test steps (after the `trycmd`
// crate and Rust's doctests), in the order the page has them: the docs test plays them in one
// shell per page, as a newcomer would type them one after another (test/e2e/docs.e2e.test.ts).
//
// - A ```console block holds commands, each on a line starting with `$ `, and after each the
//   exact lines it prints (stdout and stderr, as a terminal interleaves them). `[exit N]` after
//   the output says how it ends (0 when left out). In an expected line, `…` stands for any text
//   (a duration, a port). A block fenced ```console tty shows what a terminal shows (the ✓
//   marks): its commands run on a pseudo-terminal, without color.
// - A ```sh block shows commands, not their output: each runs, its output is not compared,
//   and it must exit 0, unless the comment that ends its last line ends with `(exit N)` or
//   `(exit N: why)`, as in `plantstore delete -5   # the sandbox has none (exit 1)`: then it
//   must exit N. The block is cut into commands by the shell's own grammar: lines are added to
//   a command until `sh -n` accepts it and it does not end in a `\`, so `case … esac` or a
//   `for` loop over several lines is one command. Here-documents are refused (sh -n accepts
//   `cat <<EOF` alone, so their body would be cut off).
// - `<!-- not run: REASON -->` on the line right before a fence: the block is not run. The
//   reason is required (a server left in the foreground, a tool the suite has not, the test
//   that runs it instead), and the comment must stand before a fence.
// - Other fences (yaml, json, text, bare ```) are not run; a ```bash, ```shell or ```zsh fence
//   is refused, so that no command hides from the run under another name.
// - A line `<!-- setup: COMMAND -->` (not shown on the rendered page) runs COMMAND where it
//   stands, for what a page assumes the reader has (a login, a list of ids): its output is not
//   compared, and it must exit 0. Prefer an example that stands on its own.
import { spawnSync } from 'node:child_process';

export interface ConsoleStep {
  kind: 'console';
  /** The command line, without its `$ `. */
  command: string;
  /** The lines it prints, as shown. */
  output: string[];
  exit: number;
  /** Where it stands in its file (1-based), for a failure's message. */
  line: number;
  /** Run on a terminal (the block is fenced ```console tty). */
  tty: boolean;
}

export interface ShStep {
  kind: 'sh';
  /** One command, possibly over several lines, as the block has it. */
  command: string;
  /** The exit code its trailing `(exit N)` comment announces; 0 without one. */
  exit: number;
  line: number;
}

export interface SetupStep {
  kind: 'setup';
  command: string;
  line: number;
}

export type PageStep = ConsoleStep | ShStep | SetupStep;

const FENCE = /^```(\S*)(?: (.*))?$/;
const END = /^```\s*$/;
const EXIT = /^\[exit (\d+)\]$/;
const SETUP = /^<!-- setup: (.+) -->$/;
const NOT_RUN = /^<!-- not run(.*)-->$/;
const NOT_RUN_REASON = /^: (\S.*\S) $/;
const EXIT_COMMENT = /\s#[^\n]*\(exit (\d+)(?::[^)]*)?\)\s*$/;
const HEREDOC = /<<-?\s*['"]?\w/;
/** Shell fences this reader would skip: a command in one would never be run. */
const OTHER_SHELLS = /^(bash|shell|zsh|shell-session|shellsession|terminal)$/;

/** Every step of `markdown`, in page order; throws on a block or comment it cannot read. */
export function pageSteps(markdown: string): PageStep[] {
  const lines = markdown.split('\n');
  const steps: PageStep[] = [];
  let notRun = false;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    const where = `line ${i + 1}`;
    const setup = SETUP.exec(text)?.[1];
    if (setup !== undefined) steps.push({ kind: 'setup', command: setup, line: i + 1 });
    const skip = NOT_RUN.exec(text);
    if (skip) {
      if (!NOT_RUN_REASON.test(skip[1] as string)) throw new Error(`${where}: say why the block is not run: <!-- not run: REASON -->`);
      if (!FENCE.test(lines[i + 1] ?? '')) throw new Error(`${where}: a not-run comment must stand right before a fence`);
      notRun = true;
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && END.test(line));
    if (end === -1) throw new Error(`${where}: a code block is not closed`);
    const body = lines.slice(i + 1, end);
    const language = fence[1];
    if (OTHER_SHELLS.test(language ?? ''))
      throw new Error(
        `${where}: fence a shell block \`\`\`sh (it runs) or \`\`\`console (it runs, its output compared), not \`\`\`${language}`,
      );
    if (!notRun && language === 'console') steps.push(...consoleSteps(body, i + 2, fence[2] === 'tty'));
    if (!notRun && language === 'sh') steps.push(...shSteps(body, i + 2));
    notRun = false;
    i = end;
  }
  return steps;
}

/** The commands of a console block whose first line is line `first` of the page. */
function consoleSteps(body: string[], first: number, tty: boolean): ConsoleStep[] {
  const steps: ConsoleStep[] = [];
  body.forEach((text, index) => {
    const line = first + index;
    if (text.startsWith('$ ')) {
      steps.push({ kind: 'console', command: text.slice(2), output: [], exit: 0, line, tty });
      return;
    }
    const current = steps.at(-1);
    if (current === undefined) throw new Error(`line ${line}: a console block must start with a "$ " command`);
    const exit = EXIT.exec(text);
    if (exit) current.exit = Number(exit[1]);
    else current.output.push(text);
  });
  return steps;
}

/** The commands of an sh block, cut where the shell's grammar says a command ends. */
function shSteps(body: string[], first: number): ShStep[] {
  const steps: ShStep[] = [];
  let start = 0;
  for (let end = 0; end < body.length; end++) {
    const last = body[end] as string;
    if (HEREDOC.test(last)) throw new Error(`line ${first + end}: here-documents are not cut into commands; write the file another way`);
    const command = body.slice(start, end + 1).join('\n');
    if (last.endsWith('\\') || !shellAccepts(command)) continue;
    if (!/^\s*(#.*)?$/.test(command.replace(/\n/g, ' ')))
      steps.push({ kind: 'sh', command, exit: Number(EXIT_COMMENT.exec(last)?.[1] ?? 0), line: first + start });
    start = end + 1;
  }
  if (start < body.length) throw new Error(`line ${first + start}: the shell cannot read this command (sh -n refuses it)`);
  return steps;
}

function shellAccepts(command: string): boolean {
  return spawnSync('sh', ['-n', '-c', command], { stdio: 'ignore' }).status === 0;
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
