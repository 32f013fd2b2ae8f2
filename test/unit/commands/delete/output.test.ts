import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { DELETE_RESULTS } from '../../../../src/commands/delete/operation.js';
import { resultJson } from '../../../../src/commands/delete/report.js';
import type { DeleteResult, Failed, NotDeleted } from '../../../../src/commands/delete/result.js';
import { failureLine } from '../../../../src/commands/plants/shared/failure.js';
import { createReporter, type OutputMode } from '../../../../src/engine/report.js';
import { AuthError, ConfigError, Exit, UsageError } from '../../../../src/errors.js';
import type { Env } from '../../../../src/platform/env.js';
import { argvWantsJson, type FatalOptions, fatalJson, reportFatal } from '../../../../src/ui/fatal.js';
import { createIO, createTestIO } from '../../../../src/ui/io.js';

const MAX_ID = '9223372036854775807';
const MIN_ID = '-9223372036854775808';

const deleted = (id: string, status = 204): DeleteResult => ({ id, deleted: true, status });

const refused: Failed = {
  id: '13',
  deleted: false,
  status: 400,
  error: 13,
  message: 'plant 13 is protected',
  exit: Exit.apiRefused,
  attempted: true,
};

const unreachable: NotDeleted = {
  id: MAX_ID,
  deleted: false,
  status: null,
  error: null,
  message: 'connection refused (api.example.com)',
  exit: Exit.network,
  attempted: true,
};

const notSent: NotDeleted = {
  id: '8',
  deleted: false,
  status: null,
  error: null,
  message: 'not sent: interrupted before its turn',
  exit: Exit.interrupted,
  attempted: false,
};

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('resultJson', () => {
  it.each([
    [deleted(MAX_ID), `{"id":${MAX_ID},"deleted":true,"status":204}`],
    [deleted(MIN_ID, 200), `{"id":${MIN_ID},"deleted":true,"status":200}`],
    [deleted('9007199254740993'), '{"id":9007199254740993,"deleted":true,"status":204}'],
  ])('a success keeps the exact digits of the id: %j', (result, raw) => {
    const text = resultJson(result);
    expect(text).toBe(raw);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });

  it.each<[string, NotDeleted, Record<string, unknown>]>([
    ['an API refusal', refused, { id: 13, deleted: false, status: 400, error: 13, message: 'plant 13 is protected', exit: 1 }],
    [
      'no answer at all',
      unreachable,
      { deleted: false, status: null, error: null, message: 'connection refused (api.example.com)', exit: 7 },
    ],
    [
      'never attempted',
      notSent,
      { id: 8, deleted: false, status: null, error: null, message: 'not sent: interrupted before its turn', exit: 130, attempted: false },
    ],
  ])('a failure (%s) is parseable and complete', (_name, result, expected) => {
    const text = resultJson(result);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed).toMatchObject(expected);
    expect(text).toContain(`"id":${result.id},`);
    expect(Object.hasOwn(parsed, 'attempted')).toBe(!result.attempted);
    expect(text.includes('"attempted":false')).toBe(!result.attempted);
  });

  it('escapes quotes, backslashes and line breaks in the message', () => {
    const message = 'he said "no"\\ and\nleft\u2028';
    const text = resultJson({ ...refused, message });
    expect(text).not.toContain('\n');
    expect((JSON.parse(text) as { message: string }).message).toBe(message);
  });

  it('a negative id is a valid JSON number', () => {
    expect(JSON.parse(resultJson(deleted('-5'))) as unknown).toEqual({ id: -5, deleted: true, status: 204 });
  });
});

describe('fatalJson', () => {
  it.each([
    [Exit.usage, "invalid plant id 'abc'"],
    [Exit.config, 'config file /x/config.json is not valid JSON'],
    [Exit.auth, 'no token for profile "default"\n'],
  ])('exit %i is one parseable line', (exit, message) => {
    const text = fatalJson(exit, message);
    expect(text).not.toContain('\n');
    expect(JSON.parse(text) as unknown).toEqual({ exit, message });
  });

  it("carries the fields the failing command adds (delete's deleted:false), before exit and message", () => {
    expect(fatalJson(Exit.usage, 'no plant id given', { deleted: false })).toBe('{"deleted":false,"exit":2,"message":"no plant id given"}');
  });
});

