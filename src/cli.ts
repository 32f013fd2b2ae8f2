import { Argument, Command, CommanderError, Option } from 'commander';
import { runLogin, runLogout, runStatus, runToken } from './commands/auth.js';
import { type ConfigOptions, runConfig } from './commands/config.js';
import { runDelete } from './commands/delete.js';
import { DEFAULT_SANDBOX_TOKEN, runSandbox, SANDBOX_TOKEN_ENV } from './commands/sandbox.js';
import { completes, completionTree, SHELLS } from './completion/tree.js';
import { PROFILE_KEYS } from './config/file.js';
import type { GlobalOptions } from './config/global-options.js';
import type { Context } from './context.js';
import { EXIT_CODE_HELP, Exit, type ExitCode, UsageError } from './errors.js';

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

export function buildProgram(ctx: Context, finish: (exit: ExitCode) => void): Command {
  const program = new Command('plantstore')
    .description('Delete plants from a Plant Store service.')
    .version(ctx.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(
      completes(new Option('--profile <name>', 'use a named profile (env PLANTSTORE_PROFILE; default "default")'), { kind: 'profiles' }),
    )
    .option('--base-url <url>', "service base URL (env PLANTSTORE_BASE_URL; else the profile's base-url)")
    .option('--json', 'write JSON to stdout (one object per line)')
    .option('-q, --quiet', 'print nothing on success')
    .option('--no-color', 'never use color (also NO_COLOR, TERM=dumb; FORCE_COLOR forces it)')
    .option('--timeout <seconds>', 'give up on an attempt after this long (env PLANTSTORE_TIMEOUT; default 30)')
    .option('--retries <n>', 'retries on refused/reset connections, timeouts, 429/502/503/504 (env PLANTSTORE_RETRIES; default 2)')
    .option('--max-retry-wait <seconds>', 'longest wait before a retry (env PLANTSTORE_MAX_RETRY_WAIT; default 30)')
    .addOption(completes(new Option('--cacert <file>', 'also trust the CA certificates in this PEM file (env PLANTSTORE_CA_CERT)'), FILES))
    .addOption(completes(new Option('--token-file <path>', 'read the token from this file (env PLANTSTORE_TOKEN_FILE)'), FILES))
    .option('-v, --verbose', 'trace requests and answers to stderr, token masked (also PLANTSTORE_DEBUG=1)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.out(text.replace(/\n$/, '')),
      writeErr: (text) => ctx.io.err(text.replace(/\n$/, '')),
      // Errors are rethrown to main, which prints them once, in one line (or as JSON).
      outputError: () => {},
      // One width everywhere: `--help` prints the text captured at build time, so `help` must match it.
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
    })
    // Inherited by every command created below.
    .configureHelp({ showGlobalOptions: true, visibleGlobalOptions: globalOptionsFor });
  documented(program, {
    examples: [
      ['plantstore config set base-url https://api.example.com/v1'],
      ['echo "$TOKEN" | plantstore auth login --with-token'],
      ['plantstore delete 42 43'],
      ['plantstore --json delete --stdin < dead-plants.txt'],
      ['plantstore sandbox', 'a local Plant Store to try it on'],
    ],
    more: [environmentHelp(), exitCodeHelp()],
  });

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

  const deleteCommand = program
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
  documented(deleteCommand, {
    globals: 'all',
    examples: [
      ['plantstore delete 42'],
      ['plantstore delete 10 11 12'],
      ['plantstore delete -- -5', 'a negative id is a valid int64 too (the -- is optional)'],
      ['plantstore --json delete 42 43'],
      ['plantstore delete --stdin < dead-plants.txt', 'ids from a file, checked before any is sent; or ... | plantstore delete -'],
      ['plantstore delete --dry-run 42 43', 'show the requests, send nothing'],
      ['plantstore delete --rate 300/m --stdin < dead-plants.txt', 'never more than 300 requests in any minute'],
      [
        'plantstore delete --ignore-missing --missing-error 1 - < ids.txt',
        're-run a batch: plants the API says do not exist (error 1) count as done',
      ],
    ],
  });

  const auth = documented(program.command('auth').description('manage the stored bearer token'), {
    globals: ['--profile', '--base-url', '--json', '--quiet', '--no-color', '--token-file'],
    examples: [['echo "$TOKEN" | plantstore auth login --with-token'], ['plantstore auth status'], ['plantstore auth logout']],
  });
  documented(
    auth
      .command('login')
      .description('store a token: from stdin with --with-token, else a hidden prompt')
      .option('--with-token', 'read the token from standard input')
      .action(act((global, command) => runLogin({ withToken: command.opts()['withToken'] === true, global }, ctx))),
    {
      globals: ['--profile', '--base-url', '--json', '--quiet', '--no-color'],
      examples: [
        ['plantstore auth login', 'asks for the token with a hidden prompt'],
        ['pass show plantstore | plantstore auth login --with-token', 'from a password manager'],
        [
          'echo "$TOKEN" | plantstore --profile staging auth login --with-token \\\n      --base-url https://staging.example.com/v1',
          'another profile, with its base URL',
        ],
      ],
    },
  );
  documented(
    auth
      .command('logout')
      .description('remove the stored token of the profile')
      .action(act((global) => runLogout({ global }, ctx))),
    {
      globals: ['--profile', '--quiet', '--no-color'],
      examples: [['plantstore auth logout'], ['plantstore --profile staging auth logout']],
    },
  );
  documented(
    auth
      .command('status')
      .description('show where the token and base URL come from (exit 4 when there is no token)')
      .action(act((global) => runStatus({ global }, ctx))),
    {
      globals: ['--profile', '--base-url', '--json', '--no-color', '--token-file'],
      examples: [
        ['plantstore auth status'],
        ['plantstore auth status --json'],
        ['plantstore auth status || plantstore auth login', 'exit 4 when there is no token: then log in'],
      ],
    },
  );
  documented(
    auth
      .command('token')
      .description('print the token to stdout, for piping')
      .action(act((global) => runToken({ global }, ctx))),
    {
      globals: ['--profile', '--no-color', '--token-file'],
      examples: [['curl -H "Authorization: Bearer $(plantstore auth token)" ...']],
    },
  );

  const config = documented(program.command('config').description('read and write profile settings (keys: base-url, missing-error)'), {
    globals: ['--profile', '--json', '--quiet', '--no-color'],
    examples: [
      ['plantstore config set base-url https://api.example.com/v1'],
      ['plantstore config get base-url', 'prints it; exit 3 when it is not set'],
      ['plantstore config unset base-url'],
      ['plantstore config list', 'prints key=value lines, such as base-url=https://api.example.com/v1'],
      ['plantstore config path', 'where the file is'],
    ],
  });
  const configAction = (action: ConfigOptions['action']) =>
    act((global, _command, key?: string, value?: string) => runConfig({ action, global, ...defined({ key, value }) }, ctx));
  documented(config.command('get').addArgument(configKey()).description('print a setting').action(configAction('get')), {
    globals: ['--profile', '--json', '--no-color'],
    examples: [['plantstore config get base-url'], ['plantstore --profile staging config get base-url --json']],
  });
  documented(
    config.command('set').addArgument(configKey()).argument('<value>').description('store a setting').action(configAction('set')),
    {
      globals: ['--profile', '--quiet', '--no-color'],
      examples: [
        ['plantstore config set base-url https://api.example.com/v1'],
        ['plantstore config set missing-error 1', 'the API error code that means "no such plant" (1 in the sandbox)'],
        ['plantstore --profile staging config set base-url https://staging.example.com'],
      ],
    },
  );
  documented(config.command('unset').addArgument(configKey()).description('remove a setting').action(configAction('unset')), {
    globals: ['--profile', '--quiet', '--no-color'],
    examples: [['plantstore config unset base-url']],
  });
  documented(config.command('list').description('print the settings of the profile').action(configAction('list')), {
    globals: ['--profile', '--json', '--no-color'],
    examples: [
      ['plantstore config list', 'prints key=value lines, such as base-url=https://api.example.com/v1'],
      ['plantstore --profile staging config list --json'],
    ],
  });
  documented(config.command('path').description('print the config file location').action(configAction('path')), {
    globals: ['--no-color'],
    examples: [['plantstore config path'], ['PLANTSTORE_CONFIG_DIR=/tmp/ps plantstore config path', 'prints /tmp/ps/config.json']],
  });

  documented(
    program
      .command('completion')
      .description('print a shell completion script: plantstore completion bash >> ~/.bashrc')
      .addArgument(completes(new Argument('[shell]', `one of ${SHELLS.join(', ')}`), { kind: 'words', words: SHELLS }))
      .addOption(new Option('--list-profiles', 'print profile names (used by the scripts)').hideHelp())
      .action(
        act(async (global, command, shell?: string) => {
          // The scripts are long strings that no other command needs at start-up.
          const { runCompletion } = await import('./commands/completion.js');
          const tree = completionTree(command.parent ?? command);
          return runCompletion({ global, tree, listProfiles: command.opts()['listProfiles'] === true, ...defined({ shell }) }, ctx);
        }),
      ),
    {
      globals: ['--no-color'],
      examples: [
        ['plantstore completion bash \\\n      > ~/.local/share/bash-completion/completions/plantstore'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own syntax, printed as is
        ['plantstore completion zsh > "${fpath[1]}/_plantstore"'],
        ['plantstore completion fish > ~/.config/fish/completions/plantstore.fish'],
      ],
    },
  );

  const sandboxCommand = program
    .command('sandbox')
    .description(
      'run a local Plant Store server for trying plantstore out; it answers an unknown plant with 400 and error 1 (so re-runs use --missing-error 1)',
    )
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default('8080'))
    .addOption(new Option('--host <addr>', 'address to listen on; any but loopback opens the sandbox to the network').default('127.0.0.1'))
    .addOption(
      new Option(
        '--token <t>',
        `bearer token the sandbox accepts, for throwaway tokens: other users see it in ps (prefer env ${SANDBOX_TOKEN_ENV}; default "${DEFAULT_SANDBOX_TOKEN}")`,
      ),
    )
    .addOption(
      new Option('--plants <n>', 'number of plants to start with: ids 1..n; 0 for none, so every delete is refused').default('100'),
    )
    .action(act((global, command) => runSandbox({ ...(command.opts() as SandboxFlags), global }, ctx)));
  documented(sandboxCommand, {
    globals: ['--no-color'],
    examples: [
      ['plantstore sandbox', 'listens on http://127.0.0.1:8080, with plants 1..100'],
      ['plantstore sandbox --port 0 > sandbox.url &', 'a free port; the first line it prints is its base URL'],
      [`${SANDBOX_TOKEN_ENV}=$(openssl rand -hex 16) plantstore sandbox`, 'a token of your own, which ps does not show'],
      ['plantstore sandbox --plants 0', 'no plants: every delete is refused with a 400, to try failures'],
    ],
    more: [`Environment: ${SANDBOX_TOKEN_ENV}, the token the sandbox accepts (unlike\n  --token, not shown by ps)`],
  });

  // `help auth login` reaches the nested command; commander's own help command reads one name.
  documented(
    program
      .command('help')
      .description('show the help of a command, such as plantstore help auth login')
      .addArgument(completes(new Argument('[command...]', 'the command, and its subcommand'), { kind: 'commands' }))
      .action((names: string[]) => {
        helpTarget(program, names).outputHelp();
        finish(Exit.ok);
      }),
    { examples: [['plantstore help'], ['plantstore help auth login', 'the same as plantstore auth login --help']] },
  );

  return program;
}

