import type { Context } from '../context.js';

/** A success line on stderr (✓ …): what --quiet silences. */
export function done(ctx: Context, quiet: boolean, text: string): void {
  if (!quiet) ctx.io.err(`${ctx.io.errStyle().green('✓')} ${text}`);
}
