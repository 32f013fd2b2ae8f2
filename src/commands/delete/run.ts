import type { Context } from '../../context.js';
import { runBatch } from '../../engine/run-batch.js';
import type { ExitCode } from '../../errors.js';
import type { DeleteOptions } from './flags.js';
import { deleteOperation } from './operation.js';

/** Deletes each plant: a batch of the delete operation (engine/run-batch.ts). */
export function runDelete(opts: DeleteOptions, ctx: Context): Promise<ExitCode> {
  return runBatch(deleteOperation(opts.missing), opts, ctx);
}
