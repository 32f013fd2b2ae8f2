// Help, in-process: plantstore help <command>, --help and -h print the same text, and every
// command's help has its examples, the global options it reads and where to read more.
import { describe, expect, it } from 'vitest';
import { expectUsageError, inProcess } from '../../../helpers/in-process.js';
import { commandPaths, realProgram } from '../../../helpers/program.js';

const { run } = inProcess();

describe('help', () => {
  it.each([[['help']], [['help', 'delete']], [['auth', 'help']]])('%j prints help on stdout and returns 0 like --help', async (argv) => {
    const result = await run(argv);
    expect(result.stdout).toMatch(/Usage: plantstore/);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
  });

  it.each([[['--help']], [['-h']], [['delete', '--help']]])('%j prints help with the exit-code table and returns 0', async (argv) => {
    const result = await run(argv);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    if (argv[0] === 'delete') {
      expect(result.stdout).toMatch(/Usage: plantstore delete/);
      return;
    }
    expect(result.stdout).toMatch(/Usage: plantstore/);
    expect(result.stdout).toContain('Exit codes');
    for (const [code, words] of [
      [0, 'every request did what was asked'],
      [2, 'invalid command line or id'],
      [4, 'authentication'],
      [5, '404'],
      [130, 'interrupted'],
    ] as const) {
      expect(result.stdout).toMatch(new RegExp(`^\\s*${code}\\s+.*${words}`, 'm'));
    }
    expect(result.stdout).toContain('PLANTSTORE_TOKEN');
  });
});

describe('help for every command, as gh gives it', () => {
  const LEARN_MORE =
    'Learn more:\n  Use plantstore help <command> for the help of any command.\n  Read the README at https://www.npmjs.com/package/plantstore\n  and, after npm install -g plantstore, the manual: man plantstore';

  /** The names in the Commands: section of a help text (help itself aside). */
  function subcommands(help: string): string[] {
    const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
    return [...section.matchAll(/^ {2}(\S+)/gm)].map((match) => match[1] ?? '').filter((name) => name !== 'help');
  }

  /** Every command path, found by walking the help texts themselves, so a new command is covered too. */
  async function everyCommand(path: string[] = []): Promise<string[][]> {
    const help = (await run([...path, '--help'])).stdout;
    const below = await Promise.all(subcommands(help).map((name) => everyCommand([...path, name])));
    return [path, ...below.flat()];
  }

  it("the walk finds every command the program registers, in the program's order", async () => {
    const registered = commandPaths(realProgram())
      .map(({ path }) => path)
      .filter((path) => path.at(-1) !== 'help');
    expect(registered.length).toBeGreaterThan(10);
    expect((await everyCommand()).map((path) => path.join(' '))).toEqual(registered.map((path) => path.join(' ')));
  });

  it('each has examples, ends with where to read more, fits 80 columns, and is the same through help <command>', async () => {
    for (const path of await everyCommand()) {
      const name = ['plantstore', ...path].join(' ');
      const viaFlag = await run([...path, '--help']);
      expect(viaFlag.exit, name).toBe(0);
      const help = viaFlag.stdout;
      expect(help, name).toMatch(new RegExp(`^Usage: ${name} `));
      const examples = /\nExamples:\n((?: {2}.*\n)+)/.exec(help)?.[1];
      expect(examples, `${name}: Examples`).toBeDefined();
      // Each example runs the command the help is about (a pipe may come first: echo ... | plantstore ...).
      expect(examples, name).toContain(`${name}`);
      expect(help.endsWith(`\n\n${LEARN_MORE}\n`), `${name}: Learn more last`).toBe(true);
      for (const line of help.split('\n')) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(80);
      expect((await run(['help', ...path])).stdout, `plantstore help ${path.join(' ')}`).toBe(help);
    }
  });

  it('help auth login is the help of auth login, not of auth', async () => {
    const result = await run(['help', 'auth', 'login']);
    expect(result).toMatchObject({ exit: 0, error: undefined, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: plantstore auth login \[options\]\n/);
    expect(result.stdout).toContain('--with-token');
  });

  it.each<[string[]]>([
    [['help', 'frob']],
    [['help', 'auth', 'frob']],
    [['help', 'delete', 'now']],
    [['help', 'delet']],
    [['help', 'auth', 'logn']],
  ])('%j is a usage error', async (argv) => {
    const result = await run(argv);
    expectUsageError(result, /^unknown command '/);
    expect(result.error).toMatchSnapshot();
  });

  /** The flags in the Global Options: section of a help text. */
  function globalOptions(help: string): string[] {
    const section = /\nGlobal Options:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? '';
    return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1] ?? '');
  }

  it.each<[string[], string[]]>([
    [
      ['delete'],
      [
        '--profile',
        '--base-url',
        '--json',
        '--quiet',
        '--no-color',
        '--timeout',
        '--retries',
        '--max-retry-wait',
        '--cacert',
        '--token-file',
        '--verbose',
      ],
    ],
    [
      ['auth', 'login'],
      ['--profile', '--base-url', '--json', '--quiet', '--no-color'],
    ],
    [
      ['auth', 'logout'],
      ['--profile', '--quiet', '--no-color'],
    ],
    [
      ['auth', 'status'],
      ['--profile', '--base-url', '--json', '--no-color', '--timeout', '--token-file'],
    ],
    [
      ['auth', 'token'],
      ['--profile', '--no-color', '--timeout', '--token-file'],
    ],
    [
      ['config', 'get'],
      ['--profile', '--json', '--no-color'],
    ],
    [
      ['config', 'set'],
      ['--profile', '--quiet', '--no-color'],
    ],
    [
      ['config', 'path'],
      ['--json', '--no-color'],
    ],
    [['sandbox'], ['--no-color']],
  ])('%j --help lists the global options it reads, and only those', async (path, flags) => {
    expect(globalOptions((await run([...path, '--help'])).stdout)).toEqual(flags);
  });

  it('the top-level help keeps the environment, the exit codes, then where to read more', async () => {
    const help = (await run(['--help'])).stdout;
    const order = ['\nOptions:\n', '\nCommands:\n', '\nExamples:\n', '\nEnvironment:', '\nExit codes', `\n${LEARN_MORE}\n`];
    const at = order.map((heading) => help.indexOf(heading));
    expect(at.every((index) => index > 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(help).toContain('  help [command...]');
  });
});
