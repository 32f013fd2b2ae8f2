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
  pressure: { latencyMs: 0, jitterMs: 0, failShare: 0, retryAfterSeconds: 1, seed: 0 },
  quiet: false,
  log: false,
};
const pressed = (pressure: Partial<SandboxOptions['pressure']>): SandboxOptions => ({
  ...DEFAULTS,
  pressure: { ...DEFAULTS.pressure, ...pressure },
});

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
    [
      '--latency in ms, --jitter in seconds',
      ['sandbox', '--latency', '50ms', '--jitter', '0.02'],
      {},
      pressed({ latencyMs: 50, jitterMs: 20 }),
    ],
    ['--latency with s', ['sandbox', '--latency', '1.5s'], {}, pressed({ latencyMs: 1500 })],
    ['--fail as a percentage', ['sandbox', '--fail', '10%', '--retry-after', '0'], {}, pressed({ failShare: 0.1, retryAfterSeconds: 0 })],
    ['--fail as a fraction, --seed', ['sandbox', '--fail', '0.25', '--seed', '7'], {}, pressed({ failShare: 0.25, seed: 7 })],
    ['--rate as the client writes it', ['sandbox', '--rate', '100/s'], {}, pressed({ rate: { count: 100, periodMs: 1000 } })],
    ['--rate per minute', ['sandbox', '--rate', '3000/m'], {}, pressed({ rate: { count: 3000, periodMs: 60_000 } })],
    ['--capacity', ['sandbox', '--capacity', '16'], {}, pressed({ capacity: 16 })],
    ['-q, --log', ['sandbox', '-q', '--log'], {}, { ...DEFAULTS, quiet: true, log: true }],
    ['--quiet after the command', ['sandbox', '--quiet'], {}, { ...DEFAULTS, quiet: true }],
    ["-q before the command (its own, not the client's)", ['-q', 'sandbox'], {}, { ...DEFAULTS, quiet: true }],
    ['a client variable is not a typed option', ['sandbox'], { env: { PLANTSTORE_TIMEOUT: '5' } }, DEFAULTS],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await sandbox(argv, run)).toEqual(expected);
  });

  it.each<[string, string[], RegExp]>([
    ['--port before --plants', ['sandbox', '--plants', '-1', '--port', '70000'], /--port/],
    ['--plants before --host', ['sandbox', '--host', '', '--plants', 'x'], /--plants/],
    ['--host before --token', ['sandbox', '--token', '', '--host', ' '], /--host/],
    [
      '--latency',
      ['sandbox', '--latency', '50 ms'],
      /invalid --latency '50 ms': give a time such as 500ms, 30s, 2m or 1h \(a bare number is seconds\)/,
    ],
    ['--latency over 600s', ['sandbox', '--latency', '601s'], /the longest time is 10m/],
    ['--jitter', ['sandbox', '--jitter', '-5ms'], /invalid --jitter/],
    ['--fail over 100%', ['sandbox', '--fail', '150%'], /invalid --fail '150%': give a share of requests such as 10% or 0\.1/],
    ['--fail over 1', ['sandbox', '--fail', '1.5'], /invalid --fail/],
    ['--rate', ['sandbox', '--rate', 'fast'], /invalid --rate 'fast': give a number of requests per second/],
    ['--capacity 0', ['sandbox', '--capacity', '0'], /invalid --capacity '0': give a whole number from 1 to 100000/],
    ['--seed', ['sandbox', '--seed', 'x'], /invalid --seed/],
    ['--retry-after', ['sandbox', '--retry-after', '1.5'], /invalid --retry-after/],
    // The client's options, typed to the server: refused, never taken and ignored.
    // The commands named are those that read it, from the program: a new verb is named without an edit.
    [
      'client --timeout',
      ['sandbox', '--timeout', '5'],
      /^the sandbox does not take --timeout, an option of the client's commands \(delete, auth\);/,
    ],
    [
      'client --retries',
      ['sandbox', '--retries', '5'],
      /^the sandbox does not take --retries, an option of the client's commands \(delete\);/,
    ],
    ['client --json before the command', ['--json', 'sandbox'], /^the sandbox does not take --json/],
    ['client --base-url', ['sandbox', '--base-url', 'http://127.0.0.1:1'], /^the sandbox does not take --base-url/],
    ['client --profile', ['--profile', 'work', 'sandbox'], /^the sandbox does not take --profile/],
  ])('reports a bad %s', async (_name, argv, message) => {
    const error = await sandbox(argv).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exit).toBe(Exit.usage);
    expect((error as CliError).message).toMatch(message);
  });
});
