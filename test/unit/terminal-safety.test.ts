// Values a user or a file supplied reach the terminal as escapes, never as control
// sequences; completion offers only profile names --profile accepts; --json failures of
// config are JSON; a bad --profile on the command line is a usage error.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shown } from '../../src/text/shown.js';
import { reportFatal } from '../../src/ui/fatal.js';
import { createTestIO } from '../../src/ui/io.js';
import { inProcess } from '../helpers/in-process.js';

const { run, dir, file, stored } = inProcess();
const ESC = '\u001b';
/** What main prints on stderr for an error that ended the run. */
function printed(error: unknown): string {
  const io = createTestIO();
  reportFatal(error, io, { json: false, debug: false });
  return io.stderr();
}
const plant = (profiles: Record<string, Record<string, string>>) => writeFileSync(file(), JSON.stringify({ profiles }), { mode: 0o600 });

describe('shown', () => {
  it.each([
    ['an escape sequence', `${ESC}]0;pwned\u0007`, '\\x1b]0;pwned\\x07'],
    ['a carriage return', 'a\rb', 'a\\x0db'],
    ['a C1 control', 'a\u009bb', 'a\\x9bb'],
    ['a bidi override', '\u202e12', '\\u202e12'],
    ['an isolate', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['plain text, tabs and newlines', 'base-url=https://a.example/v1\tx', 'base-url=https://a.example/v1\tx'],
  ])('%s', (_name, raw, expected) => {
    expect(shown(raw)).toBe(expected);
  });
});

describe('values from the user or a file, printed', () => {
  it('config list and config get: a stored value with an escape sequence', async () => {
    plant({ default: { 'base-url': `https://a.example/${ESC}[2J` } });
    const list = await run(['config', 'list']);
    expect(list.stdout).toMatchInlineSnapshot(`
      "base-url=https://a.example/\\x1b[2J
      "
    `);
    const get = await run(['config', 'get', 'base-url']);
    expect(get.stdout).toBe('https://a.example/\\x1b[2J\n');
  });

  it('auth status: a token file path and a base URL source from the environment', async () => {
    const tokenFile = path.join(dir(), `t${ESC}]0;x\u0007`);
    writeFileSync(tokenFile, 'status-Token-12345678\n');
    const status = await run(['auth', 'status'], { env: { PLANTSTORE_TOKEN_FILE: tokenFile, PLANTSTORE_BASE_URL: 'https://a.example' } });
    expect(status.exit).toBe(0);
    expect(status.stdout).toContain('(from token file ');
    expect(status.stdout).not.toContain(ESC);
    expect(status.stdout).toContain('t\\x1b]0;x\\x07');
  });

  it('an error quoting a value from the environment, as printed', async () => {
    const result = await run(['config', 'list'], { env: { PLANTSTORE_PROFILE: `${ESC}[31mred` } });
    expect(result.exit).toBe(3);
    expect(printed(result.thrown)).toMatchInlineSnapshot(`
      "plantstore: invalid profile name '\\x1b[31mred' (from PLANTSTORE_PROFILE): use letters, digits, '-' and '_'
      "
    `);
  });

  it('an id read from stdin with a bidi override, as printed', async () => {
    const result = await run(['delete', '--stdin'], {
      env: { PLANTSTORE_TOKEN: 'ids-Token-12345678', PLANTSTORE_BASE_URL: 'https://a.example' },
      stdin: ['1\n\u202e21\n'],
    });
    expect(result.exit).toBe(2);
    expect(printed(result.thrown)).toMatchInlineSnapshot(`
      "plantstore: invalid plant id '\\u202e21' on line 2 of standard input: an id is a whole number such as 42
      "
    `);
  });

  it('a warning naming a config folder from PLANTSTORE_CONFIG_DIR', async () => {
    const folder = path.join(dir(), `c${ESC}[8m`);
    const { mkdirSync, chmodSync } = await import('node:fs');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    writeFileSync(path.join(folder, 'config.json'), '{"profiles":{}}', { mode: 0o600 });
    const result = await run(['config', 'list'], { env: { PLANTSTORE_CONFIG_DIR: folder } });
    // Writable by others without the sticky bit: the warning says nothing in the file is used, naming the folder.
    expect(result.stderr).toContain('is reached through folder ');
    expect(result.stderr).not.toContain(ESC);
  });
});

describe('completion offers only profile names --profile accepts', () => {
  it('a planted name that would run a command is left out', async () => {
    plant({ work: {}, 'x;touch pwned': {}, 'a b': {}, [`${ESC}[2J`]: {}, 'ok_2-b': {} });
    const result = await run(['completion', '--list-profiles']);
    expect(result.stdout).toBe('work\nok_2-b\n');
  });
});

describe('config with --json', () => {
  it('get of an unset key: the one failure object, exit 3, with no delete fields', async () => {
    const result = await run(['--json', 'config', 'get', 'base-url']);
    expect(result.exit).toBe(3);
    expect(result.stdout).toBe('');
    const io = createTestIO();
    reportFatal(result.thrown, io, { json: true, debug: false });
    expect(io.stdout()).toBe(
      `${JSON.stringify({ exit: 3, message: "base-url is not set for profile 'default'; set it with plantstore config set base-url <value>" })}\n`,
    );
  });

  it('path: an object', async () => {
    const result = await run(['--json', 'config', 'path']);
    expect(result.exit).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ path: file() });
  });
});

