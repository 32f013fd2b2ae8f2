/**
 * A token command line, split into words as a POSIX shell splits them, but never run
 * through a shell: the words go straight to the program. The token comes from the
 * user's own config, so it must mean the same on every machine: no variable, no glob,
 * no tilde, no pipe, whatever the shell and the current folder.
 *
 * A character that a shell would act on (`|`, `$HOME`, `*`, a leading `~`) is refused
 * when it stands unquoted, rather than passed on literally: `pass show x | head -1`
 * would otherwise run `pass` with the words `|`, `head`, `-1`, and fail in a way that
 * points nowhere near the cause. Quoted, it is an ordinary character.
 */

/** What is wrong with a command line; the caller names the command and picks the error class. */
export class CommandLineProblem extends Error {}

// Outside quotes: each would make a shell pipe, redirect, run in the background, substitute or group.
const SHELL_OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`']);
// Outside quotes: each would make a shell expand the word into file names.
const GLOBS = new Set(['*', '?', '[']);
// At the start of an unquoted word: a home folder, or a comment to the end of the line.
const WORD_START = new Set(['~', '#']);
const BLANKS = new Set([' ', '\t']);
// Inside double quotes a backslash escapes only these (POSIX 2.2.3); before anything else it stays.
const DOUBLE_QUOTE_ESCAPES = new Set(['"', '\\', '$', '`', '\n']);

const PIPE_HINT = "quote it, or write sh -c '…' to run the command through a shell";

export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once anything of it is seen, even an empty pair of quotes: '' is one empty word.
  let inWord = false;
  let i = 0;
  const end = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  while (i < line.length) {
    const char = line[i] as string;
    if (BLANKS.has(char)) {
      end();
      i += 1;
    } else if (char === '\n') {
      // A shell would end the command there and run what follows as another one.
      throw new CommandLineProblem(`a line break outside quotes would end the command in a shell; write it on one line, or ${PIPE_HINT}`);
    } else if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new CommandLineProblem("a single quote is never closed; close it, or write \\' for a literal quote");
      word += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (char === '"') {
      const [text, next] = doubleQuoted(line, i + 1);
      word += text;
      inWord = true;
      i = next;
    } else if (char === '\\') {
      const escaped = line[i + 1];
      if (escaped === undefined) throw new CommandLineProblem('it ends with a lone backslash; remove it, or quote it');
      // Backslash-newline joins two lines into one, as in a shell; elsewhere the character is taken as is.
      if (escaped !== '\n') {
        word += escaped;
        inWord = true;
      }
      i += 2;
    } else {
      refuseUnquoted(char, inWord);
      word += char;
      inWord = true;
      i += 1;
    }
  }
  end();
  if (words.length === 0) throw new CommandLineProblem('it is empty; give the command that prints the token');
  // '' is a word, but no program: spawn would refuse it with a TypeError, not an error the user can act on.
  if (words[0] === '') throw new CommandLineProblem("its first word, the program's name, is empty; give the command that prints the token");
  return words;
}

function doubleQuoted(line: string, start: number): [string, number] {
  let text = '';
  let i = start;
  while (i < line.length) {
    const char = line[i] as string;
    if (char === '"') return [text, i + 1];
    if (char === '\\' && i + 1 < line.length && DOUBLE_QUOTE_ESCAPES.has(line[i + 1] as string)) {
      if (line[i + 1] !== '\n') text += line[i + 1];
      i += 2;
      continue;
    }
    if (char === '$' || char === '`') {
      throw new CommandLineProblem(`a shell would expand the ${char} inside double quotes; write \\${char}, or ${PIPE_HINT}`);
    }
    text += char;
    i += 1;
  }
  throw new CommandLineProblem('a double quote is never closed; close it, or write \\" for a literal quote');
}

function refuseUnquoted(char: string, inWord: boolean): void {
  if (SHELL_OPERATORS.has(char)) {
    throw new CommandLineProblem(`it is not run through a shell, so an unquoted ${char} means nothing; ${PIPE_HINT}`);
  }
  if (GLOBS.has(char)) {
    throw new CommandLineProblem(`an unquoted ${char} would match file names in a shell, and is not expanded here; quote it`);
  }
  if (!inWord && WORD_START.has(char)) {
    const meaning = char === '~' ? 'write the full path of the home folder' : 'comments are not allowed';
    throw new CommandLineProblem(`a word begins with an unquoted ${char}, which a shell would expand; ${meaning}, or quote it`);
  }
}

// Words any shell reads as they are; anything else is shown in single quotes.
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The words written back as one command line that splitWords reads as the same words:
 * how an error names the command. The caller makes it safe for a terminal (shown()).
 */
export function joinWords(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}
