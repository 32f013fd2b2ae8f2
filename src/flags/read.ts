import type { Command } from 'commander';
import type { Context } from '../context.js';
import { type AnyFlag, FlagReader } from './flag.js';
import { PROFILE } from './global.js';

/**
 * The flags a command declared, as parsed for this run: its own and the program's,
 * then the environment, then the selected profile's settings.
 */
export function readFlags<F extends AnyFlag>(command: Command, ctx: Pick<Context, 'env' | 'config'>): FlagReader<F> {
  return flagReader<F>(command.optsWithGlobals(), ctx);
}

/** The same, from options already parsed. */
export function flagReader<F extends AnyFlag>(
  parsed: Readonly<Record<string, unknown>>,
  ctx: Pick<Context, 'env' | 'config'>,
): FlagReader<F> {
  const reader: FlagReader<F | typeof PROFILE> = new FlagReader({
    parsed,
    env: ctx.env,
    profile() {
      const name = reader.value(PROFILE);
      const config = ctx.config();
      return { settings: config.profile(name), source: `profile '${name}' in ${config.path}` };
    },
  });
  return reader;
}