describe('an invalid profile name', () => {
  it.each([
    ['on the command line: a usage error, exit 2', ['--profile', '../x', 'config', 'list'], {}, 2],
    ['from PLANTSTORE_PROFILE: a configuration error, exit 3', ['config', 'list'], { PLANTSTORE_PROFILE: '../x' }, 3],
  ])('%s', async (_name, args, env, exit) => {
    const result = await run(args, { env });
    expect(result.exit).toBe(exit);
    expect(result.error).toMatchSnapshot();
  });
});

// A token command is one line of plain text: a control character in it could rewrite the
// terminal wherever the command is echoed or named, and a line break splits config list (issue 27).
describe('a token-command with control characters', () => {
  it.each([
    ['an escape sequence', `pass show ${ESC}[2Jplantstore`, '\\x1b'],
    ['a bell', 'pass show plantstore\u0007', '\\x07'],
    ['a quoted line break', "sh -c 'pass show a\nhead -n 1'", '\\x0a'],
    ['a carriage return', 'pass show\rplantstore', '\\x0d'],
    ['a tab', 'pass\tshow plantstore', '\\x09'],
    ['DEL', 'pass show plant\u007fstore', '\\x7f'],
    ['a C1 control', 'pass show \u009bplantstore', '\\x9b'],
    ['a bidi override', 'pass show \u202eerotstnalp', '\\u202e'],
    ['an isolate', 'pass show \u2066plantstore\u2069', '\\u2066'],
    ['a line separator', 'pass show\u2028plantstore', '\\u2028'],
  ])('config set refuses %s: exit 2, one line naming it, nothing stored or echoed', async (_name, value, escaped) => {
    const result = await run(['config', 'set', 'token-command', value]);
    expect(result.exit).toBe(2);
    expect(result.error).toBe(
      `invalid token-command: it holds the control character ${escaped}, which could rewrite the terminal wherever the command is shown; type it on one line, without control or bidi characters`,
    );
    expect(printed(result.thrown).split('\n')).toHaveLength(2);
    expect(result.stdout + result.stderr).toBe('');
    expect(stored()).toBeUndefined();
  });

  it('config set keeps a plain one, and says so in plain text', async () => {
    const result = await run(['config', 'set', 'token-command', "  sh -c 'pass show plantstore | head -n 1'  "]);
    expect(result.exit).toBe(0);
    expect(result.stderr).toBe("✓ Set token-command for profile 'default' to sh -c 'pass show plantstore | head -n 1'\n");
    expect(stored()).toEqual({ profiles: { default: { 'token-command': "sh -c 'pass show plantstore | head -n 1'" } } });
  });

  it('one stored before (or by hand) is listed on one line, and never run: exit 3', async () => {
    plant({ default: { 'token-command': `sh -c 'pass show a\nhead -n 1${ESC}[8m'`, 'base-url': 'https://a.example' } });
    const list = await run(['config', 'list']);
    expect(list.stdout).toBe("base-url=https://a.example\ntoken-command=sh -c 'pass show a\\x0ahead -n 1\\x1b[8m'\n");
    const status = await run(['auth', 'status']);
    expect(status.exit).toBe(3);
    expect(status.error).toBe(
      `the token-command of profile 'default' in ${file()} holds the control character \\x0a, which could rewrite the terminal wherever the command is shown; set it again on one line, without control or bidi characters (plantstore config set token-command)`,
    );
  });

  it('PLANTSTORE_TOKEN_COMMAND with one is never run: exit 3', async () => {
    const result = await run(['auth', 'status'], { env: { PLANTSTORE_TOKEN_COMMAND: `pass show ${ESC}]0;x\u0007plantstore` } });
    expect(result.exit).toBe(3);
    expect(result.error).toBe(
      'the token command in PLANTSTORE_TOKEN_COMMAND holds the control character \\x1b, which could rewrite the terminal wherever the command is shown; write it on one line, without control or bidi characters',
    );
  });
});
