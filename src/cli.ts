import { Command, CommanderError, Option } from 'commander';
import { runLogin, runLogout, runStatus, runToken } from './commands/auth.js';
import { type ConfigOptions, runConfig } from './commands/config.js';
import { runDelete } from './commands/delete.js';
import { DEFAULT_SANDBOX_TOKEN, runSandbox, SANDBOX_TOKEN_ENV } from './commands/sandbox.js';
import type { Context } from './context.js';
import { EXIT_CODE_HELP, Exit, type ExitCode, UsageError } from './errors.js';
import type { GlobalOptions } from './global-options.js';

/** Parses argv and runs one command. Commander wiring only: the work is in src/commands. */
export async function runCli(argv: readonly string[], ctx: Context): Promise<ExitCode> {
  let exit: ExitCode = Exit.ok;
  const program = buildProgram(ctx, (run) => {
    exit = run;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version were printed as asked for (`--help`, `help [command]`, `--version`).
    if (error.exitCode === 0) return Exit.ok;
    // `plantstore` or `plantstore auth` alone: the help went to stderr; say what is missing.
    if (error.code === 'commander.help') throw new UsageError('a command is missing: the help above lists them');
    throw new UsageError(`${commanderMessage(error.message)}; see plantstore --help`);
  }
  return exit;
}

// "error: unknown option '--jsn'\n(Did you mean --json?)" -> "unknown option '--jsn' (did you mean --json?)"
function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean/, ' (did you mean')
    .replace(/\s+/g, ' ')
    .trim();
}

