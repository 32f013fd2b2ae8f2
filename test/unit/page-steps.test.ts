// The reader of the docs' pages (test/helpers/page-steps.ts): what it takes as a step, its
// output and its exit code, which blocks it leaves alone and why, and what it refuses, so a docs
// test cannot pass by reading nothing.
import { describe, expect, it } from 'vitest';
import { matchesShown, pageSteps } from '../helpers/page-steps.js';

const page = (...lines: string[]): string => lines.join('\n');

describe('pageSteps: console blocks', () => {
  it('reads each command of a console block with its output and exit code', () => {
    const markdown = page(
      'Some text.',
      '```console',
      '$ plantstore delete 42',
      'Deleted plant 42',
      '$ plantstore delete 42',
      '✗ plant 42: error 1: plant 42 does not exist (HTTP 400)',
      '[exit 1]',
      '$ true',
      '```',
    );
    expect(pageSteps(markdown)).toEqual([
      { kind: 'console', command: 'plantstore delete 42', output: ['Deleted plant 42'], exit: 0, line: 3, tty: false },
      {
        kind: 'console',
        command: 'plantstore delete 42',
        output: ['✗ plant 42: error 1: plant 42 does not exist (HTTP 400)'],
        exit: 1,
        line: 5,
        tty: false,
      },
      { kind: 'console', command: 'true', output: [], exit: 0, line: 8, tty: false },
    ]);
  });

  it('a block fenced console tty runs on a terminal', () => {
    expect(pageSteps('```console tty\n$ plantstore delete 42\n✓ Deleted plant 42\n```').map((s) => s.kind === 'console' && s.tty)).toEqual([
      true,
    ]);
  });
});

describe('pageSteps: sh blocks', () => {
  it('runs each command, in page order with the console blocks, expecting exit 0', () => {
    const markdown = page('```sh', 'plantstore delete 47', 'export A=1', '```', '```console', '$ echo "$A"', '1', '```');
    expect(pageSteps(markdown)).toEqual([
      { kind: 'sh', command: 'plantstore delete 47', exit: 0, line: 2 },
      { kind: 'sh', command: 'export A=1', exit: 0, line: 3 },
      { kind: 'console', command: 'echo "$A"', output: ['1'], exit: 0, line: 6, tty: false },
    ]);
  });

  it('cuts a block where the shell grammar ends a command: case … esac, a loop, a \\ continuation are one command each', () => {
    const markdown = page(
      '```sh',
      'plantstore -q delete "$id"',
      'case $? in',
      '  0) echo deleted ;;',
      '  6|7|8) echo "try again later" ;;',
      'esac',
      'for id in 1 2; do',
      '  plantstore delete "$id"',
      'done',
      'plantstore delete \\',
      '  --dry-run 42',
      '```',
    );
    expect(pageSteps(markdown).map((s) => [s.line, s.command])).toEqual([
      [2, 'plantstore -q delete "$id"'],
      [3, 'case $? in\n  0) echo deleted ;;\n  6|7|8) echo "try again later" ;;\nesac'],
      [7, 'for id in 1 2; do\n  plantstore delete "$id"\ndone'],
      [10, 'plantstore delete \\\n  --dry-run 42'],
    ]);
  });

  it('blank and comment-only lines are no command', () => {
    expect(pageSteps(page('```sh', '# first, the list', '', 'seq 3 > ids.txt', '```')).map((s) => s.command)).toEqual(['seq 3 > ids.txt']);
  });

  it.each([
    ['plantstore delete -5   # the sandbox has none (exit 1)', 1],
    ['plantstore delete -5   # negative ids too (exit 1: the sandbox has none)', 1],
    ['plantstore delete 42   # (exit 5)', 5],
    ['plantstore delete 42   # exit 1', 0],
    ['plantstore delete 42   # (exit 1) was the old code', 0],
    ["echo '(exit 3)'", 0],
  ])('%s: must exit %i', (line, exit) => {
    expect(pageSteps(page('```sh', line, '```'))[0]).toMatchObject({ kind: 'sh', exit });
  });

  it('the exit comment is read on the last line of a command of several lines', () => {
    expect(pageSteps(page('```sh', 'plantstore delete \\', '  -5   # (exit 1)', '```'))[0]).toMatchObject({ exit: 1, line: 2 });
  });

  it.each([
    ['a command the shell cannot read', '```sh\ncase $x in\n```', /line 2: the shell cannot read/],
    ['a here-document', '```sh\ncat <<EOF > ids.txt\n1\nEOF\n```', /line 2: here-documents/],
  ])('refuses %s', (_, markdown, message) => {
    expect(() => pageSteps(markdown)).toThrow(message);
  });
});

describe('pageSteps: blocks not run', () => {
  it('a block after <!-- not run: REASON --> is not run, and the next block is', () => {
    const markdown = page(
      '<!-- not run: it stays in the foreground -->',
      '```sh',
      'plantstore sandbox',
      '```',
      '```sh',
      'plantstore delete 1',
      '```',
    );
    expect(pageSteps(markdown).map((s) => s.command)).toEqual(['plantstore delete 1']);
  });

  it.each(['bash', 'shell', 'zsh'])('refuses a ```%s fence, which would hide its commands from the run', (language) => {
    expect(() => pageSteps(`text\n\`\`\`${language}\nplantstore delete 1\n\`\`\``)).toThrow(/line 2: fence a shell block ```sh/);
  });

  it('other fences are not run', () => {
    expect(pageSteps(page('```yaml', 'run: plantstore delete 1', '```', '```json', '{}', '```', '```', 'text', '```'))).toEqual([]);
  });

  it.each([
    ['no reason', '<!-- not run -->\n```sh\nplantstore sandbox\n```', /line 1: say why the block is not run/],
    ['an empty reason', '<!-- not run: -->\n```sh\nplantstore sandbox\n```', /line 1: say why/],
    ['a blank reason', '<!-- not run:   -->\n```sh\nplantstore sandbox\n```', /line 1: say why/],
    ['a comment not right before a fence', '<!-- not run: later -->\n\n```sh\nplantstore sandbox\n```', /line 1: .*right before a fence/],
  ])('refuses a not-run comment with %s', (_, markdown, message) => {
    expect(() => pageSteps(markdown)).toThrow(message);
  });
});

describe('pageSteps: setup steps', () => {
  it('a setup comment is a step where it stands, its output not compared', () => {
    const markdown = page('<!-- setup: seq 80 86 > dead-plants.txt -->', '```sh', 'plantstore delete --stdin < dead-plants.txt', '```');
    expect(pageSteps(markdown)).toEqual([
      { kind: 'setup', command: 'seq 80 86 > dead-plants.txt', line: 1 },
      { kind: 'sh', command: 'plantstore delete --stdin < dead-plants.txt', exit: 0, line: 3 },
    ]);
  });
});

describe('pageSteps: refusals', () => {
  it.each([
    ['output before any command', '```console\nDeleted plant 42\n```'],
    ['a block never closed', '```console\n$ true\n'],
  ])('refuses %s', (_, markdown) => {
    expect(() => pageSteps(markdown)).toThrow();
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
