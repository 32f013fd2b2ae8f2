import { StringDecoder } from 'node:string_decoder';
import { untilAborted } from '../platform/stdin.js';
import { IdList } from './list.js';
import { invalidId, parsePlantId } from './parse.js';

// A valid id is at most 20 characters plus leading zeros; anything this long is
// not an id, and capping it keeps a newline-free stream from growing one string forever.
const MAX_TOKEN_CHARS = 1024;
// Where a token ends: whitespace (any, as in the argument list) or the start of a comment.
const TOKEN_END = /[\s#]/g;
const SPACE = /\s/;
const INTERRUPTED = 'interrupted while reading ids from standard input; nothing was sent';

/**
 * Reads plant ids from a stream such as stdin: separated by any whitespace,
 * `#` to end of line is a comment. Works chunk by chunk, so a million ids cost
 * the set of canonical ids and never the input text. Every id is checked like
 * an argument id, and repeats are dropped (first occurrence wins). `signal` (Ctrl-C,
 * SIGTERM) stops the read at once, even while it waits on a pipe that stays open
 * (`tail -f ids`): the ids are all read before any is sent, so nothing was.
 */
export async function readIdsFromStream(input: AsyncIterable<string | Buffer>, signal?: AbortSignal): Promise<IdList> {
  const ids = new IdList();
  const tokens = new Tokenizer((token, line) => ids.add(parseAt(token, line)));
  // StringDecoder keeps the bytes of a character split across chunks for the next chunk.
  const decoder = new StringDecoder('utf8');
  const chunks = untilAborted(input, signal && { signal, message: INTERRUPTED });
  for await (const chunk of chunks) {
    // A string chunk means the stream decodes itself; finish any bytes we were holding first.
    tokens.feed(typeof chunk === 'string' ? decoder.end() + chunk : decoder.write(chunk));
  }
  tokens.feed(decoder.end());
  tokens.end();
  // Empty is a list too: a nightly job with nothing to delete is not an error (the command says so).
  return ids;
}

/** Splits text fed in arbitrary pieces into tokens, tracking the line each one is on. */
class Tokenizer {
  private partial = '';
  private inComment = false;
  private line = 1;

  constructor(private readonly onToken: (token: string, line: number) => void) {}

  feed(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.inComment) {
        const newline = text.indexOf('\n', i);
        if (newline === -1) return;
        this.inComment = false;
        i = newline;
        continue;
      }
      const char = text[i] as string;
      if (char === '\n') {
        this.flush();
        this.line += 1;
        i += 1;
      } else if (char === '#') {
        this.flush();
        this.inComment = true;
        i += 1;
      } else if (SPACE.test(char)) {
        // Includes the \r of CRLF: it ends the token like any other space.
        this.flush();
        i += 1;
      } else {
        TOKEN_END.lastIndex = i;
        const end = TOKEN_END.exec(text)?.index ?? text.length;
        this.partial += text.slice(i, end);
        if (this.partial.length > MAX_TOKEN_CHARS) {
          throw invalidId(this.partial, lineOf(this.line), `too long (over ${MAX_TOKEN_CHARS} characters)`);
        }
        i = end;
      }
    }
  }

  /** The input is over: a last line without a newline still counts. */
  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.partial === '') return;
    const token = this.partial;
    this.partial = '';
    this.onToken(token, this.line);
  }
}

// parsePlantId's message names the token; the line number is what finds it in a file of a million.
function parseAt(token: string, line: number): string {
  return parsePlantId(token, lineOf(line));
}

function lineOf(line: number): string {
  return ` on line ${line} of standard input`;
}