function buildProgram(ctx: Context, finish: (exit: ExitCode) => void): Command {
  const program = new Command('plantstore')
    .description('Delete plants from a Plant Store service.')
    .version(ctx.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'use a named profile (env PLANTSTORE_PROFILE; default "default")')
    .option('--base-url <url>', "service base URL (env PLANTSTORE_BASE_URL; else the profile's base-url)")
    .option('--json', 'write JSON to stdout (one object per line)')
    .option('-q, --quiet', 'print nothing on success')
    .option('--no-color', 'never use color (also NO_COLOR, TERM=dumb)')
    .option('--timeout <seconds>', 'give up on an attempt after this long (env PLANTSTORE_TIMEOUT; default 30)')
    .option('--retries <n>', 'retries on refused/reset connections, timeouts, 429/502/503/504 (env PLANTSTORE_RETRIES; default 2)')
    .option('--max-retry-wait <seconds>', 'longest wait before a retry (env PLANTSTORE_MAX_RETRY_WAIT; default 30)')
    .option('--cacert <file>', 'also trust the CA certificates in this PEM file (env PLANTSTORE_CA_CERT)')
    .option('--token-file <path>', 'read the token from this file (env PLANTSTORE_TOKEN_FILE)')
    .option('-v, --verbose', 'trace requests and answers to stderr, token masked (also PLANTSTORE_DEBUG=1)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.out(text.replace(/\n$/, '')),
      writeErr: (text) => ctx.io.err(text.replace(/\n$/, '')),
      // Errors are rethrown to main, which prints them once, in one line (or as JSON).
      outputError: () => {},
    })
    .addHelpText('after', exitCodeHelp());

  // Runs a command with the global options merged in; --no-color takes effect before any output.
  const act =
    <A extends unknown[]>(run: (global: GlobalOptions, command: Command, ...args: A) => Promise<ExitCode>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const { json, quiet, color, ...rest } = command.optsWithGlobals<Partial<GlobalOptions> & { color?: boolean }>();
      if (color === false) ctx.io.disableColor();
      const global: GlobalOptions = { ...rest, json: json === true, quiet: quiet === true };
      finish(await run(global, command, ...(args.slice(0, -2) as A)));
    };

  program
    .command('delete')
    .description('delete plants by id: DELETE {base}/plants/{id} for each id')
    .argument('[id...]', 'plant ids (64-bit integers); all are checked before any is sent; - reads stdin')
    .option('--stdin', 'read ids from standard input (whitespace-separated, # comments)')
    .option('--concurrency <n>', 'requests in flight at once, 1..64 (default 8)')
    .option('--rate <n[/s|/m|/h]>', 'start at most n requests per second (minute, hour), such as 40 or 300/m (env PLANTSTORE_RATE)')
    .option(
      '--ignore-missing',
      'count a plant the API says does not exist as success (already absent): a 404 with an Error object, or a --missing-error code',
    )
    .option(
      '--missing-error <codes>',
      'API error codes (comma-separated) that mean "no such plant", e.g. 1 for the sandbox (env PLANTSTORE_MISSING_ERROR; profile key missing-error)',
    )
    .option('--fail-fast', 'send nothing new after the first failure')
    .option('--dry-run', 'print the requests that would be sent; send nothing')
    .action(
      act((global, command, ids: string[]) => {
        const flags = command.opts<{
          stdin?: boolean;
          concurrency?: string;
          rate?: string;
          missingError?: string;
          ignoreMissing?: boolean;
          failFast?: boolean;
          dryRun?: boolean;
        }>();
        return runDelete(
          {
            ids,
            global,
            stdin: flags.stdin === true,
            ignoreMissing: flags.ignoreMissing === true,
            failFast: flags.failFast === true,
            dryRun: flags.dryRun === true,
            ...defined({ concurrency: flags.concurrency, rate: flags.rate, missingError: flags.missingError }),
          },
          ctx,
        );
      }),
    );

  const auth = program.command('auth').description('manage the stored bearer token');
  auth
    .command('login')
    .description('store a token: from stdin with --with-token, else a hidden prompt')
    .option('--with-token', 'read the token from standard input')
    .action(act((global, command) => runLogin({ withToken: command.opts()['withToken'] === true, global }, ctx)));
  auth
    .command('logout')
    .description('remove the stored token of the profile')
    .action(act((global) => runLogout({ global }, ctx)));
  auth
    .command('status')
    .description('show where the token and base URL come from (exit 4 when there is no token)')
    .action(act((global) => runStatus({ global }, ctx)));
  auth
    .command('token')
    .description('print the token to stdout, for piping')
    .action(act((global) => runToken({ global }, ctx)));

  const config = program.command('config').description('read and write profile settings (keys: base-url)');
  const configAction = (action: ConfigOptions['action']) =>
    act((global, _command, key?: string, value?: string) => runConfig({ action, global, ...defined({ key, value }) }, ctx));
  config.command('get').argument('<key>').description('print a setting').action(configAction('get'));
  config.command('set').argument('<key>').argument('<value>').description('store a setting').action(configAction('set'));
  config.command('unset').argument('<key>').description('remove a setting').action(configAction('unset'));
  config.command('list').description('print the settings of the profile').action(configAction('list'));
  config.command('path').description('print the config file location').action(configAction('path'));

  program
    .command('completion')
    .description('print a shell completion script: plantstore completion bash >> ~/.bashrc')
    .argument('[shell]', 'one of bash, zsh, fish')
    .addOption(new Option('--list-profiles', 'print profile names (used by the scripts)').hideHelp())
    .action(
      act(async (global, command, shell?: string) => {
        // The scripts are long strings that no other command needs at start-up.
        const { runCompletion } = await import('./commands/completion.js');
        return runCompletion({ global, listProfiles: command.opts()['listProfiles'] === true, ...defined({ shell }) }, ctx);
      }),
    );

  program
    .command('sandbox')
    .description('run a local Plant Store server for trying plantstore out')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default('8080'))
    .addOption(new Option('--host <addr>', 'address to listen on; any but loopback opens the sandbox to the network').default('127.0.0.1'))
    .addOption(
      new Option(
        '--token <t>',
        `bearer token the sandbox accepts, for throwaway tokens: other users see it in ps (prefer env ${SANDBOX_TOKEN_ENV}; default "${DEFAULT_SANDBOX_TOKEN}")`,
      ),
    )
    .addOption(new Option('--plants <n>', 'number of plants to start with (ids 1..n)').default('100'))
    .addHelpText('after', `\nEnvironment: ${SANDBOX_TOKEN_ENV}, the token the sandbox accepts (unlike --token, not shown by ps)`)
    .action(act((global, command) => runSandbox({ ...(command.opts() as SandboxFlags), global }, ctx)));

  return program;
}

type SandboxFlags = { port: string; host: string; token?: string; plants: string };

function defined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

function exitCodeHelp(): string {
  const rows = EXIT_CODE_HELP.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`);
  return [
    '',
    'Environment: PLANTSTORE_TOKEN, PLANTSTORE_TOKEN_FILE, PLANTSTORE_BASE_URL, PLANTSTORE_PROFILE, PLANTSTORE_CONFIG_DIR,',
    '  PLANTSTORE_TIMEOUT, PLANTSTORE_RETRIES, PLANTSTORE_MAX_RETRY_WAIT, PLANTSTORE_RATE, PLANTSTORE_CA_CERT, PLANTSTORE_DEBUG,',
    '  PLANTSTORE_SANDBOX_TOKEN, https_proxy, HTTPS_PROXY, http_proxy, ALL_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS',
    '',
    'Exit codes (with several ids, the code of the first failing id):',
    ...rows,
  ].join('\n');
}
