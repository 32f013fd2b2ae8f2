import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import type { AnyFlag, FlagReader } from '../flags/flag.js';
import { readFlags } from '../flags/read.js';

/** How a command hands its exit code back to runCli. */
export type Finish = (exit: ExitCode) => void;

/**
 * A commander action that reads the command's flags (those it declares in `F`)
 * and its arguments, runs, and hands back the exit code.
 */
export function action<F extends AnyFlag, A extends unknown[]>(
  ctx: Context,
  finish: Finish,
  run: (flags: FlagReader<F>, ...args: A) => Promise<ExitCode>,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    // Commander passes the arguments, then the options object, then the command itself.
    const command = args[args.length - 1] as Command;
    finish(await run(readFlags<F>(command, ctx), ...(args.slice(0, -2) as A)));
  };
}