const FILES = { kind: 'files' } as const;

/** A config key, as `config get|set|unset` take it; completes to the known keys. */
function configKey(): Argument {
  return completes(new Argument('<key>'), { kind: 'words', words: PROFILE_KEYS });
}

/** The command `plantstore help <names...>` is about. */
function helpTarget(program: Command, names: readonly string[]): Command {
  let target = program;
  for (const [index, name] of names.entries()) {
    const next = target.commands.find((command) => command.name() === name || command.aliases().includes(name));
    if (next === undefined) {
      const asked = names.slice(0, index + 1).join(' ');
      const parent = names.slice(0, index).join(' ');
      if (target.commands.length === 0) throw new UsageError(`unknown command '${asked}': plantstore ${parent} has no subcommands`);
      throw new UsageError(
        `unknown command '${asked}': ${parent ? `plantstore help ${parent} lists its commands` : 'plantstore help lists the commands'}`,
      );
    }
    target = next;
  }
  return target;
}

const HELP_WIDTH = 80;
const README_URL = 'https://www.npmjs.com/package/plantstore';
const LEARN_MORE = [
  'Learn more:',
  '  Use plantstore help <command> for the help of any command.',
  `  Read the README at ${README_URL}`,
].join('\n');

/**
 * The global options (by long flag) each command reads. Its help lists those under Global
 * Options: all eleven for delete, but auth token reads no --timeout, and says so by omission.
 */
