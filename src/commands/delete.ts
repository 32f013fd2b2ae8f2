import type { Context } from '../context.js';
import { Exit, type ExitCode } from '../errors.js';
import { isVerbose, resolveNetwork, type GlobalOptions } from '../global-options.js';
import { parsePlantIds } from '../id.js';
import { createReporter } from '../output.js';
import { firstFailureExit, type DeleteResult } from '../result.js';
import { resolveTarget } from '../settings.js';

export interface DeleteOptions {
  ids: string[];
  global: GlobalOptions;
}

/** Deletes each plant in input order; the exit code is that of the first failing id. */
export async function runDelete(opts: DeleteOptions, ctx: Context): Promise<ExitCode> {
  // Every id is checked before anything is sent: a typo in the fifth id deletes nothing.
  const ids = parsePlantIds(opts.ids);
  const target = resolveTarget(opts.global, ctx.env, ctx.config);
  ctx.io.redact(target.token);
  const network = resolveNetwork(opts.global, ctx.env);
  const reporter = createReporter(ctx.io, opts.global);
  const api = await ctx.api({ target, network, verbose: isVerbose(opts.global, ctx.env) });
  const results: DeleteResult[] = [];
  try {
    for (const id of ids) {
      const result: DeleteResult = ctx.signal.aborted
        ? { id, deleted: false, status: null, error: null, message: 'not sent: interrupted before its turn', exit: Exit.interrupted, attempted: false }
        : await api.deletePlant(id, ctx.signal);
      results.push(result);
      reporter.result(result);
    }
  } finally {
    await api.close();
  }
  if (ctx.signal.aborted) {
    const deleted = results.filter((r) => r.deleted).map((r) => r.id);
    const notDeleted = results.filter((r) => !r.deleted).map((r) => r.id);
    ctx.io.err(`interrupted: deleted ${deleted.length} of ${ids.length}${listIds(deleted)}; not deleted: ${notDeleted.length}${listIds(notDeleted)}`);
    return Exit.interrupted;
  }
  return firstFailureExit(results);
}

/** A list of ids short enough for one line of a terminal. */
function listIds(ids: readonly string[], max = 20): string {
  if (ids.length === 0) return '';
  const shown = ids.slice(0, max).join(', ');
  return ` (${shown}${ids.length > max ? `, and ${ids.length - max} more` : ''})`;
}
