// Issue 42 item 4: a batch command is one declaration (commands/batch-command.ts) and one
// registration line. The suite's read operation (test/helpers/read-operation.ts), registered as
// `get` on the real program the way cli.ts registers delete, gets the batch's flags without the
// guard's, help and examples in its own name, its options through a seam keyed by its name, and
// its own fatal JSON fields; delete's are its declaration, not a name cli.ts knows.
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, type Reached, runCli } from '../../../src/cli.js';
import { type BatchVerb, batchCommand, type VerbOptions } from '../../../src/commands/batch-command.js';
import { fatalFieldsOf } from '../../../src/commands/fatal-fields.js';
import { createContext } from '../../../src/context.js';
import { journalWordsFrom, journalWordsOf } from '../../../src/engine/journal-words.js';
import { Exit } from '../../../src/errors.js';
import { Flag } from '../../../src/flags/flag.js';
import type { Stdin } from '../../../src/platform/stdin.js';
import { createTestIO } from '../../../src/ui/io.js';
import { READ_OPERATION, READ_RESULTS, type ReadResult } from '../../helpers/read-operation.js';

const FIELDS = Flag.valued({ key: 'fields', flags: '--fields <names>', help: 'the fields to print' }, (raw) => raw.split(','));

const GET: BatchVerb<typeof FIELDS, { fields: string[] | undefined }, ReadResult> = {
  name: 'get',
  description: 'read plants by id: GET {base}/plants/{id} for each id',
  destructive: false,
  flags: [FIELDS],
  read: (flags) => ({ fields: flags.value(FIELDS) }),
  operation: () => READ_OPERATION,
  ok: 'every plant read',
  fatalFields: { read: false },
  journalWords: journalWordsFrom(READ_RESULTS.states),
};

/** The real program with `get` registered after the product's commands, and `argv` parsed by it. */
async function withGet(argv: string[], env: Record<string, string> = {}) {
  const io = createTestIO();
  const ctx = createContext({ io, env, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal });
  let captured: VerbOptions<{ fields: string[] | undefined }> | undefined;
  const program = buildProgram(ctx, () => {});
  const get = batchCommand(GET)(program, ctx, () => {}, {
    get: async (opts: VerbOptions<{ fields: string[] | undefined }>) => {
      captured = opts;
      return Exit.ok;
    },
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError) || error.exitCode !== 0) throw error;
  }
  return { get, captured, stdout: io.stdout() };
}

describe('a batch command from one declaration', () => {
  it('its help: the batch flags with its own after the pace, no guard, examples and exit codes in its own name', async () => {
    const { stdout: help } = await withGet(['get', '--help']);
    expect(help).toMatch(/^Usage: plantstore get \[options\] \[id\.\.\.\]\n\nread plants by id/);
    const options = [...help.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1]);
    expect(options.slice(0, 4)).toEqual(['--stdin', '--concurrency', '--rate', '--fields']);
    expect(options).toContain('--journal');
    expect(options).toContain('--shard');
    expect(options).not.toContain('--max-deletes');
    expect(options).not.toContain('--yes');
    expect(help).toContain('  $ plantstore get --stdin < ids.txt');
    expect(help).toContain('  $ plantstore get --max-failures 5% --stdin < ids.txt');
    expect(help).not.toMatch(/delete|max-deletes/);
    expect(help).toMatch(/Exit codes \(with several ids, the code of the first failing id\):\n {4}0 {2}every plant read\n/);
    // Refused by a limit (exit 9) is the guard's, which a read does not have.
    expect(help).not.toMatch(/^ {4}9 /m);
  });

  it("its options reach its seam, keyed by its name: the batch's and its own, and no guard's from the environment", async () => {
    const { captured } = await withGet(['get', '--fields', 'name,id', '--shard', '0/2', '1', '2'], { PLANTSTORE_MAX_DELETES: '1' });
    expect(captured).toMatchObject({ ids: ['1', '2'], fields: ['name', 'id'], shard: { index: 0, count: 2 }, maxDeletes: undefined });
  });

  it('its fatal JSON fields are its own declaration, as delete’s are', async () => {
    const { get } = await withGet(['get', '--help']);
    expect(fatalFieldsOf(get)).toEqual({ read: false });
    const reached: Reached = {};
    const io = createTestIO();
    const ctx = createContext({ io, env: {}, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal });
    await expect(runCli(['--json', 'delete', 'x'], ctx, reached)).rejects.toThrow(/invalid plant id 'x'/);
    expect(reached).toEqual({ command: 'delete', fatalFields: { deleted: false } });
    const other: Reached = {};
    await expect(runCli(['config', 'get', 'nothing'], ctx, other)).rejects.toThrow();
    expect(other).toEqual({ command: 'config', fatalFields: {} });
  });

  it('its journals are read in its words: registering it registers them under its name', async () => {
    await withGet(['get', '--help']);
    const words = journalWordsOf('get');
    expect([words.done.word, words.absent.word, words.notSent.word]).toEqual(['read', 'not found', 'not asked']);
  });
});
