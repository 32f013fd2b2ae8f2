import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Exit, InterruptedError, UsageError } from '../../../src/errors.js';
import { readIdsFromStream } from '../../../src/ids/stdin.js';

async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<string | Buffer> {
  yield* parts;
}

/** Runs fn and returns what it rejected with, failing the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<UsageError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exit).toBe(Exit.usage);
    return error as UsageError;
  }
  throw new Error('expected a rejection, got a result');
}

describe('readIdsFromStream: what counts as an id', () => {
  it.each([
    ['one per line', '1\n2\n3\n', ['1', '2', '3']],
    ['no newline at the end', '1\n2', ['1', '2']],
    ['CRLF', '1\r\n2\r\n', ['1', '2']],
    ['spaces and tabs on one line', '1 2\t3  \t 4', ['1', '2', '3', '4']],
    ['blank and whitespace-only lines', '\n\n  \n1\n\t\n\n2\n', ['1', '2']],
    ['comment lines, even with bad words in them', '# ids to delete: abc\n1\n  # 2.5 is not one\n3', ['1', '3']],
    ['comment after an id, with or without a space', '1 # first\n2# second\n3#x 4\n5', ['1', '2', '3', '5']],
    ['canonical form', '007\n-0\n9223372036854775807\n-9223372036854775808', ['7', '0', '9223372036854775807', '-9223372036854775808']],
    ['repeats dropped, first occurrence wins', '3\n1\n03\n2 1\n3', ['3', '1', '2']],
    ['byte order mark and unicode spaces', '\uFEFF1\u00A02\u30003', ['1', '2', '3']],
    ['beyond a JS number', '9007199254740993', ['9007199254740993']],
  ])('%s', async (_name, text, expected) => {
    expect([...(await readIdsFromStream(chunks(Buffer.from(text))))]).toEqual(expected);
  });
});

describe('readIdsFromStream: chunk boundaries never matter', () => {
  // Every split point of these, including inside "é" and "🌱" (2 and 4 bytes in UTF-8) and inside "\r\n".
  const text = '# plants: café 🌱\r\n12 345\r\n# é\n6789 # 🌱🌱\n01\n42';
  const expected = ['12', '345', '6789', '1', '42'];
  const bytes = Buffer.from(text);

  it.each([...Array(bytes.length + 1).keys()])('split at byte %i', async (at) => {
    expect([...(await readIdsFromStream(chunks(bytes.subarray(0, at), bytes.subarray(at))))]).toEqual(expected);
  });

  it.each([
    ['one byte at a time', () => [...bytes].map((b) => Buffer.from([b]))],
    ['one character at a time, as strings', () => Array.from(text)],
    ['strings and buffers mixed', () => [text.slice(0, 20), Buffer.from(text.slice(20))]],
  ])('%s', async (_name, split) => {
    expect([...(await readIdsFromStream(chunks(...split())))]).toEqual(expected);
  });

  it.each([...Array(6).keys()])('a bad id with multi-byte characters split at byte %i is shown intact', async (at) => {
    const bad = Buffer.from('1\n2\ncafé🌱\n');
    const error = await rejection(readIdsFromStream(chunks(bad.subarray(0, 7 + at), bad.subarray(7 + at))));
    expect(error.message).toBe("invalid plant id 'café🌱' on line 3 of standard input: an id is a whole number such as 42");
  });
});

describe('readIdsFromStream: the first bad token is a usage error naming its line', () => {
  it.each([
    ['abc on line 7', '1\n2\n3\n4\n5\n6\nabc\n', "invalid plant id 'abc' on line 7 of standard input: an id is a whole number such as 42"],
    ['first of two bad tokens', '1 x1\n y2', "invalid plant id 'x1' on line 1 of standard input: an id is a whole number such as 42"],
    [
      'line counting with CRLF and comments',
      '# header\r\n1\r\n\r\n2 1.5\r\n',
      "invalid plant id '1.5' on line 4 of standard input: an id is a whole number such as 42",
    ],
    [
      'out of range',
      '\n9223372036854775808',
      "invalid plant id '9223372036854775808' on line 2 of standard input: out of range (ids are 64-bit, -9223372036854775808 to 9223372036854775807)",
    ],
    [
      'control characters escaped',
      '1\n4\u001b[2J2\n',
      "invalid plant id '4\\x1b[2J2' on line 2 of standard input: an id is a whole number such as 42",
    ],
    ['sign alone', '-', "invalid plant id '-' on line 1 of standard input: an id is a whole number such as 42"],
    [
      'invalid UTF-8',
      Buffer.from([0x31, 0x0a, 0x32, 0xff, 0x0a]),
      "invalid plant id '2\uFFFD' on line 2 of standard input: an id is a whole number such as 42",
    ],
  ])('%s', async (_name, input, message) => {
    const error = await rejection(readIdsFromStream(chunks(typeof input === 'string' ? Buffer.from(input) : input)));
    expect(error.message).toBe(message);
  });

  it('stops at the bad token: the rest of the stream is not read', async () => {
    let pulled = 0;
    async function* input(): AsyncGenerator<string> {
      for (const part of ['1\n', 'oops\n', '2\n', '3\n']) {
        pulled += 1;
        yield part;
      }
    }
    await rejection(readIdsFromStream(input()));
    expect(pulled).toBe(2);
  });

  it('a token too long to be an id is refused without holding it whole', async () => {
    async function* endlessDigits(): AsyncGenerator<string> {
      for (let i = 0; i < 1_000_000; i += 1) yield '0000000000';
    }
    const error = await rejection(readIdsFromStream(endlessDigits()));
    expect(error.message).toBe(`invalid plant id '${'0'.repeat(40)}…' on line 1 of standard input: too long (over 1024 characters)`);
  });
});

describe('readIdsFromStream: no ids at all', () => {
  it.each([
    ['empty', []],
    ['empty chunks', ['', Buffer.alloc(0)]],
    ['blank lines', ['\n\r\n  \t\n']],
    ['comments only', ['# nothing here\n#1 2 3']],
  ])('%s: an empty list (the command decides what that means)', async (_name, parts) => {
    expect((await readIdsFromStream(chunks(...parts))).size).toBe(0);
  });
});

describe('readIdsFromStream: a million ids', () => {
  it('reads them chunk by chunk, in order', { timeout: 30_000 }, async () => {
    const total = 1_000_000;
    // 64 KiB-ish buffers like a pipe's, with lines cut wherever the chunk ends.
    async function* input(): AsyncGenerator<Buffer> {
      let pending = '';
      for (let id = 1; id <= total; id += 1) {
        pending += id % 1000 === 0 ? `${id} # another thousand\r\n` : `${id}\n`;
        if (pending.length >= 65_536) {
          yield Buffer.from(pending.slice(0, 65_531));
          pending = pending.slice(65_531);
        }
      }
      yield Buffer.from(pending);
    }
    const ids = [...(await readIdsFromStream(input()))];
    expect(ids.length).toBe(total);
    expect(ids[0]).toBe('1');
    expect(ids[499_999]).toBe('500000');
    expect(ids[total - 1]).toBe('1000000');
  });
});

describe('readIdsFromStream: an interrupt stops the read at once', () => {
  const MESSAGE = 'interrupted while reading ids from standard input; nothing was sent';

  async function interrupted(promise: Promise<unknown>): Promise<InterruptedError> {
    const error = await promise.then(
      () => expect.unreachable('expected an InterruptedError'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exit).toBe(Exit.interrupted);
    expect((error as InterruptedError).message).toBe(MESSAGE);
    return error as InterruptedError;
  }

  /** Yields its parts, then waits forever for more, like `sleep 30 |` or `tail -f`; says when it is waiting. */
  function openPipe(...parts: string[]): { input: AsyncGenerator<string>; waiting: Promise<void> } {
    let onWaiting = (): void => {};
    const waiting = new Promise<void>((resolve) => {
      onWaiting = resolve;
    });
    async function* input(): AsyncGenerator<string> {
      yield* parts;
      onWaiting();
      await new Promise(() => {});
    }
    return { input: input(), waiting };
  }

  it('while waiting for input that never comes, after valid ids', async () => {
    const controller = new AbortController();
    const { input, waiting } = openPipe('1 2\n', '3');
    const read = readIdsFromStream(input, controller.signal);
    await waiting;
    controller.abort('SIGTERM');
    await interrupted(read);
  });

  it('before reading starts: nothing is pulled', async () => {
    let pulled = 0;
    async function* input(): AsyncGenerator<string> {
      pulled += 1;
      yield '1\n';
    }
    const controller = new AbortController();
    controller.abort('SIGINT');
    await interrupted(readIdsFromStream(input(), controller.signal));
    expect(pulled).toBe(0);
  });

  it('between two chunks: the ids read so far count for nothing', async () => {
    const controller = new AbortController();
    async function* input(): AsyncGenerator<string> {
      yield '1\n';
      controller.abort('SIGINT');
      yield '2\n';
    }
    await interrupted(readIdsFromStream(input(), controller.signal));
  });

  it('destroys a stream left open, so the pipe no longer holds the process', async () => {
    const stdin = new PassThrough();
    stdin.write('1\n');
    const controller = new AbortController();
    const read = readIdsFromStream(stdin, controller.signal);
    controller.abort('SIGTERM');
    await interrupted(read);
    expect(stdin.destroyed).toBe(true);
  });

  it('a signal that is never aborted changes nothing', async () => {
    const ids = await readIdsFromStream(chunks('1 2\n', '3'), new AbortController().signal);
    expect([...ids]).toEqual(['1', '2', '3']);
  });
});
