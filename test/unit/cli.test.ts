// The program as a whole, in-process: argv that no command gets to see, and --version. Each
// command's own tests are in test/unit/commands/<command>/.
import { describe, expect, it } from 'vitest';
import { CliError, Exit } from '../../src/errors.js';
import { expectUsageError, inProcess, VERSION } from '../helpers/in-process.js';

const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';
/** The env of a run that can reach the (fake) service. */
const READY = { PLANTSTORE_BASE_URL: BASE, PLANTSTORE_TOKEN: TOKEN };

const { run } = inProcess();

describe('argv errors are usage errors (exit 2) and send nothing', () => {
  it.each<[string, string[], RegExp]>([
    ['no command', [], /a command is missing/],
    ['unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['unknown command with a suggestion', ['delet', '1'], /unknown command 'delet' \(did you mean delete\?\)/],
    ['unknown option with a suggestion', ['delete', '--jsn', '1'], /unknown option '--jsn' \(did you mean --json\?\)/],
    ['unknown global option', ['--frob', 'delete', '1'], /unknown option '--frob'/],
    ['delete without an id', ['delete'], /no plant id given/],
    ['one bad id among good ones', ['delete', '1', 'abc'], /invalid plant id 'abc'/],
    ['a bad id after the good ones', ['delete', '1', '2', '1.5'], /invalid plant id '1\.5'/],
    ['an out-of-range id', ['delete', '9223372036854775808'], /out of range/],
    ['a bad --timeout', ['--timeout', 'soon', 'delete', '1'], /invalid --timeout 'soon'/],
    ['--timeout without a value', ['delete', '1', '--timeout'], /argument missing/],
    [
      'a --timeout below the minimum',
      ['--timeout', '0.0001', 'delete', '1'],
      /^invalid --timeout '0\.0001': the shortest timeout is 10ms; give a time such as 500ms, 30s/,
    ],
    ['a --timeout of 0', ['delete', '1', '--timeout', '0'], /^invalid --timeout '0': the shortest timeout is 10ms/],
  ])('%s', async (_name, argv, message) => {
    const result = await run(argv, { env: READY });
    expectUsageError(result, message);
    expect(result.built).toEqual([]);
    expect(result.sent).toEqual([]);
    expect(result.stdout).toBe('');
  });

  it('a PLANTSTORE_TIMEOUT below the minimum is a configuration error (exit 3)', async () => {
    const result = await run(['delete', '1'], { env: { ...READY, PLANTSTORE_TIMEOUT: '0.009' } });
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.config);
    expect(result.error).toBe(
      "invalid PLANTSTORE_TIMEOUT '0.009': the shortest timeout is 10ms; give a time such as 500ms, 30s, 2m or 1h (a bare number is seconds)",
    );
    expect(result.built).toEqual([]);
  });

  it("points to the command's own --help", async () => {
    const result = await run(['delete', '--jsn', '1'], { env: READY });
    expect(result.error).toMatch(/see plantstore delete --help$/);
  });
});

describe('version', () => {
  it.each([['--version'], ['-V']])('%s prints the version and returns 0', async (flag) => {
    const result = await run([flag]);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
  });
});