const globalsOf = new WeakMap<Command, 'all' | ReadonlySet<string>>();

function globalOptionsFor(command: Command): Option[] {
  const applies = globalsOf.get(command);
  if (applies === undefined) return [];
  const options: Option[] = [];
  for (let ancestor = command.parent; ancestor; ancestor = ancestor.parent) {
    // --version is about plantstore, not the command.
    options.push(...ancestor.options.filter((option) => !option.hidden && option.long !== '--version'));
  }
  return applies === 'all' ? options : options.filter((option) => option.long !== undefined && applies.has(option.long));
}

interface HelpExtras {
  /** Global options the command reads: 'all', or their long flags. None when left out. */
  globals?: 'all' | readonly string[];
  /** Command lines, each with an optional comment; a long one goes on after `\\` and a line break. */
  examples: ReadonlyArray<readonly [string, string?]>;
  /** Sections printed after the examples. */
  more?: readonly string[];
}

/** gh's help, after commander's: examples, anything more, then where to read more. */
function documented(command: Command, extras: HelpExtras): Command {
  if (extras.globals !== undefined) globalsOf.set(command, extras.globals === 'all' ? 'all' : new Set(extras.globals));
  // As gh writes them: a comment goes on its own line, above its command.
  const examples = extras.examples.flatMap(([line, comment]) => [...(comment ? [`  # ${comment}`] : []), `  $ ${line}`]);
  command.addHelpText(
    'after',
    ['', 'Examples:', ...examples, ...(extras.more ?? []).flatMap((section) => ['', section]), '', LEARN_MORE].join('\n'),
  );
  return command;
}

