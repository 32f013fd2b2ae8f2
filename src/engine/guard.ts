// The guard against the wrong list or the wrong target, before anything is sent: --max-deletes
// refuses a batch larger than the limit the user set, and at a terminal a batch of more than
// ASK_ABOVE ids is sent only once its count is typed back (as kubectl `delete -i` and
// terraform's "Only 'yes' will be accepted" do). Either refusal is exit 9, with nothing sent.

import type { Target } from '../config/resolve.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode } from '../errors.js';
import type { Parse, Sourced } from '../flags/flag.js';
import { wholeNumber } from '../flags/kinds.js';
import type { IdList } from '../ids/list.js';
import { askAtTerminal } from '../ui/ask-terminal.js';
import type { OperationWords } from './operation.js';
import { describeShard, type Shard } from './shard.js';

/** A batch of more than this many ids is asked about at a terminal; this many or fewer, never. */
export const ASK_ABOVE = 100;

/** --max-deletes, the profile key max-deletes: 0 refuses any batch. */
export const maxDeletes: Parse<number> = wholeNumber(0, Number.MAX_SAFE_INTEGER);

/** What this run would send: how many, and the first and last of them, in input order. */
export interface ToSend {
  count: number;
  first: string | undefined;
  last: string | undefined;
}

/** The ids left once those an earlier run finished (`done`, from the journal) are left out. */
export function idsToSend(ids: IdList, done: (id: string) => boolean = () => false): ToSend {
  let count = 0;
  let first: string | undefined;
  let last: string | undefined;
  for (const id of ids) {
    if (done(id)) continue;
    count++;
    first ??= id;
    last = id;
  }
  return { count, first, last };
}

export interface GuardSettings {
  /** --max-deletes with where it came from, or undefined when none is set. */
  maxDeletes: Sourced<number> | undefined;
  /** --yes: the question at a terminal is not asked. */
  yes: boolean;
  /** --shard: the count is this shard's, and the way out is not to split the job again. */
  shard?: Shard | undefined;
}

/** ` (shard 2/4)` after a count of a shard's ids; nothing without --shard. */
const ofShard = (guard: GuardSettings): string => (guard.shard === undefined ? '' : ` (shard ${describeShard(guard.shard)})`);

const plants = (n: number, words: OperationWords): string => `${n} plant${n === 1 ? '' : 's'} to ${words.verb}`;

/** The line --max-deletes refuses a batch with, or undefined when it is within the limit. */
export function overLimit(toSend: ToSend, guard: GuardSettings, target: Target, words: OperationWords): string | undefined {
  const limit = guard.maxDeletes;
  if (limit === undefined || toSend.count <= limit.value) return undefined;
  const from = limit.source === '--max-deletes' ? '' : ` (from ${limit.source})`;
  return (
    `refusing: ${plants(toSend.count, words)}${ofShard(guard)} at ${target.baseUrl} (profile '${target.profile}') is more than ` +
    `--max-deletes ${limit.value}${from}; nothing sent. Check the list and the profile; if both are right, ` +
    `give --max-deletes ${toSend.count}${guard.shard === undefined ? ', or split the job with --shard' : ''}`
  );
}

/**
 * Refuses the batch (exit 9, one line said) or lets it go (undefined): first the limit, then, at
 * a terminal (stdin or stderr one) and above ASK_ABOVE ids, the question, unless --yes.
 */
export async function guardBatch(
  count: () => ToSend,
  guard: GuardSettings,
  target: Target,
  words: OperationWords,
  ctx: Context,
): Promise<ExitCode | undefined> {
  const atTerminal = ctx.io.stdinIsTTY || ctx.io.stderrIsTTY;
  // Nothing to check, nothing to ask: a CI run without --max-deletes does not walk its million ids for it.
  if (guard.maxDeletes === undefined && (guard.yes || !atTerminal)) return undefined;
  const toSend = count();
  const refused = overLimit(toSend, guard, target, words);
  if (refused !== undefined) {
    ctx.io.err(refused);
    return Exit.refused;
  }
  if (guard.yes || !atTerminal || toSend.count <= ASK_ABOVE) return undefined;
  const question =
    `About to ${words.verb} ${toSend.count} plants${ofShard(guard)} at ${target.baseUrl} (profile '${target.profile}'): ` +
    `${toSend.first} … ${toSend.last}.\nType ${toSend.count} to go on, anything else to stop: `;
  const answer = await askAtTerminal(question, ctx.signal);
  if (answer?.trim() === String(toSend.count)) return undefined;
  const why =
    answer === undefined
      ? 'no answer (end of input, or no terminal to read one from)'
      : `the answer was ${JSON.stringify(answer.trim()).slice(0, 40)}, not ${toSend.count}`;
  ctx.io.err(`nothing sent${ofShard(guard)}: ${why}; to send without asking, add --yes`);
  return Exit.refused;
}
