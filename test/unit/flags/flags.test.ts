// The one order every value follows (flag, variable, profile, default), and the
// program-wide facts derived from the flag declarations: help, the Environment
// section, README coverage.
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import type { ConfigFile } from '../../../src/config/file.js';
import type { Context } from '../../../src/context.js';
import { CONCURRENCY, RATE } from '../../../src/engine/batch-flags.js';
import { ConfigError, Exit, UsageError } from '../../../src/errors.js';
import { type AnyFlag, Flag, flagOf } from '../../../src/flags/flag.js';
import { COLOR, PROFILE, RETRIES } from '../../../src/flags/global.js';
import { wholeNumber } from '../../../src/flags/kinds.js';
import { flagReader } from '../../../src/flags/read.js';
import type { Env } from '../../../src/platform/env.js';
import { createTestIO } from '../../../src/ui/io.js';
import { ROOT } from '../../helpers/cli.js';
import { thrown } from '../../helpers/thrown.js';

const COUNT = Flag.valued(
  {
    key: 'count',
    flags: '--count <n>',
    help: 'how many',
    env: 'TEST_COUNT',
    profileKey: 'missing-error',
    default: '7',
  },
  wholeNumber(0, 10),
);
const SWITCH = Flag.switch({ key: 'loud', flags: '--loud', help: 'be loud', env: 'TEST_LOUD' });

/** A config file whose profiles are given, counting how often it is opened. */
function configWith(profiles: Record<string, Record<string, string>>): { config: () => ConfigFile; opened: () => number } {
  let opened = 0;
  const file = {
    path: '/config.json',
    profile: (name: string) => profiles[name] ?? {},
    // Only we could have written it (config/trust.ts asks before any setting is used).
    distrust: () => undefined,
    folderWritableByOthers: () => undefined,
  } as unknown as ConfigFile;
  return {
    config: () => {
      opened++;
      return file;
    },
    opened: () => opened,
  };
}

function read(parsed: Record<string, unknown>, env: Env = {}, profiles: Record<string, Record<string, string>> = {}) {
  const { config, opened } = configWith(profiles);
  return { flags: flagReader<AnyFlag>(parsed, { env, config }), opened };
}

describe('a variable set but empty', () => {
  /** What a run says on stderr when its reader meets empty variables, read through two readers of one run. */
  function said(
    env: Env,
    profiles: Record<string, Record<string, string>>,
    read: (flags: ReturnType<typeof flagReader<AnyFlag>>) => void,
  ): string[] {
    const io = createTestIO();
    const { config } = configWith(profiles);
    for (let i = 0; i < 2; i++) read(flagReader<AnyFlag>({}, { env, config, io }));
    return io.stderr().split('\n').filter(Boolean);
  }

  it("is said once per run, with where the value comes from instead (a profile's, or the default profile)", () => {
    expect(said({ TEST_COUNT: '' }, { default: { 'missing-error': '3' } }, (flags) => flags.value(COUNT))).toEqual([
      "warning: TEST_COUNT is set but empty, so it is not used; the count comes from profile 'default' in /config.json",
    ]);
    expect(said({ TEST_COUNT: '' }, {}, (flags) => flags.value(COUNT))).toEqual([
      'warning: TEST_COUNT is set but empty, so it is not used',
    ]);
    expect(said({ PLANTSTORE_PROFILE: '' }, {}, (flags) => flags.value(PROFILE))).toEqual([
      "warning: PLANTSTORE_PROFILE is set but empty, so it is not used; the profile is 'default'",
    ]);
  });

  it('is not said for a setting no profile holds (a timeout, a switch), nor when the flag is given', () => {
    expect(said({ PLANTSTORE_RETRIES: '', TEST_LOUD: '' }, {}, (flags) => [flags.value(RETRIES), flags.value(SWITCH)])).toEqual([]);
    const io = createTestIO();
    flagReader<AnyFlag>({ count: '1' }, { env: { TEST_COUNT: '' }, config: configWith({}).config, io }).value(COUNT);
    expect(io.stderr()).toBe('');
  });
});