type SandboxFlags = { port: string; host: string; token?: string; plants: string };

function defined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['PLANTSTORE_TOKEN', 'the bearer token; no config file is needed with it'],
  ['PLANTSTORE_TOKEN_FILE', 'a file holding the token'],
  ['PLANTSTORE_BASE_URL', 'the service base URL'],
  ['PLANTSTORE_PROFILE', 'the profile'],
  ['PLANTSTORE_CONFIG_DIR', 'the folder of config.json'],
  ['PLANTSTORE_TIMEOUT', 'seconds an attempt may take'],
  ['PLANTSTORE_RETRIES', 'retries of a failed attempt'],
  ['PLANTSTORE_MAX_RETRY_WAIT', 'the longest wait before a retry, in seconds'],
  ['PLANTSTORE_RATE', 'like delete --rate'],
  ['PLANTSTORE_MISSING_ERROR', 'like delete --missing-error'],
  ['PLANTSTORE_CA_CERT', 'extra CA certificates (PEM); also NODE_EXTRA_CA_CERTS'],
  ['PLANTSTORE_SANDBOX_TOKEN', 'the token plantstore sandbox accepts'],
  ['PLANTSTORE_DEBUG=1', 'like --verbose, and the stack of an internal error'],
  ['https_proxy, http_proxy', 'proxies, read as curl reads them; also HTTPS_PROXY, ALL_PROXY, NO_PROXY'],
  ['NO_COLOR, FORCE_COLOR', 'no color / color even when not a terminal'],
];

function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT.map(([name]) => name.length)) + 2;
  return ['Environment:', ...ENVIRONMENT.map(([name, meaning]) => wrap(`  ${name.padEnd(width)}`, meaning))].join('\n');
}

function exitCodeHelp(): string {
  const rows = EXIT_CODE_HELP.map(([code, meaning]) => wrap(`  ${String(code).padStart(3)}  `, meaning));
  return ['Exit codes (with several ids, the code of the first failing id):', ...rows].join('\n');
}

/** `lead` then `text`, wrapped at HELP_WIDTH with the text's first column kept. */
function wrap(lead: string, text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && lead.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((text, index) => `${index === 0 ? lead : ' '.repeat(lead.length)}${text}`).join('\n');
}
