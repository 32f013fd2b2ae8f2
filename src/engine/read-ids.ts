import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { IdList } from '../ids/list.js';
import { parsePlantIds } from '../ids/parse.js';
import { readIdsFromStream } from '../ids/stdin.js';
import { describeShard, idsOfShard, type Shard } from './shard.js';

/**
 * The ids this run is for: read and checked, then its shard's part. Undefined, said in one line
 * on stderr, when there is nothing to do, which is not a failure: a nightly job whose list came
 * out empty (nothing on stdout, no JSON objects: there is no id to report; no token or server needed).
 */
export async function idsOfRun(
  opts: { ids: string[]; stdin: boolean; shard?: Shard | undefined },
  verb: string,
  ctx: Context,
): Promise<IdList | undefined> {
  const given = await readIds(opts, ctx);
  if (given.size === 0) {
    ctx.io.err(`no plant ids: nothing to ${verb}`);
    return undefined;
  }
  // A shard is a whole run over its part: everything after (journal, guard, pace, budgets) sees only these ids.
  if (opts.shard === undefined) return given;
  const ids = idsOfShard(given, opts.shard);
  if (ids.size > 0) return ids;
  ctx.io.err(`no plant ids in shard ${describeShard(opts.shard)} of the ${given.size} given: nothing to ${verb}`);
  return undefined;
}

/** A batch's ids, from the command line or standard input, every one checked before anything is sent. */
async function readIds(opts: { ids: string[]; stdin: boolean }, ctx: Context): Promise<IdList> {
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
