import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { Exit, type ExitCode, UsageError } from '../../errors.js';
import { GLOBAL_FLAGS } from '../../flags/global.js';
import { action, type Finish } from '../finish.js';
import { documented, globalOptionsFor } from '../help/documented.js';
import { SANDBOX_FLAGS, SANDBOX_GLOBALS, SANDBOX_TOKEN_ENV, type SandboxFlags, type SandboxOptions, sandboxOptions } from './flags.js';
import { runSandbox } from './run.js';

/**
 * The sandbox is the server, so the client's options (`--timeout`, `--json`, `--base-url`…), which
 * commander accepts before or after any command, would be taken and ignored: refused instead, as
 * a typo would be. Only those typed count; a variable such as PLANTSTORE_TIMEOUT is the client's.
 */
function refuseClientFlags(program: Command, command: Command): void {
  const own = new Set<string>([...SANDBOX_FLAGS, ...SANDBOX_GLOBALS].map((flag) => flag.long));
  for (const flag of GLOBAL_FLAGS) {
    if (own.has(flag.long) || program.getOptionValueSource(flag.key) !== 'cli') continue;
    // The commands that read it, as the program has them: a new verb is named without an edit here.
    const readers = program.commands.filter((other) => globalOptionsFor(other).some((option) => option.long === flag.long));
    const names = readers.map((other) => other.name()).join(', ');
    throw new UsageError(
      `the ${command.name()} does not take ${flag.long}, an option of the client's commands (${names}); see plantstore sandbox --help`,
    );
  }
}

/** Registers `sandbox`. `run` is the seam of gh's `newCmd…(f, runF)`: a test of argv passes its own and captures the options. */
export function sandboxCommand(
  program: Command,
  ctx: Context,
  finish: Finish,
  run: (opts: SandboxOptions, ctx: Context) => Promise<ExitCode> = runSandbox,
): Command {
  const command = program
    .command('sandbox')
    .description(
      'run a local Plant Store server for trying plantstore out; it answers an unknown plant with 400 and error 1 (so re-runs use --missing-error 1)',
    );
  for (const flag of SANDBOX_FLAGS) command.addOption(flag.option());
  command.action(
    action(ctx, finish, (flags: SandboxFlags) => {
      refuseClientFlags(program, command);
      return run(sandboxOptions(flags), ctx);
    }),
  );
  return documented(command, {
    globals: SANDBOX_GLOBALS,
    concerns: { variables: ['NO_COLOR, FORCE_COLOR'], exits: [Exit.ok, Exit.usage, Exit.config], ok: 'stopped (Ctrl-C or SIGTERM)' },
    examples: [
      ['plantstore sandbox', 'listens on http://127.0.0.1:8080, with plants 1..100'],
      ['plantstore sandbox --port 0 > sandbox.url &', 'a free port; the first line it prints is its base URL'],
      [`${SANDBOX_TOKEN_ENV}=$(openssl rand -hex 16) plantstore sandbox`, 'a token of your own, which ps does not show'],
      ['plantstore sandbox --plants 0', 'no plants: every delete is refused with a 400, to try failures'],
      ['plantstore sandbox --latency 50ms --jitter 20ms --capacity 16', 'a busy service: 30-70 ms an answer, 16 at once, the rest queued'],
      ['plantstore sandbox --fail 10% --rate 100/s', 'one request in ten answered 503, and 429 past 100 a second'],
      ['plantstore sandbox -q --port 0 > sandbox.url &', 'in the background, silent: only its URL, in sandbox.url'],
    ],
  });
}
