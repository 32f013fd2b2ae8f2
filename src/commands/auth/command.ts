import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { action, type Finish } from '../finish.js';
import { documented } from '../help/documented.js';
import {
  LOGIN_GLOBALS,
  LOGOUT_GLOBALS,
  type LoginFlags,
  type LoginOptions,
  type LogoutFlags,
  type LogoutOptions,
  loginOptions,
  logoutOptions,
  STATUS_GLOBALS,
  type StatusFlags,
  type StatusOptions,
  statusOptions,
  TOKEN_GLOBALS,
  type TokenFlags,
  type TokenOptions,
  tokenOptions,
  WITH_TOKEN,
} from './flags.js';
import { runLogin, runLogout, runStatus, runToken } from './run.js';

/** Stand-ins for the run functions of the auth commands: a test of argv captures the options and runs nothing. */
export interface AuthSeams {
  login?: (opts: LoginOptions, ctx: Context) => Promise<ExitCode>;
  logout?: (opts: LogoutOptions, ctx: Context) => Promise<ExitCode>;
  status?: (opts: StatusOptions, ctx: Context) => Promise<ExitCode>;
  token?: (opts: TokenOptions, ctx: Context) => Promise<ExitCode>;
}

/** The variables behind the token, besides those of the flags. */
const TOKEN_VARIABLES = ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_COMMAND', 'PLANTSTORE_CONFIG_DIR', 'NO_COLOR, FORCE_COLOR'];
const FILE_VARIABLES = ['PLANTSTORE_CONFIG_DIR', 'NO_COLOR, FORCE_COLOR'];

/**
 * Registers `auth` and its commands. `seams` is the seam of gh's `newCmdLogin(f, runF)`: a run
 * function given there replaces the real one.
 */
export function authCommand(program: Command, ctx: Context, finish: Finish, seams: AuthSeams = {}): Command {
  const run = {
    login: seams.login ?? runLogin,
    logout: seams.logout ?? runLogout,
    status: seams.status ?? runStatus,
    token: seams.token ?? runToken,
  };
  const auth = documented(program.command('auth').description('manage the stored bearer token'), {
    examples: [
      ['echo "$TOKEN" | plantstore auth login --with-token'],
      ["plantstore config set token-command 'pass show plantstore'", 'or a command that prints a token when one is needed'],
      ['plantstore auth status'],
      ['plantstore auth logout'],
    ],
  });

  const login = auth
    .command('login')
    .description('store a token: from stdin with --with-token, else a hidden prompt; a --base-url typed here is stored with it')
    .addOption(WITH_TOKEN.option())
    .action(action(ctx, finish, (flags: LoginFlags) => run.login(loginOptions(flags), ctx)));
  documented(login, {
    globals: LOGIN_GLOBALS,
    concerns: { variables: FILE_VARIABLES, exits: [Exit.ok, Exit.usage, Exit.config, Exit.interrupted], ok: 'the token was stored' },
    examples: [
      ['plantstore auth login', 'asks for the token with a hidden prompt'],
      ['pass show plantstore | plantstore auth login --with-token', 'from a password manager'],
      [
        'echo "$TOKEN" | plantstore --profile staging auth login --with-token \\\n      --base-url https://staging.example.com/v1',
        'another profile, with its base URL',
      ],
    ],
  });

  const logout = auth
    .command('logout')
    .description('remove the stored token of the profile')
    .action(action(ctx, finish, (flags: LogoutFlags) => run.logout(logoutOptions(flags), ctx)));
  documented(logout, {
    globals: LOGOUT_GLOBALS,
    concerns: { variables: FILE_VARIABLES, exits: [Exit.ok, Exit.usage, Exit.config] },
    examples: [['plantstore auth logout'], ['plantstore --profile staging auth logout']],
  });

  const status = auth
    .command('status')
    .description('show where the token and base URL come from (exit 4 when there is no token)')
    .action(action(ctx, finish, (flags: StatusFlags) => run.status(statusOptions(flags), ctx)));
  documented(status, {
    globals: STATUS_GLOBALS,
    concerns: { variables: TOKEN_VARIABLES, exits: [Exit.ok, Exit.usage, Exit.config, Exit.auth], ok: 'a token was found' },
    examples: [
      ['plantstore auth status'],
      ['plantstore auth status --json'],
      ['plantstore auth status || plantstore auth login', 'exit 4 when there is no token: then log in'],
      ["PLANTSTORE_TOKEN_COMMAND='pass show ps' plantstore auth status", 'runs the token command once: exit 4 if it fails'],
    ],
  });

  const token = auth
    .command('token')
    .description('print the token to stdout, for piping')
    .action(action(ctx, finish, (flags: TokenFlags) => run.token(tokenOptions(flags), ctx)));
  documented(token, {
    globals: TOKEN_GLOBALS,
    concerns: { variables: TOKEN_VARIABLES, exits: [Exit.ok, Exit.usage, Exit.config, Exit.auth], ok: 'the token was printed' },
    examples: [['curl -H "Authorization: Bearer $(plantstore auth token)" ...']],
  });

  return auth;
}
