// The reader of the docs' shown sessions (test/helpers/console-blocks.ts): what it takes as a
// command, its output and its exit code, and what it refuses, so a docs test cannot pass by
// reading nothing.
import { describe, expect, it } from 'vitest';
import { matchesShown, shownCommands } from '../helpers/console-blocks.js';

describe('shownCommands', () => {
  it('reads each command of a console block with its output and exit code; other blocks are not run', () => {
    const markdown = [
      'Some text.',
      '```sh',
      'plantstore sandbox',
      '```',
      '```console',
      '$ plantstore delete 42',
      'Deleted plant 42',
      '$ plantstore delete 42',
      '✗ plant 42: error 1: plant 42 does not exist (HTTP 400)',
      '[exit 1]',
      '$ true',
      '```',
    ].join('\n');
    expect(shownCommands(markdown)).toEqual([
      { command: 'plantstore delete 42', output: ['Deleted plant 42'], exit: 0, line: 6, tty: false },
      {
        command: 'plantstore delete 42',
        output: ['✗ plant 42: error 1: plant 42 does not exist (HTTP 400)'],
        exit: 1,
        line: 8,
        tty: false,
      },
      { command: 'true', output: [], exit: 0, line: 11, tty: false },
    ]);
  });

  it('a setup comment is a command whose output is not compared', () => {
    expect(shownCommands('<!-- setup: plantstore config set missing-error 1 -->\n')).toEqual([
      { command: 'plantstore config set missing-error 1', output: [], exit: 0, line: 1, tty: false, setup: true },
    ]);
  });

  it('a block fenced console tty runs on a terminal', () => {
    expect(shownCommands('```console tty\n$ plantstore delete 42\n✓ Deleted plant 42\n```').map((c) => c.tty)).toEqual([true]);
  });

  it.each([
    ['output before any command', '```console\nDeleted plant 42\n```'],
    ['a block never closed', '```console\n$ true\n'],
  ])('refuses %s', (_, markdown) => {
    expect(() => shownCommands(markdown)).toThrow();
  });
});

describe('matchesShown', () => {
  it.each([
    [['a'], ['a'], true],
    [['3 deleted in …'], ['3 deleted in 0.4s'], true],
    [['… deleted'], ['3 deleted'], true],
    [['3 deleted in …'], ['3 deleted in 0.4s', 'more'], false],
    [['a (b)'], ['a (b)'], true],
    [['a (b)'], ['a b'], false],
    [['Deleted plant 42'], ['Deleted plant 43'], false],
  ])('%j against %j: %s', (expected, actual, matches) => {
    expect(matchesShown(expected, actual)).toBe(matches);
  });
});
