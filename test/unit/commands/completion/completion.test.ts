import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalOptionsFor } from '../../../../src/commands/help/documented.js';
import { plan } from '../../../../src/completion/plan.js';
import { completionScript } from '../../../../src/completion/scripts.js';
import { completionTree, SHELLS, type Shell } from '../../../../src/completion/tree.js';
import { commandPaths, realProgram } from '../../../helpers/program.js';

// The real program, as the CLI builds it: completion is written from it.
const program = realProgram();
const tree = completionTree(program, globalOptionsFor);
/** The commands offered after `plantstore `: the program's, in the order it registers them. */
const COMMANDS = program.commands.map((command) => command.name());
const longOptions = (command: Command): string[] => command.options.filter((o) => !o.hidden && o.long).map((o) => o.long as string);
const GLOBAL_OPTIONS = [...longOptions(program), '--help'];
const DELETE_OPTIONS = longOptions(program.commands.find((command) => command.name() === 'delete') as Command);
const DELETE = program.commands.find((command) => command.name() === 'delete') as Command;
/** The spellings of the program's options `command` reads, as its help lists them. */
const reads = (command: Command): string[] =>
  globalOptionsFor(command).flatMap((o) => [o.short, o.long].filter((name): name is string => name !== undefined));

/** Every spelling of the options of a command, as zsh lists them (commander's -h/--help with the global ones). */
function spellings(command: Command, withHelp: boolean): string[] {
  const names = command.options.filter((o) => !o.hidden).flatMap((o) => [o.short, o.long]);
  return [...names.filter((name): name is string => name !== undefined), ...(withHelp ? ['-h', '--help'] : [])];
}

function has(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
}
const hasZsh = has('zsh');
const hasFish = has('fish');

