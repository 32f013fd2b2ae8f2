// config get, set, unset and path, in-process on a temporary config folder. What the config file
// itself withstands (a foreign or corrupt file, permissions, an unwritable folder) is in
// integrity.test.ts beside this file.
import { describe, expect, it } from 'vitest';
import { CliError, Exit } from '../../../../src/errors.js';
import { expectUsageError, inProcess } from '../../../helpers/in-process.js';

const { run, file, stored } = inProcess();

describe('config', () => {
  it('set base-url then get base-url', async () => {
    const set = await run(['config', 'set', 'base-url', 'https://api.example.com/v1/']);
    expect(set.error).toBeUndefined();
    expect(set.exit).toBe(0);
    expect(set.stdout).toBe('');
    expect(set.stderr).toMatchInlineSnapshot(`
      "✓ Set base-url for profile 'default' to https://api.example.com/v1
      "
    `);

    const get = await run(['config', 'get', 'base-url']);
    expect(get.exit).toBe(0);
    expect(get.stdout).toBe('https://api.example.com/v1\n');
    expect(stored()).toEqual({ profiles: { default: { 'base-url': 'https://api.example.com/v1' } } });
  });

  it('set and get in a named profile stay apart from the default', async () => {
    await run(['--profile', 'work', 'config', 'set', 'base-url', 'https://work.example.com']);
    expect((await run(['config', 'get', 'base-url', '--profile', 'work'])).stdout).toBe('https://work.example.com\n');
    const unset = await run(['config', 'get', 'base-url']);
    expect(unset.error).toMatchInlineSnapshot(
      `"base-url is not set for profile 'default'; set it with plantstore config set base-url <value>"`,
    );
    expect(unset.exit).toBe(Exit.config);
    expect(unset.stdout).toBe('');
  });

  it('set refuses an invalid URL with exit 3 and stores nothing', async () => {
    const result = await run(['config', 'set', 'base-url', 'ftp://x.example.com']);
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.config);
    expect(stored()).toBeUndefined();
  });

  it.each<[string[]]>([
    [['config', 'get', 'token']],
    [['config', 'set', 'token', 'abc']],
    [['config', 'get', 'colour']],
    [['config', 'set', 'base-url']],
  ])('%j is a usage error', async (argv) => {
    const result = await run(argv);
    expectUsageError(result, /./);
    expect(result.error).toMatchSnapshot();
    expect(stored()).toBeUndefined();
  });

  it('path prints the file location', async () => {
    expect((await run(['config', 'path'])).stdout).toBe(`${file()}\n`);
  });
});