describe('createReporter', () => {
  const run = (mode: OutputMode, results: DeleteResult[]) => {
    const io = createTestIO();
    const reporter = createReporter(io, mode, DELETE_RESULTS);
    for (const result of results) reporter.result(result);
    return { stdout: io.stdout(), stderr: io.stderr() };
  };

  it('folds the ids a signal caught in flight after ten, as it folds ids never sent, and keeps every JSON line', () => {
    const caught = (id: string): Failed => ({
      id,
      deleted: false,
      status: null,
      error: null,
      message: 'interrupted while waiting for the answer; the server may or may not have deleted it',
      exit: Exit.terminated,
      attempted: true,
      uncertain: true,
    });
    const ids = Array.from({ length: 64 }, (_, i) => String(i + 1));
    const io = createTestIO();
    const reporter = createReporter(io, { json: true, quiet: false }, DELETE_RESULTS);
    for (const id of ids) reporter.result(caught(id));
    reporter.finish();
    const lines = io.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('✗ … and 54 more in flight when interrupted');
    expect(io.stdout().trimEnd().split('\n')).toHaveLength(64);
    // A failure of another kind is never folded.
    const other = createTestIO();
    const plain = createReporter(other, { json: false, quiet: false }, DELETE_RESULTS);
    for (const id of ids) plain.result({ ...caught(id), exit: Exit.timeout });
    plain.finish();
    expect(other.stderr().trimEnd().split('\n')).toHaveLength(64);
  });

  it('human: a success line on stdout, nothing on stderr', () => {
    expect(run({ json: false, quiet: false }, [deleted('42')])).toMatchInlineSnapshot(`
      {
        "stderr": "",
        "stdout": "Deleted plant 42
      ",
      }
    `);
  });

  it('human: a failure line on stderr in the documented format', () => {
    expect(run({ json: false, quiet: false }, [refused])).toMatchInlineSnapshot(`
      {
        "stderr": "✗ plant 13: error 13: plant 13 is protected (HTTP 400)
      ",
        "stdout": "",
      }
    `);
  });

  it('human: a failure without an answer has no code and no HTTP status', () => {
    expect(run({ json: false, quiet: false }, [unreachable]).stderr).toMatchInlineSnapshot(`
      "✗ plant 9223372036854775807: connection refused (api.example.com)
      "
    `);
  });

  it('human: results stay in order, each on its own stream', () => {
    const out = run({ json: false, quiet: false }, [deleted('1'), refused, deleted('2')]);
    expect(out.stdout).toMatchInlineSnapshot(`
      "Deleted plant 1
      Deleted plant 2
      "
    `);
    expect(lines(out.stderr)).toHaveLength(1);
  });

  it('--quiet: nothing on success', () => {
    expect(run({ json: false, quiet: true }, [deleted('1'), deleted('2')])).toEqual({ stdout: '', stderr: '' });
  });

  it('--quiet: failures still reach stderr', () => {
    const out = run({ json: false, quiet: true }, [deleted('1'), refused]);
    expect(out).toMatchInlineSnapshot(`
      {
        "stderr": "✗ plant 13: error 13: plant 13 is protected (HTTP 400)
      ",
        "stdout": "",
      }
    `);
  });

  it.each([
    { json: true, quiet: false },
    { json: true, quiet: true },
  ])('--json (%j): only JSON lines on stdout, one per result, failures also on stderr', (mode) => {
    const out = run(mode, [deleted(MAX_ID), refused, notSent]);
    const stdoutLines = lines(out.stdout);
    expect(stdoutLines).toEqual([resultJson(deleted(MAX_ID)), resultJson(refused), resultJson(notSent)]);
    for (const line of stdoutLines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(out.stdout).not.toContain('Deleted plant');
    expect(lines(out.stderr)).toEqual([failureLine(createTestIO(), refused), failureLine(createTestIO(), notSent)]);
  });
});

describe('the success line follows the color decision, as failures do', () => {
  const GREEN_MARK = '\u001b[32m✓\u001b[39m';
  const RED_MARK = '\u001b[31m✗\u001b[39m';

  /** One success and one failure through a reporter whose stdout and stderr are terminals or not. */
  function report(isTTY: boolean, env: Env) {
    let stdout = '';
    let stderr = '';
    const io = createIO(
      { isTTY, write: (text: string) => (stdout += text) },
      { isTTY, write: (text: string) => (stderr += text) },
      false,
      env,
      Chalk,
    );
    const reporter = createReporter(io, { json: false, quiet: false }, DELETE_RESULTS);
    reporter.result(deleted('42'));
    reporter.result({ ...refused, status: 404, message: 'gone', error: null, exit: Exit.notFound });
    reporter.result({ id: '43', deleted: false, absent: true, status: 404 });
    return { stdout, stderr };
  }

  it.each<[string, boolean, Env, string, string]>([
    ['a pipe, FORCE_COLOR=1: colored like failures', false, { FORCE_COLOR: '1' }, `${GREEN_MARK} Deleted plant 42`, RED_MARK],
    ['a terminal: colored', true, {}, `${GREEN_MARK} Deleted plant 42`, RED_MARK],
    ['a pipe: plain, no mark, for scripts', false, {}, 'Deleted plant 42', '✗'],
    ['a pipe, FORCE_COLOR=0: plain', false, { FORCE_COLOR: '0' }, 'Deleted plant 42', '✗'],
    ['a terminal, NO_COLOR: the mark without color', true, { NO_COLOR: '1' }, '✓ Deleted plant 42', '✗'],
    ['a terminal, FORCE_COLOR=0: the mark without color', true, { FORCE_COLOR: '0' }, '✓ Deleted plant 42', '✗'],
  ])('%s', (_name, isTTY, env, success, failureMark) => {
    const { stdout, stderr } = report(isTTY, env);
    expect(lines(stdout)[0]).toBe(success);
    expect(lines(stdout)[1]).toMatch(/Plant 43 already absent$/);
    expect(lines(stdout)[1]?.startsWith(success.slice(0, -'Deleted plant 42'.length))).toBe(true);
    expect(stderr.startsWith(`${failureMark} plant 13`)).toBe(true);
  });
});

describe('reportFatal', () => {
  const TOKEN = 'super-secret-token-42';
  const options = (overrides: Partial<FatalOptions> = {}): FatalOptions => ({ json: false, debug: false, ...overrides });

  it.each([
    [new UsageError("invalid plant id 'abc'"), 2],
    [new ConfigError('no base URL'), 3],
    [new AuthError('no token'), 4],
  ])('a CliError (%s) gives its exit code and one line', (error, exit) => {
    const io = createTestIO();
    expect(reportFatal(error, io, options())).toBe(exit);
    expect(io.stdout()).toBe('');
    expect(io.stderr()).toBe(`plantstore: ${error.message}\n`);
  });

  it('folds a multi-line message into one line', () => {
    const io = createTestIO();
    reportFatal(new UsageError('first\n  second\nthird'), io, options());
    expect(io.stderr()).toMatchInlineSnapshot(`
      "plantstore: first second third
      "
    `);
  });

  it.each([
    ['an Error', new TypeError('x is not a function'), 'x is not a function'],
    ['a thrown string', 'weird', 'weird'],
  ])('%s is an internal error: exit 70, "please report", no stack', (_name, error, text) => {
    const io = createTestIO();
    expect(reportFatal(error, io, options())).toBe(Exit.internal);
    const stderr = lines(io.stderr());
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toContain(`internal error: ${text}`);
    // The whole sentence, word for word, for each thrown value.
    expect(stderr[0]).toMatchSnapshot();
    expect(io.stderr()).not.toMatch(/\n\s+at /);
  });

  it('prints the stack of an internal error with debug', () => {
    const io = createTestIO();
    const error = new Error('boom');
    expect(reportFatal(error, io, options({ debug: true }))).toBe(70);
    expect(io.stderr()).toContain('internal error: boom');
    expect(io.stderr()).toMatch(/\n\s+at /);
  });

  it('does not print a stack for a CliError even with debug', () => {
    const io = createTestIO();
    reportFatal(new ConfigError('bad file'), io, options({ debug: true }));
    expect(io.stderr()).toMatchInlineSnapshot(`
      "plantstore: bad file
      "
    `);
  });

  it.each([
    ['a CliError', new ConfigError(`token ${TOKEN} rejected`), false],
    ['an internal error', new Error(`oops Bearer ${TOKEN}`), false],
    ['an internal error with its stack', new Error(`oops Bearer ${TOKEN}`), true],
  ])('scrubs a registered token from %s', (_name, error, debug) => {
    const io = createTestIO();
    io.redact(TOKEN);
    reportFatal(error, io, options({ debug, json: true }));
    expect(io.stderr()).not.toContain(TOKEN);
    expect(io.stdout()).not.toContain(TOKEN);
    expect(io.stderr()).toContain('***');
    expect(io.stdout()).toContain('***');
  });

  it('json mode prints the fatal object on stdout and the line on stderr', () => {
    const io = createTestIO();
    expect(reportFatal(new UsageError('no plant id given'), io, options({ json: true, jsonFields: { deleted: false } }))).toBe(2);
    expect(io.stdout()).toBe(`${fatalJson(2, 'no plant id given', { deleted: false })}\n`);
    expect(JSON.parse(io.stdout()) as unknown).toEqual({ deleted: false, exit: 2, message: 'no plant id given' });
    expect(io.stderr()).toMatchInlineSnapshot(`
      "plantstore: no plant id given
      "
    `);
  });

  it('json mode for an internal error carries exit 70', () => {
    const io = createTestIO();
    reportFatal(new Error('boom'), io, options({ json: true }));
    expect(JSON.parse(io.stdout()) as unknown).toEqual({ exit: 70, message: expect.stringContaining('boom') });
  });
});

describe('argvWantsJson', () => {
  it.each<[string[], boolean]>([
    [['delete', '1', '--json'], true],
    [['--json', 'delete', '1'], true],
    [['delete', '1'], false],
    [['delete', '--', '--json'], false],
    [['delete', '--jsonx'], false],
  ])('%j -> %s', (argv, wants) => {
    expect(argvWantsJson(argv)).toBe(wants);
  });
});
