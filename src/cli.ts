import type { EventEmitter } from 'node:events';
import { Command, CommanderError } from 'commander';
import { type AuthSeams, authCommand } from './commands/auth/command.js';
import type { VerbSeams } from './commands/batch-command.js';
import { completionCommand } from './commands/completion/command.js';
import type { CompletionOptions } from './commands/completion/flags.js';
import { type ConfigSeams, configCommand } from './commands/config/command.js';
import { deleteCommand } from './commands/delete/command.js';
import { fatalFieldsOf as declaredFatalFields, type FatalFields } from './commands/fatal-fields.js';
import { environmentHelp, exitCodeHelp, helpCommand } from './commands/help/command.js';
import { documented, globalOptionsFor, HELP_WIDTH } from './commands/help/documented.js';
import { type JournalSeams, journalCommand } from './commands/journal/command.js';
import { sandboxCommand } from './commands/sandbox/command.js';
import type { SandboxOptions } from './commands/sandbox/flags.js';
import type { Context } from './context.js';
import { Exit, type ExitCode, UsageError } from './errors.js';
import { COLOR, GLOBAL_FLAGS } from './flags/global.js';
import { readFlags } from './flags/read.js';
import { argvWantsJson } from './ui/fatal.js';

/** What a run got as far as: the command commander dispatched to, once it did. */
export interface Reached {
  command?: string;
  /** What that command adds to the JSON object of a failure that stopped it, as it declared (commands/fatal-fields.ts). */
  fatalFields?: FatalFields;
}

/**
 * Stand-ins for the commands' run functions: a test of argv captures the options and runs nothing.
 * A batch command's is under its name (VerbSeams), so a new verb adds nothing here.
 */
export interface Seams extends AuthSeams, ConfigSeams, JournalSeams, VerbSeams {
  completion?: (opts: CompletionOptions, ctx: Context) => Promise<ExitCode>;
  sandbox?: (opts: SandboxOptions, ctx: Context) => Promise<ExitCode>;
}

/** Parses argv and runs one command. */
export async function runCli(argv: readonly string[], ctx: Context, reached: Reached = {}, seams: Seams = {}): Promise<ExitCode> {
  let exit: ExitCode = Exit.ok;
  const program = buildProgram(
    ctx,
    (run) => {
      exit = run;
    },
    seams,
  );
  // Hints under npx name these commands, as the program has them, not a list kept apart.
  ctx.io.nameCommands(program.commands.map((command) => command.name()));
  program.hook('preSubcommand', (_program, command) => {
    reached.command = command.name();
    reached.fatalFields = declaredFatalFields(command);
  });
  // The command being parsed, so a mistyped flag points at that command's own help.
  const path: string[] = [];
  const follow = (command: Command): void => {
    if (command.commands.length === 0) return;
    command.hook('preSubcommand', (_parent, sub) => {
      path.push(sub.name());
    });
    command.commands.forEach(follow);
  };
  follow(program);
  if (argvWantsJson(argv)) {
    // Ahead of commander's own --version listener, which prints the bare version. A Command is
    // an EventEmitter (commander documents on() as such), though its types declare only on().
    (program as unknown as EventEmitter).prependListener('option:version', () => {
      ctx.io.out(JSON.stringify({ version: ctx.version, node: process.version }));
      throw new CommanderError(0, 'commander.version', ctx.version);
    });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version were printed as asked for (`--help`, `help [command]`, `--version`).
    if (error.exitCode === 0) return Exit.ok;
    // `plantstore` or `plantstore auth` alone: the help went to stderr; say what is missing.
    if (error.code === 'commander.help') throw new UsageError('a command is missing: pick one of those above');
    throw new UsageError(`${commanderMessage(error.message)}; see ${['plantstore', ...path].join(' ')} --help`);
  }
  return exit;
}

/** The fields a command adds to the JSON object of a failure that stopped it (see ui/fatal.ts). */
export function fatalFieldsOf(reached: Reached): FatalFields {
  return reached.fatalFields ?? {};
}

/** The commands, one item each, and where the rest is: wrapped to the help's width, as --help is. */
function shortUsage(program: Command): string {
  const commands = program.commands.filter((command) => command.name() !== 'help');
  const help = program.createHelp();
  help.prepareContext({ helpWidth: HELP_WIDTH });
  const termWidth = Math.max(...commands.map((command) => command.name().length));
  return [
    'Usage: plantstore [options] <command>',
    '',
    'Commands:',
    ...commands.map((command) =>
      help.formatItem(command.name(), termWidth, command.summary() || command.description().split('\n')[0] || '', help),
    ),
    '',
    help.boxWrap(
      'Run plantstore help <command> for a command, or plantstore --help for everything: options, environment, exit codes.',
      HELP_WIDTH,
    ),
    '',
  ].join('\n');
}

// "error: unknown option '--jsn'\n(Did you mean --json?)" -> "unknown option '--jsn' (did you mean --json?)"
function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean/, ' (did you mean')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The program: its own options (flags/global.ts) and one command per folder in
 * src/commands, each of which declares its options and the global ones it reads.
 */
export function buildProgram(ctx: Context, finish: (exit: ExitCode) => void, seams: Seams = {}): Command {
  const program = new Command('plantstore')
    .description('Command-line client for the Plant Store service.')
    .version(ctx.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.outHelp(text.replace(/\n$/, '')),
      writeErr: (text) => ctx.io.err(text.replace(/\n$/, '')),
      // Errors are rethrown to main, which prints them once, in one line (or as JSON).
      outputError: () => {},
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
    })
    // Inherited by every command created below.
    .configureHelp({ showGlobalOptions: true, visibleGlobalOptions: globalOptionsFor })
    // --no-color takes effect before the command prints anything.
    .hook('preAction', (_program, command) => {
      if (!readFlags<typeof COLOR>(command, ctx).value(COLOR)) ctx.io.disableColor();
    });
  for (const flag of GLOBAL_FLAGS) program.addOption(flag.option());

  // Each is created with program.command(), so it inherits the settings above.
  deleteCommand(program, ctx, finish, seams);
  authCommand(program, ctx, finish, seams);
  configCommand(program, ctx, finish, seams);
  journalCommand(program, ctx, finish, seams);
  completionCommand(program, ctx, finish, seams.completion);
  sandboxCommand(program, ctx, finish, seams.sandbox);
  helpCommand(program, finish);

  // Bare `plantstore` is asked for help as an error: a short usage that fits a screen, as gh and
  // cargo print, not the whole help; --help and `plantstore help` still give it all.
  const fullHelp = program.helpInformation.bind(program);
  program.helpInformation = (context) => (context?.error ? shortUsage(program) : fullHelp(context));

  return documented(program, {
    examples: [
      ['plantstore config set base-url https://api.example.com/v1'],
      ['echo "$TOKEN" | plantstore auth login --with-token'],
      ['plantstore delete 42 43'],
      ['plantstore --json delete --stdin < dead-plants.txt'],
      ['plantstore sandbox', 'a local Plant Store to try it on'],
    ],
    more: [environmentHelp(program), exitCodeHelp()],
  });
}