describe('FlagReader: flag, then variable, then profile, then default', () => {
  it.each<[string, Record<string, unknown>, Env, Record<string, Record<string, string>>, number, string | undefined]>([
    ['the flag first', { count: '1' }, { TEST_COUNT: '2' }, { default: { 'missing-error': '3' } }, 1, '--count'],
    ['then the variable', {}, { TEST_COUNT: '2' }, { default: { 'missing-error': '3' } }, 2, 'TEST_COUNT'],
    ['an empty variable is unset', {}, { TEST_COUNT: '' }, { default: { 'missing-error': '3' } }, 3, "profile 'default' in /config.json"],
    ['then the selected profile', { profile: 'work' }, {}, { work: { 'missing-error': '4' } }, 4, "profile 'work' in /config.json"],
    ['then the default, which is no source', {}, {}, {}, 7, undefined],
  ])('%s', (_name, parsed, env, profiles, value, source) => {
    const { flags } = read(parsed, env, profiles);
    expect(flags.value(COUNT)).toBe(value);
    expect(flags.sourced(COUNT)?.source).toBe(source);
  });

  it('a bad flag is a usage error (exit 2), a bad variable or setting a configuration error (exit 3), each naming its source', () => {
    const flag = thrown(() => read({ count: '11' }).flags.value(COUNT));
    expect(flag).toBeInstanceOf(UsageError);
    expect((flag as UsageError).message).toBe("invalid --count '11': give a whole number from 0 to 10");
    const variable = thrown(() => read({}, { TEST_COUNT: 'x' }).flags.value(COUNT));
    expect(variable).toBeInstanceOf(ConfigError);
    expect((variable as ConfigError).message).toBe("invalid TEST_COUNT 'x': give a whole number from 0 to 10");
    const stored = thrown(() => read({}, {}, { default: { 'missing-error': '-1' } }).flags.value(COUNT));
    expect(stored).toMatchObject({
      exit: Exit.config,
      message: "invalid profile 'default' in /config.json '-1': give a whole number from 0 to 10",
    });
  });

  it('reads nothing until asked: a bad value no command reads is no error, and the config file stays closed', () => {
    const { flags, opened } = read({ count: 'bad' }, { TEST_COUNT: 'bad' });
    expect(flags.value(SWITCH)).toBe(false);
    expect(opened()).toBe(0);
    expect(read({ count: '5' }).opened()).toBe(0);
    const fromFlag = read({ count: '5' });
    fromFlag.flags.value(COUNT);
    expect(fromFlag.opened()).toBe(0);
  });

  it('parses a value once, however often it is read', () => {
    let parses = 0;
    const counted = Flag.valued({ key: 'n', flags: '--n <n>', help: '' }, (raw) => {
      parses++;
      return raw;
    });
    const { flags } = read({ n: 'x' });
    flags.value(counted);
    flags.sourced(counted);
    expect(parses).toBe(1);
  });

  it('given() reads the command line only', () => {
    expect(read({}, { TEST_COUNT: '2' }).flags.given(COUNT)).toBeUndefined();
    expect(read({ count: '3' }, { TEST_COUNT: '2' }).flags.given(COUNT)).toEqual({ value: 3, source: '--count' });
  });

  it('a switch is on when given, or when its variable is 1', () => {
    expect(read({ loud: true }).flags.value(SWITCH)).toBe(true);
    expect(read({}, { TEST_LOUD: '1' }).flags.sourced(SWITCH)).toEqual({ value: true, source: 'TEST_LOUD=1' });
    expect(read({}, { TEST_LOUD: '0' }).flags.value(SWITCH)).toBe(false);
    expect(read({}).flags.value(SWITCH)).toBe(false);
  });

  it('a negated switch (--no-color, stored as color) is on unless given', () => {
    expect(read({}).flags.value(COLOR)).toBe(true);
    expect(read({ color: false }).flags.value(COLOR)).toBe(false);
  });

  it('an empty flag is a bad value like any other, not an unset one; an empty variable is unset', () => {
    expect(thrown(() => read({ rate: '' }).flags.value(RATE))).toMatchObject({
      exit: Exit.usage,
      message:
        "invalid --rate '': give a number of requests per second, minute, hour or day, such as 40/s, 300/m, 1000/h or 5000/d (a bare 40 is per second)",
    });
    expect(read({}, { PLANTSTORE_RATE: '' }).flags.value(RATE)).toBeUndefined();
  });

  it('whole numbers may have whitespace around them, as a shell variable often does', () => {
    expect(read({ concurrency: ' 16\n' }).flags.value(CONCURRENCY)).toBe(16);
    expect(read({}, { PLANTSTORE_RETRIES: '3 ' }).flags.value(RETRIES)).toBe(3);
  });

  it('help says where else the value comes from', () => {
    expect(COUNT.option().description).toBe('how many (env TEST_COUNT; profile key missing-error; default 7)');
    expect(SWITCH.option().description).toBe('be loud (also TEST_LOUD=1)');
  });

  it('refuses a key that is not where commander stores the value', () => {
    const wrong = Flag.valued({ key: 'maxWait', flags: '--max-retry-wait <s>', help: '' }, (raw) => raw);
    expect(() => wrong.option()).toThrow(/stored as maxRetryWait/);
  });
});

describe('the program, walked', () => {
  const program = buildProgram({ version: '0.0.0', io: createTestIO({ env: {} }) } as unknown as Context, () => {});
  const commands: Command[] = [];
  const visit = (command: Command): void => {
    commands.push(command);
    command.commands.forEach(visit);
  };
  visit(program);
  const options: Option[] = commands.flatMap((command) => command.options.filter((option) => option.long !== '--version'));

  it('declares every option as a Flag, so its variable, default and completion live in one place', () => {
    const bare = options.filter((option) => flagOf(option) === undefined).map((option) => option.flags);
    expect(options.length).toBeGreaterThan(20);
    expect(bare).toEqual([]);
  });

  it('lists every variable of every flag in the Environment section of --help', () => {
    const help = readAfterHelp(program);
    const variables = options.map((option) => flagOf(option)?.spec.env).filter((env) => env !== undefined);
    expect(variables).toContain('PLANTSTORE_RATE');
    for (const env of variables) expect(help).toMatch(new RegExp(`^  ${env}`, 'm'));
  });

  it('documents every visible flag and every variable in the reference (docs/reference.md)', () => {
    const readme = readFileSync(`${ROOT}/docs/reference.md`, 'utf8');
    for (const option of options.filter((option) => !option.hidden)) expect(readme).toContain(option.long);
    for (const option of options) {
      const env = flagOf(option)?.spec.env;
      if (env) expect(readme).toContain(env);
    }
  });

  it("shows in each command's help exactly the global options it reads", () => {
    const token = commands.find((command) => command.name() === 'token' && command.parent?.name() === 'auth');
    const help = token?.helpInformation() ?? '';
    expect(help).toContain('--token-file');
    expect(help).not.toContain('--retries');
  });
});

/** The whole help as printed, with what follows commander's part: the Environment and exit-code sections. */
function readAfterHelp(program: Command): string {
  let text = '';
  program.configureOutput({ writeOut: (chunk) => (text += chunk) });
  program.outputHelp();
  return text;
}
