import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { IdList } from '../ids/list.js';
import { parsePlantIds } from '../ids/parse.js';
import { readIdsFromStream } from '../ids/stdin.js';

/** A batch's ids, from the command line or standard input, every one checked before anything is sent. */
export async function readIds(opts: { ids: string[]; stdin: boolean }, ctx: Context): Promise<IdList> {
  const dash = opts.ids.length === 1 && opts.ids[0] === '-';
  if (opts.stdin || dash) {
    if (opts.ids.length > 0 && !dash) throw new UsageError('give ids as arguments or with --stdin, not both');
    if (ctx.stdin.isDirectory?.()) {
      throw new UsageError(
        'standard input is a directory, not a list of plant ids: redirect a file, as in plantstore delete --stdin < ids.txt',
      );
    }
    if (ctx.io.stdinIsTTY) ctx.io.err('Reading plant ids from standard input; end with Ctrl-D.');
    return readIdsFromStream(ctx.stdin, ctx.signal);
  }
  if (opts.ids.length === 0) throw new UsageError('no plant id given: try plantstore delete 42, or pipe ids to plantstore delete --stdin');
  return parsePlantIds(opts.ids);
}
