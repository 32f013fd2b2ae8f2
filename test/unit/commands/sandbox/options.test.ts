// argv to the options `sandbox` runs with, captured at the run seam: no server is started.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_TOKEN, type SandboxOptions } from '../../../../src/commands/sandbox/flags.js';
import { CliError, Exit } from '../../../../src/errors.js';
import { type OptionsOfRun, optionsOf } from '../../../helpers/options-of.js';

const TOKEN = 'my-sandbox-token-42';

const sandbox = (argv: string[], run?: OptionsOfRun) => optionsOf('sandbox', argv, run);

const DEFAULTS: SandboxOptions = {
  port: 8080,
  plants: 100,
  host: '127.0.0.1',
  token: { value: DEFAULT_SANDBOX_TOKEN, source: 'default' },
};

describe('sandbox: argv to options', () => {
  it.each<[string, string[], OptionsOfRun, SandboxOptions]>([
    ['defaults', ['sandbox'], {}, DEFAULTS],
    [
      '--port --plants --host',
      ['sandbox', '--port', '0', '--plants', '0', '--host', '0.0.0.0'],
      {},
      { ...DEFAULTS, port: 0, plants: 0, host: '0.0.0.0' },
    ],
    ['--token', ['sandbox', '--token', TOKEN], {}, { ...DEFAULTS, token: { value: TOKEN, source: '--token' } }],
    [
      'PLANTSTORE_SANDBOX_TOKEN',
      ['sandbox'],
      { env: { PLANTSTORE_SANDBOX_TOKEN: TOKEN } },
      { ...DEFAULTS, token: { value: TOKEN, source: 'PLANTSTORE_SANDBOX_TOKEN' } },
    ],
    [
      '--token over PLANTSTORE_SANDBOX_TOKEN',
      ['sandbox', '--token', TOKEN],
      { env: { PLANTSTORE_SANDBOX_TOKEN: 'another-token-123' } },
      { ...DEFAULTS, token: { value: TOKEN, source: '--token' } },
    ],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await sandbox(argv, run)).toEqual(expected);
  });

  it.each<[string, string[], RegExp]>([
    ['--port before --plants', ['sandbox', '--plants', '-1', '--port', '70000'], /--port/],
    ['--plants before --host', ['sandbox', '--host', '', '--plants', 'x'], /--plants/],
    ['--host before --token', ['sandbox', '--token', '', '--host', ' '], /--host/],
  ])('reports a bad %s', async (_name, argv, message) => {
    const error = await sandbox(argv).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exit).toBe(Exit.usage);
    expect((error as CliError).message).toMatch(message);
  });
});