let dir: string;
const scripts = {} as Record<Shell, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plantstore-completion-'));
  for (const shell of SHELLS) {
    scripts[shell] = join(dir, `plantstore.${shell}`);
    writeFileSync(scripts[shell], completionScript(shell, tree));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a shell with no user startup files; HOME points at the temp dir so nothing of ours is read. */
function shell(
  name: string,
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(name, args, {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, ...env },
    timeout: 20_000,
    ...(cwd ? { cwd } : {}),
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

// A stand-in for the real binary: only the hidden helper the scripts may call.
const BASH_STUB = `plantstore() { [[ "$*" == "completion --list-profiles" ]] && printf 'default\\nstaging\\n'; }`;

/** Completes WORDS (the last one is under the cursor) the way bash does on Tab. */
function bashComplete(words: string[], cwd?: string): string[] {
  const harness = `${BASH_STUB}
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}
_plantstore
printf '<%s>\\n' "\${COMPREPLY[@]}"`;
  const { stdout, stderr, status } = shell('bash', ['--norc', '--noprofile', '-c', harness, 'bash', scripts.bash, ...words], {}, cwd);
  expect({ stderr, status }).toEqual({ stderr: '', status: 0 });
  return [...stdout.matchAll(/^<(.*)>$/gm)].map((m) => m[1] as string).filter((word) => word !== '');
}

describe('completionScript: every script names every command and option of the program', () => {
  it.each(SHELLS)('%s', (name) => {
    const script = completionScript(name, tree);
    for (const { path, options } of commandPaths(program)) {
      for (const word of path) expect(script).toMatch(new RegExp(`(^|[\\s'(|])${word}([\\s:'|)]|$)`, 'm'));
      for (const option of options) {
        // fish spells options as -l name / -s q.
        const spelled = name === 'fish' ? (option.startsWith('--') ? `-l ${option.slice(2)} ` : `-s ${option.slice(1)} `) : option;
        expect(script).toContain(spelled);
      }
    }
    // Profile names come from the binary at completion time; the script never reads the config file.
    expect(script).toContain('plantstore completion --list-profiles');
    expect(script).not.toMatch(/config\.json|\bjq\b|\bnode\b/);
  });
});

describe('bash completes every option of every command, at that command', () => {
  // The guard against drift: an option added to any command, anywhere, is offered there.
  it.each(commandPaths(program).filter(({ options }) => options.length > 0))('plantstore $path', ({ path, options }) => {
    const offered = bashComplete(['plantstore', ...path, '-']);
    for (const option of options) expect(offered).toContain(option);
  });

  it('offers files for an option whose value is a file, and commands after any option value', () => {
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'ca.pem'), '');
    writeFileSync(join(cwd, 'token.txt'), '');
    expect(bashComplete(['plantstore', '--cacert', 'ca'], cwd)).toEqual(['ca.pem']);
    expect(bashComplete(['plantstore', 'delete', '--token-file', 't'], cwd)).toEqual(['token.txt']);
    expect(bashComplete(['plantstore', '--retries', '3', 'a'])).toEqual(['auth']);
    expect(bashComplete(['plantstore', '--max-retry-wait', '5', 'delete', '--ra'])).toEqual(['--rate']);
  });
});

describe('after a command, only the options it reads (issue 41: the sandbox refuses the client flags completion offered)', () => {
  const CLIENT = ['--base-url', '--token-file', '--retries', '--cacert', '--profile', '--max-retry-wait'];

  it("bash: the sandbox is offered its own options and none of the client's; delete all of them; before a command, every global", () => {
    const sandbox = bashComplete(['plantstore', 'sandbox', '--']);
    expect(sandbox).toContain('--port');
    for (const client of CLIENT) expect(sandbox).not.toContain(client);
    expect(bashComplete(['plantstore', 'delete', '--'])).toEqual(expect.arrayContaining([...CLIENT, '--rate', '--help']));
    expect(bashComplete(['plantstore', '--'])).toEqual(expect.arrayContaining([...CLIENT, '--help']));
  });

  it('bash: a group offers what any of its commands reads, then what the one typed reads', () => {
    const auth = bashComplete(['plantstore', 'auth', '--']);
    expect(auth).toEqual(expect.arrayContaining(['--token-file', '--timeout', '--help']));
    expect(auth).not.toContain('--retries');
    const token = bashComplete(['plantstore', 'auth', 'token', '--']);
    expect(token).toEqual(expect.arrayContaining(['--token-file', '--timeout', '--help']));
    expect(token).not.toContain('--retries');
    expect(token).not.toContain('--with-token');
  });

  it.each(SHELLS)("%s: the sandbox's options are written without the client's", (name) => {
    const w = plan(tree);
    const sandbox = w.optionsOf.find((entry) => entry.command === 'sandbox');
    expect(sandbox?.own.map(([option]) => option)).not.toEqual(expect.arrayContaining(['--base-url']));
    expect(completionScript(name, tree)).toContain('--port');
  });
});

describe('bash', () => {
  it('passes bash -n', () => {
    expect(shell('bash', ['-n', scripts.bash])).toMatchObject({ status: 0, stderr: '' });
  });

  it('registers _plantstore for plantstore', () => {
    const { stdout } = shell('bash', ['--norc', '--noprofile', '-c', 'source "$1"; complete -p plantstore', 'bash', scripts.bash]);
    expect(stdout.trim()).toBe('complete -F _plantstore plantstore');
  });

  it.each<[string[], string[]]>([
    [['plantstore', ''], COMMANDS],
    [['plantstore', 'de'], ['delete']],
    [
      ['plantstore', 'c'],
      ['config', 'completion'],
    ],
    [
      ['plantstore', 'auth', 'l'],
      ['login', 'logout'],
    ],
    [
      ['plantstore', 'auth', ''],
      ['login', 'logout', 'status', 'token'],
    ],
    [
      ['plantstore', 'config', ''],
      ['get', 'set', 'unset', 'list', 'profiles', 'path'],
    ],
    [
      ['plantstore', 'config', 'get', ''],
      ['base-url', 'missing-error', 'token-command', 'max-deletes'],
    ],
    [['plantstore', 'config', 'unset', 'b'], ['base-url']],
    [['plantstore', 'config', 'set', 'base-url', ''], []],
    [['plantstore', 'config', 'list', ''], []],
    [
      ['plantstore', 'completion', ''],
      ['bash', 'zsh', 'fish', 'powershell'],
    ],
    [
      ['plantstore', 'help', 'auth', ''],
      ['login', 'logout', 'status', 'token'],
    ],
    [
      ['plantstore', 'config', 'get', 'm'],
      ['missing-error', 'max-deletes'],
    ],
    [['plantstore', 'help', 'a'], ['auth']],
    [['plantstore', 'delete', ''], []],
    [['plantstore', 'delete', '42', ''], []],
    [['plantstore', '--'], GLOBAL_OPTIONS.filter((o) => o.startsWith('--'))],
    [['plantstore', '--j'], ['--json']],
    [['plantstore', 'delete', '--'], [...DELETE_OPTIONS, ...reads(DELETE), '--help'].filter((o) => o.startsWith('--'))],
    [['plantstore', 'delete', '1', '--d'], ['--dry-run']],
    [['plantstore', 'config', '--d'], []],
    // After "--" every word is an id, even one that looks like an option.
    [['plantstore', 'delete', '--', '--'], []],
    // Profile names come from `plantstore completion --list-profiles`.
    [
      ['plantstore', '--profile', ''],
      ['default', 'staging'],
    ],
    [['plantstore', '--profile', 'st'], ['staging']],
    [
      ['plantstore', 'delete', '--profile', ''],
      ['default', 'staging'],
    ],
    [
      ['plantstore', '--profile', '=', ''],
      ['default', 'staging'],
    ],
    [
      ['plantstore', '--profile', '='],
      ['default', 'staging'],
    ],
    [['plantstore', '--profile=s'], ['--profile=staging']],
    // An option's value is not a command.
    [['plantstore', '--profile', 'staging', 'a'], ['auth']],
    [['plantstore', '--timeout', '5', 'config', 'g'], ['get']],
    [['plantstore', '--timeout', ''], []],
    [['plantstore', '--json', 'auth', 'to'], ['token']],
  ])('%j -> %j', (words, expected) => {
    expect(bashComplete(words)).toEqual(expected);
  });

  it('offers no profiles, and prints nothing, when the helper fails', () => {
    const { stdout, stderr } = shell('bash', [
      '--norc',
      '--noprofile',
      '-c',
      `plantstore() { echo 'boom' >&2; return 3; }
source "$1"
COMP_WORDS=(plantstore --profile ''); COMP_CWORD=2
_plantstore
echo "\${#COMPREPLY[@]}"`,
      'bash',
      scripts.bash,
    ]);
    expect({ stdout, stderr }).toEqual({ stdout: '0\n', stderr: '' });
  });

  it('never expands a profile name', () => {
    const { stdout } = shell('bash', [
      '--norc',
      '--noprofile',
      '-c',
      `plantstore() { printf '%s\\n' '$(echo pwned)' '*'; }
source "$1"
COMP_WORDS=(plantstore --profile ''); COMP_CWORD=2
_plantstore
printf '<%s>\\n' "\${COMPREPLY[@]}"`,
      'bash',
      scripts.bash,
    ]);
    expect(stdout).toBe('<$(echo pwned)>\n<*>\n');
  });

  // compgen -F calls the function with COMP_CWORD=-1 and the word as $2; it warns on stderr.
  it.each<[string, string, string[]]>([
    ['', 'de', ['delete']],
    ['', '', COMMANDS],
    ['COMP_WORDS=(plantstore config get)', '', ['base-url', 'missing-error', 'token-command', 'max-deletes']],
    ['COMP_WORDS=(plantstore auth lo)', 'lo', ['login', 'logout']],
    ['COMP_WORDS=(plantstore --profile)', '', ['default', 'staging']],
  ])('compgen -F _plantstore with %s -- %j', (setup, word, expected) => {
    const { stdout, status } = shell('bash', [
      '--norc',
      '--noprofile',
      '-c',
      `${BASH_STUB}\nsource "$1"\n${setup}\ncompgen -F _plantstore -- "$2" 2>/dev/null`,
      'bash',
      scripts.bash,
      word,
    ]);
    expect(status).toBe(0);
    expect(stdout.split('\n').filter(Boolean)).toEqual(expected);
  });
});

describe.skipIf(!hasZsh)('zsh', () => {
  it('passes zsh -n', () => {
    expect(shell('zsh', ['-n', scripts.zsh])).toMatchObject({ status: 0, stderr: '' });
  });

  // Outside a completion widget, compadd and _describe are stood in for by functions that print the
  // candidates; zsh itself filters them by what is typed, so these are the candidates for each place.
  const harness = `plantstore() { [[ "$*" == "completion --list-profiles" ]] && printf 'default\\nstaging\\n'; }
compdef() { print -r -- "compdef $*"; }
compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }
_describe() { local ref=\${@[-1]}; local -a items; items=("\${(@P)ref}"); print -rl -- "\${items[@]%%:*}"; }
compset() { :; }
source "$1"; shift
words=("$@"); CURRENT=$#
_plantstore`;

  it('registers _plantstore for plantstore when sourced', () => {
    const { stdout, stderr } = shell('zsh', ['-f', '-c', harness.replace(/_plantstore$/, ''), 'zsh', scripts.zsh, 'plantstore', '']);
    expect({ stdout, stderr }).toEqual({ stdout: 'compdef _plantstore plantstore\n', stderr: '' });
  });

  it.each<[string[], string[]]>([
    [['plantstore', ''], COMMANDS],
    [
      ['plantstore', 'auth', ''],
      ['login', 'logout', 'status', 'token'],
    ],
    [
      ['plantstore', 'config', ''],
      ['get', 'set', 'unset', 'list', 'profiles', 'path'],
    ],
    [
      ['plantstore', 'config', 'set', ''],
      ['base-url', 'missing-error', 'token-command', 'max-deletes'],
    ],
    [['plantstore', 'config', 'set', 'base-url', ''], []],
    [
      ['plantstore', 'completion', ''],
      ['bash', 'zsh', 'fish', 'powershell'],
    ],
    [
      ['plantstore', 'help', 'auth', ''],
      ['login', 'logout', 'status', 'token'],
    ],
    [
      ['plantstore', 'config', 'get', 'm'],
      ['base-url', 'missing-error', 'token-command', 'max-deletes'],
    ],
    [['plantstore', 'delete', ''], []],
    [['plantstore', '-'], spellings(program, true)],
    [
      ['plantstore', 'delete', '-'],
      [...spellings(DELETE, false), ...reads(DELETE), '-h', '--help'],
    ],
    [['plantstore', 'delete', '--', '-'], []],
    [
      ['plantstore', '--profile', ''],
      ['default', 'staging'],
    ],
    [
      ['plantstore', '--profile=st'],
      ['default', 'staging'],
    ],
    [['plantstore', '--profile', 'staging', ''], COMMANDS],
    [
      ['plantstore', '--timeout', '5', 'auth', ''],
      ['login', 'logout', 'status', 'token'],
    ],
  ])('%j -> %j', (words, expected) => {
    const { stdout, stderr } = shell('zsh', ['-f', '-c', harness, 'zsh', scripts.zsh, ...words]);
    expect(stderr).toBe('');
    expect(stdout.split('\n').filter((line) => line !== '' && !line.startsWith('compdef '))).toEqual(expected);
  });
});

describe.skipIf(!hasFish)('fish', () => {
  it('passes fish -n', () => {
    expect(shell('fish', ['-n', scripts.fish])).toMatchObject({ status: 0, stderr: '' });
  });

  it.each<[string, string[]]>([
    ['plantstore ', COMMANDS],
    ['plantstore de', ['delete']],
    ['plantstore auth l', ['login', 'logout']],
    ['plantstore config ', ['get', 'set', 'unset', 'list', 'profiles', 'path']],
    ['plantstore config get ', ['base-url', 'missing-error', 'token-command', 'max-deletes']],
    ['plantstore config set base-url ', []],
    ['plantstore completion ', ['bash', 'zsh', 'fish', 'powershell']],
    ['plantstore help ', COMMANDS],
    ['plantstore help config ', ['get', 'set', 'unset', 'list', 'profiles', 'path']],
    ['plantstore --retries 3 a', ['auth']],
    ['plantstore delete 1 ', []],
    ['plantstore --j', ['--json']],
    ['plantstore delete --d', ['--dry-run']],
    ['plantstore config --d', []],
    ['plantstore --profile ', ['default', 'staging']],
    ['plantstore --profile st', ['staging']],
    ['plantstore --profile=', ['--profile=default', '--profile=staging']],
    ['plantstore --profile staging ', COMMANDS],
    ['plantstore --timeout 5 auth ', ['login', 'logout', 'status', 'token']],
  ])('%j -> %j', (line, expected) => {
    const harness = `function plantstore
    test "$argv" = "completion --list-profiles"; and printf '%s\\n' default staging
end
source $SCRIPT
complete --do-complete=$LINE`;
    const { stdout, stderr } = shell('fish', ['--no-config', '-c', harness], { SCRIPT: scripts.fish, LINE: line });
    expect(stderr).toBe('');
    const offered = stdout
      .split('\n')
      .filter(Boolean)
      .map((row) => row.split('\t')[0]);
    expect(offered.sort()).toEqual([...expected].sort());
  });
});
