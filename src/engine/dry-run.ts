// `--dry-run`: every request that would be sent, exactly, with the token masked, and
// with --journal, the ids an earlier run finished, which would be skipped. Sends and writes nothing.

import type { JournalState } from '../batch/journal/index.js';
import { describeRate, type Rate } from '../batch/rate-limit.js';
import type { Target } from '../config/resolve.js';
import type { Context } from '../context.js';
import { Exit, type ExitCode } from '../errors.js';
import type { IdList } from '../ids/list.js';
import type { Operation } from './operation.js';
import type { OutputMode } from './report.js';

/** The journal, for a dry run: what it holds, and the ids the run would hold back (not-repeated.ts). */
export type JournalPlan = JournalState & { heldBack?(id: string): boolean };

export interface DryRun {
  ids: IdList;
  request: Operation<unknown>['request'];
  /** Each id's value, for an operation whose ids carry one. */
  values?: ReadonlyMap<string, string> | undefined;
  target: Target;
  rate: Rate | undefined;
  output: OutputMode;
  /**
   * The journal as it stands, when --journal names one; its done ids are skipped, and those it holds
   * back (`heldBack`: left in flight by an earlier run, of an operation that is not repeatable).
   */
  journal?: JournalPlan;
}

export async function printDryRun({ ids, request, values, target, rate, output, journal }: DryRun, ctx: Context): Promise<ExitCode> {
  let written = 0;
  let skipped = 0;
  for (const id of ids) {
    // A million lines into a slow reader: wait for it now and then instead of queuing them all.
    if (++written % 512 === 0) await ctx.io.backlog();
    if (journal?.isDone(id)) {
      skipped++;
      if (output.json) ctx.io.outJson(`{"id":${id},"dryRun":true,"skip":true,"journal":true}`);
      else ctx.io.out(`skip ${id}: already done (journal)`);
      continue;
    }
    if (journal?.heldBack?.(id)) {
      skipped++;
      if (output.json) ctx.io.outJson(`{"id":${id},"dryRun":true,"skip":true,"journal":true,"inFlight":true}`);
      else ctx.io.out(`skip ${id}: in flight when an earlier run stopped, and not repeatable (journal)`);
      continue;
    }
    const { method, path, body } = request(id, values?.get(id));
    const url = `${target.baseUrl}${path}`;
    // The body is the operation's JSON, written as it would be sent.
    const sent = body === undefined ? '' : ctx.io.mask(body);
    if (output.json) {
      const withBody = body === undefined ? '' : `,"body":${JSON.stringify(sent)}`;
      ctx.io.outJson(`{"id":${id},"dryRun":true,"method":"${method}","url":${JSON.stringify(ctx.io.mask(url))}${withBody}}`);
    } else ctx.io.out(`${method} ${url}${body === undefined ? '' : ` ${sent}`}  (Authorization: Bearer ***)`);
  }
  const pace = rate ? `; at most ${describeRate(rate)}` : '';
  const requests = ids.size - skipped;
  const skips = journal ? `, ${skipped} skipped (journal)` : '';
  ctx.io.err(`dry run: ${requests} request${requests === 1 ? '' : 's'} not sent${skips} (profile '${target.profile}'${pace})`);
  return Exit.ok;
}
