import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { IdList } from '../ids/list.js';
import { parsePlantIds } from '../ids/parse.js';
import { readIdsFromStream } from '../ids/stdin.js';
import { type IdValues, parseIdValuePairs, readIdValuesFromStream, type ValueWords } from '../ids/values.js';
import { shown } from '../text/shown.js';
import { SHARD } from './batch-flags.js';
import { describeShard, idsOfShard, type Shard } from './shard.js';

/** The ids this run is for, and how many ids of its input its shard left to the other shards. */
export interface RunIds {
  ids: IdList;
  otherShards: number;
  /** Each id's value, for an operation whose ids carry one (Operation.value); its shard's ids among them. */
  values?: ReadonlyMap<string, string>;
}

/**
 * The ids this run is for: read and checked, then its shard's part. Undefined, said in one line
 * on stderr, when there is nothing to do, which is not a failure: a nightly job whose list came
 * out empty (nothing on stdout, no JSON objects: there is no id to report; no token or server needed).
 */
export async function idsOfRun(
  opts: { ids: string[]; stdin: boolean; shard?: Shard | undefined; shardSource?: string | undefined },
  words: { verb: string; command: string },
  ctx: Context,
  value?: { name: string },
): Promise<RunIds | undefined> {
  const { verb } = words;
  const paired = value === undefined ? undefined : await readIdValues(opts, { name: value.name, command: words.command }, ctx);
  const given = paired?.ids ?? (await readIds(opts, words.command, ctx));
  const values = paired === undefined ? {} : { values: paired.values };
  if (given.size === 0) {
    ctx.io.err(`no plant ids: nothing to ${verb}`);
    return undefined;
  }
  // A shard is a whole run over its part: everything after (journal, guard, pace, budgets) sees only these ids.
  if (opts.shard === undefined) return { ids: given, otherShards: 0, ...values };
  const ids = idsOfShard(given, opts.shard);
  // Typed on the command line, the shard is the user's own choice; from anywhere else, a leftover that is said aloud.
  const implicit = opts.shardSource !== undefined && opts.shardSource !== SHARD.long;
  if (ids.size === 0) {
    const from = implicit ? ` (the shard comes from ${shown(opts.shardSource as string)})` : '';
    ctx.io.err(`no plant ids in shard ${describeShard(opts.shard)} of the ${given.size} given${from}: nothing to ${verb}`);
    return undefined;
  }
  // A shard nobody typed (a variable left from an earlier step, a profile) narrows the job: said before anything is sent.
  if (implicit) ctx.io.err(shardNote(opts.shard, opts.shardSource as string, ids.size, given.size));
  return { ids, otherShards: given.size - ids.size, ...values };
}

/** `note: shard 1/4 from PLANTSTORE_SHARD: this run takes 3 of the 12 ids given and leaves 9 to other shards; …` */
function shardNote(part: Shard, source: string, mine: number, given: number): string {
  const undo = /^[A-Z][A-Z0-9_]*$/.test(source) ? `unset ${source}` : `remove the shard from ${shown(source)}`;
  return `note: shard ${describeShard(part)} from ${shown(source)}: this run takes ${mine} of the ${given} ids given and leaves ${given - mine} to other shards; to send them all, ${undo}`;
}

/** Ids that each carry a value: pairs on the command line, `id<TAB>value` lines on standard input. */
async function readIdValues(opts: { ids: string[]; stdin: boolean }, words: ValueWords, ctx: Context): Promise<IdValues> {
  if (fromStdin(opts, words.command, ctx)) return readIdValuesFromStream(ctx.stdin, words, ctx.signal);
  if (opts.ids.length === 0) {
    throw new UsageError(
      `no plant id given: try plantstore ${words.command} 42 <${words.name}>, or pipe id<TAB>${words.name} lines to plantstore ${words.command} --stdin`,
    );
  }
  return parseIdValuePairs(opts.ids, words);
}

/** Whether the ids come from standard input (--stdin, or `-` alone), checked first: not both, and not a directory. */
function fromStdin(opts: { ids: string[]; stdin: boolean }, command: string, ctx: Context): boolean {
  const dash = opts.ids.length === 1 && opts.ids[0] === '-';
  if (!opts.stdin && !dash) return false;
  if (opts.ids.length > 0 && !dash) throw new UsageError('give ids as arguments or with --stdin, not both');
  if (ctx.stdin.isDirectory?.()) {
    throw new UsageError(
      `standard input is a directory, not a list of plant ids: redirect a file, as in plantstore ${command} --stdin < ids.txt`,
    );
  }
  if (ctx.io.stdinIsTTY) ctx.io.err('Reading plant ids from standard input; end with Ctrl-D.');
  return true;
}

/** A batch's ids, from the command line or standard input, every one checked before anything is sent. */
async function readIds(opts: { ids: string[]; stdin: boolean }, command: string, ctx: Context): Promise<IdList> {
  if (fromStdin(opts, command, ctx)) return readIdsFromStream(ctx.stdin, ctx.signal);
  if (opts.ids.length === 0)
    throw new UsageError(`no plant id given: try plantstore ${command} 42, or pipe ids to plantstore ${command} --stdin`);
  return parsePlantIds(opts.ids);
}
