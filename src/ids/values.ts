// Ids that each carry a value, for an operation whose request needs one besides the id (a
// rename: the new name). On the command line, pairs: `42 Fern 43 Moss`. On standard input, one
// per line, `id<TAB>value`: the value is the rest of the line, spaces and `#` included, since a
// name may hold either; a line that starts with `#` is a comment, a blank line is skipped.
// Every pair is checked before anything is sent, as ids alone are.

import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors.js';
import { untilAborted } from '../platform/stdin.js';
import { truncate } from '../text/shown.js';
import { IdList } from './list.js';
import { parsePlantId } from './parse.js';

/** Ids in first-seen order, each with its value. */
export interface IdValues {
  ids: IdList;
  values: ReadonlyMap<string, string>;
}

/** What the value is called in messages ("name"), and the command, for the hint of a line without one. */
export interface ValueWords {
  name: string;
  command: string;
}

/** A line of standard input longer than this is not an id and a value: refused, not held forever. */
const MAX_LINE_CHARS = 64 * 1024;

/** `42 Fern 43 Moss`: an id, then its value, for each. */
export function parseIdValuePairs(args: readonly string[], words: ValueWords): IdValues {
  if (args.length % 2 !== 0) {
    throw new UsageError(
      `give each plant id with its ${words.name}: plantstore ${words.command} 42 <${words.name}> [43 <${words.name}> ...]`,
    );
  }
  const pairs = new Pairs(words);
  for (let i = 0; i < args.length; i += 2) pairs.add(parsePlantId(args[i] as string), args[i + 1] as string, '');
  return pairs.done();
}

/** `id<TAB>value` lines from a stream such as stdin, read chunk by chunk. */
export async function readIdValuesFromStream(
  input: AsyncIterable<string | Buffer>,
  words: ValueWords,
  signal?: AbortSignal,
): Promise<IdValues> {
  const pairs = new Pairs(words);
  const decoder = new StringDecoder('utf8');
  const chunks = untilAborted(input, signal && { signal, message: 'interrupted while reading ids from standard input; nothing was sent' });
  let partial = '';
  let line = 0;
  const take = (text: string): void => {
    line += 1;
    const where = ` on line ${line} of standard input`;
    const row = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (row.trim() === '' || row.trimStart().startsWith('#')) return;
    const tab = row.indexOf('\t');
    if (tab === -1) throw new UsageError(`no ${words.name}${where}: give one plant id and its ${words.name} a line, separated by a tab`);
    pairs.add(parsePlantId(row.slice(0, tab).trim(), where), row.slice(tab + 1), where);
  };
  for await (const chunk of chunks) {
    partial += typeof chunk === 'string' ? decoder.end() + chunk : decoder.write(chunk);
    let newline = partial.indexOf('\n');
    while (newline !== -1) {
      take(partial.slice(0, newline));
      partial = partial.slice(newline + 1);
      newline = partial.indexOf('\n');
    }
    if (partial.length > MAX_LINE_CHARS) throw new UsageError(`line ${line + 1} of standard input is over ${MAX_LINE_CHARS} characters`);
  }
  partial += decoder.end();
  if (partial !== '') take(partial);
  return pairs.done();
}

/** Pairs as they come: a repeat with the same value is dropped (first wins); with another value, nobody can tell which is meant. */
class Pairs {
  readonly #ids = new IdList();
  readonly #values = new Map<string, string>();

  constructor(private readonly words: ValueWords) {}

  add(id: string, value: string, where: string): void {
    if (value === '') throw new UsageError(`an empty ${this.words.name} for plant ${id}${where}`);
    const earlier = this.#values.get(id);
    if (earlier !== undefined && earlier !== value) {
      throw new UsageError(
        `plant ${id} is given twice${where}, with two ${this.words.name}s ('${truncate(earlier, 40)}', then '${truncate(value, 40)}'): give it once`,
      );
    }
    this.#ids.add(id);
    this.#values.set(id, value);
  }

  done(): IdValues {
    return { ids: this.#ids, values: this.#values };
  }
}
