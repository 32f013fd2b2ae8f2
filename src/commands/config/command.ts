import { Argument, type Command } from 'commander';
import { completes } from '../../completion/tree.js';
import { PROFILE_KEYS } from '../../config/file.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import {
  type GetOptions,
  getOptions,
  type ListOptions,
  listOptions,
  PATH_GLOBALS,
  type PathFlags,
  type PathOptions,
  pathOptions,
  READ_GLOBALS,
  type ReadFlags,
  type SetOptions,
  setOptions,
  type UnsetOptions,
  unsetOptions,
  WRITE_GLOBALS,
  type WriteFlags,
} from './flags.js';
import { runProfiles } from './profiles.js';
import { runGet, runList, runPath, runSet, runUnset } from './run.js';

/** Stand-ins for the run functions of the config commands: a test of argv captures the options and runs nothing. */
export interface ConfigSeams {
  configGet?: (opts: GetOptions, ctx: Context) => Promise<ExitCode>;
  configSet?: (opts: SetOptions, ctx: Context) => Promise<ExitCode>;
  configUnset?: (opts: UnsetOptions, ctx: Context) => Promise<ExitCode>;
  configList?: (opts: ListOptions, ctx: Context) => Promise<ExitCode>;
  configPath?: (opts: PathOptions, ctx: Context) => Promise<ExitCode>;
  configProfiles?: (opts: ListOptions, ctx: Context) => Promise<ExitCode>;
}

/** Every config command reads or writes the file, and nothing else. */
const CONFIG_CONCERNS = { variables: ['PLANTSTORE_CONFIG_DIR', 'NO_COLOR, FORCE_COLOR'], exits: [Exit.ok, Exit.usage, Exit.config] };

/**
 * Registers `config` and its commands. `seams` is the seam of gh's `newCmdGet(f, runF)`: a run
 * function given there replaces the real one.
 */
export function configCommand(program: Command, ctx: Context, finish: Finish, seams: ConfigSeams = {}): Command {
  const run = {
    get: seams.configGet ?? runGet,
    set: seams.configSet ?? runSet,
    unset: seams.configUnset ?? runUnset,
    list: seams.configList ?? runList,
    path: seams.configPath ?? runPath,
    profiles: seams.configProfiles ?? runProfiles,
  };
  const config = documented(
    program
      .command('config')
      .description('read and write profile settings (keys: base-url, missing-error, token-command, max-deletes), list profiles'),
    {
      examples: [
        ['plantstore config set base-url https://api.example.com/v1'],
        ['plantstore config get base-url', 'prints it; exit 3 when it is not set'],
        ['plantstore config unset base-url'],
        ['plantstore config list', 'prints key=value lines, such as base-url=https://api.example.com/v1'],
        ['plantstore config path', 'where the file is'],
        ['plantstore config profiles', 'every profile, its base URL and where its token comes from'],
        [
          "plantstore config set token-command 'op read op://vault/plantstore/token'",
          'a command that prints the token (words, not a shell)',
        ],
      ],
    },
  );
  documented(
    config
      .command('get')
      .addArgument(configKey())
      .description('print a setting')
      .action(action(ctx, finish, (flags: ReadFlags, key: string) => run.get(getOptions(flags, key), ctx))),
    {
      globals: READ_GLOBALS,
      concerns: CONFIG_CONCERNS,
      examples: [['plantstore config get base-url'], ['plantstore --profile staging config get base-url --json']],
    },
  );
  documented(
    config
      .command('set')
      .addArgument(configKey())
      .argument('<value>')
      .description('store a setting')
      .action(action(ctx, finish, (flags: WriteFlags, key: string, value: string) => run.set(setOptions(flags, key, value), ctx))),
    {
      globals: WRITE_GLOBALS,
      concerns: CONFIG_CONCERNS,
      examples: [
        ['plantstore config set base-url https://api.example.com/v1'],
        ['plantstore config set missing-error 1', 'the API error code that means "no such plant" (1 in the sandbox)'],
        ['plantstore --profile staging config set base-url https://staging.example.com'],
      ],
    },
  );
  documented(
    config
      .command('unset')
      .addArgument(configKey())
      .description('remove a setting')
      .action(action(ctx, finish, (flags: WriteFlags, key: string) => run.unset(unsetOptions(flags, key), ctx))),
    { globals: WRITE_GLOBALS, concerns: CONFIG_CONCERNS, examples: [['plantstore config unset base-url']] },
  );
  documented(
    config
      .command('list')
      .description('print the settings of the profile')
      .action(action(ctx, finish, (flags: ReadFlags) => run.list(listOptions(flags), ctx))),
    {
      globals: READ_GLOBALS,
      concerns: CONFIG_CONCERNS,
      examples: [
        ['plantstore config list', 'prints key=value lines, such as base-url=https://api.example.com/v1'],
        ['plantstore --profile staging config list --json'],
      ],
    },
  );
  documented(
    config
      .command('profiles')
      .description('list the profiles: base URL and where the token comes from (never the token)')
      .action(action(ctx, finish, (flags: ReadFlags) => run.profiles(listOptions(flags), ctx))),
    {
      globals: READ_GLOBALS,
      concerns: CONFIG_CONCERNS,
      examples: [
        ['plantstore config profiles', 'the profile in use is marked *'],
        ['plantstore config profiles --json', '{"path":…,"profiles":[{"name":"default","current":true,…}],…}'],
      ],
    },
  );
  documented(
    config
      .command('path')
      .description('print the config file location')
      .action(action(ctx, finish, (flags: PathFlags) => run.path(pathOptions(flags), ctx))),
    {
      globals: PATH_GLOBALS,
      concerns: CONFIG_CONCERNS,
      examples: [
        ['plantstore config path'],
        ['PLANTSTORE_CONFIG_DIR=/tmp/ps plantstore config path', 'prints /tmp/ps/config.json'],
        ['plantstore --json config path', 'prints {"path":"…"}'],
      ],
    },
  );
  return config;
}

/** A config key, as `config get|set|unset` take it; completes to the known keys. */
function configKey(): Argument {
  return completes(new Argument('<key>'), { kind: 'words', words: PROFILE_KEYS });
}
