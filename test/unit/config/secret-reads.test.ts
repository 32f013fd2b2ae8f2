// Secrets are read with a bound: a token file, stdin piped to a login, a CA bundle.
// /dev/zero, a FIFO that never ends or a huge file must cost a few kilobytes, not
// all the memory there is. The sources here are large but finite, and what was read
// is counted, so a reader that reads everything fails quickly instead of hanging the
// run (the endless sources, /dev/zero and endless pipes, are in the e2e suite).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { constants, createReadStream, mkdirSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CA_BUNDLE_BYTES, MAX_TOKEN_INPUT_BYTES, readFileUpTo } from '../../../src/config/bounded-read.js';
import { readCaBundle } from '../../../src/config/ca-bundle.js';
import type { ConfigFile } from '../../../src/config/file.js';
import { resolveToken } from '../../../src/config/resolve.js';
import { MAX_TOKEN_BYTES } from '../../../src/config/token.js';
import { ConfigError, InterruptedError, UsageError } from '../../../src/errors.js';
import type { AnyFlag } from '../../../src/flags/flag.js';
import { CACERT, TOKEN_FILE } from '../../../src/flags/global.js';
import { flagReader } from '../../../src/flags/read.js';
import type { Env } from '../../../src/platform/env.js';
import type { Stdin } from '../../../src/platform/stdin.js';
import { readAllStdin } from '../../../src/ui/prompt.js';
import { rejection, thrown } from '../../helpers/thrown.js';

const HAS_MKFIFO = process.platform !== 'win32' && commandExists('mkfifo');

let dir: string;
let children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-secret-reads-'));
});
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string | Buffer): string {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
}

/** A file of `size` bytes that takes no disk: a hole, read back as zeros. */
function sparse(name: string, size: number): string {
  const target = file(name, '');
  truncateSync(target, size);
  return target;
}

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function fifo(name: string): string {
  const target = path.join(dir, name);
  execFileSync('mkfifo', [target]);
  return target;
}

/**
 * Another process writes `chunk` to the FIFO `times` times, then closes it, and reports
 * how it ended: "closed <bytes>" or "EPIPE <bytes written>" when the reader left first.
 * Another process, so that its blocking open and writes cannot stall the reader under test.
 */
function writer(target: string, chunk: string, times: number): Promise<string> {
  const script = `
    const fs = require('node:fs');
    const [target, chunk, times] = process.argv.slice(1);
    const fd = fs.openSync(target, 'w');
    const bytes = Buffer.from(chunk);
    let written = 0;
    try {
      for (let i = 0; i < Number(times); i++) written += fs.writeSync(fd, bytes);
      fs.closeSync(fd);
      process.stdout.write('closed ' + written);
    } catch (error) {
      process.stdout.write(error.code + ' ' + written);
    }`;
  const child = spawn(process.execPath, ['-e', script, target, chunk, String(times)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (out += text));
  return new Promise((resolve) => child.on('close', () => resolve(out)));
}

const MIB = 2 ** 20;

describe('readFileUpTo', () => {
  it.each([
    ['an empty file', 0, 10, 0],
    ['a file under the limit', 7, 10, 7],
    ['a file of exactly the limit', 10, 10, 10],
    ['a file one byte over the limit', 11, 10, undefined],
    ['a file of several read chunks, exactly the limit', 200_000, 200_000, 200_000],
    ['a file of several read chunks, one byte over', 200_001, 200_000, undefined],
  ])('%s', async (_name, size, limit, expected) => {
    const target = file('f', Buffer.alloc(size, 'a'));
    const read = await readFileUpTo(target, limit);
    if (expected === undefined) expect(read).toBeUndefined();
    else expect(read).toEqual(Buffer.alloc(expected, 'a'));
  });

  it('refuses a 64 MiB file (a hole on disk)', async () => {
    expect(await readFileUpTo(sparse('huge', 64 * MIB), MAX_TOKEN_INPUT_BYTES)).toBeUndefined();
  });

  it.skipIf(!HAS_MKFIFO)('stops reading a FIFO one byte past the limit, and closes it', async () => {
    const target = fifo('long');
    const wrote = writer(target, 'x'.repeat(1000), 64 * 1024);
    expect(await readFileUpTo(target, MAX_TOKEN_INPUT_BYTES)).toBeUndefined();
    // The writer was cut off (EPIPE) long before its 64 MiB: the reader closed the FIFO.
    const [how, written] = (await wrote).split(' ');
    expect(how).toBe('EPIPE');
    expect(Number(written)).toBeLessThan(MIB);
  });

  it.skipIf(!HAS_MKFIFO)('reads a FIFO whole when it ends under the limit, across several writes', async () => {
    const target = fifo('short');
    const wrote = writer(target, 'abc', 1000);
    expect((await readFileUpTo(target, 3000))?.toString()).toBe('abc'.repeat(1000));
    expect(await wrote).toBe('closed 3000');
  });

  it.skipIf(!HAS_MKFIFO)('waits for a FIFO nobody writes to without blocking, until the signal ends the wait', async () => {
    const target = fifo('nobody');
    const interrupt = new AbortController();
    const read = readFileUpTo(target, 10, interrupt.signal);
    // The event loop is free while it waits: this turn comes, and the read is still pending.
    let settled = false;
    void read.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    interrupt.abort('SIGINT');
    await expect(read).rejects.toBeInstanceOf(InterruptedError);
    // The FIFO was closed: a writer that will not wait for a reader finds none (ENXIO).
    expect(thrown(() => openSync(target, constants.O_WRONLY | constants.O_NONBLOCK))).toMatchObject({ code: 'ENXIO' });
  });

  it.skipIf(!HAS_MKFIFO)('reads a FIFO whose writer comes after the read began', async () => {
    const target = fifo('later');
    const read = readFileUpTo(target, 100, new AbortController().signal);
    await new Promise((resolve) => setImmediate(resolve));
    const wrote = writer(target, 'token-', 3);
    expect((await read)?.toString()).toBe('token-token-token-');
    expect(await wrote).toBe('closed 18');
  });

  it.each([
    ['a missing file', () => path.join(dir, 'missing'), 'ENOENT'],
    [
      'a folder',
      () => {
        mkdirSync(path.join(dir, 'folder'));
        return path.join(dir, 'folder');
      },
      'EISDIR',
    ],
  ])('throws the system error for %s', async (_name, target, code) => {
    await expect(readFileUpTo(target(), 10)).rejects.toMatchObject({ code });
  });
});

/** A stdin that yields `chunk` `times` times, counting what was pulled. */
function countingStdin(chunk: Buffer | string, times: number) {
  const state = { pulled: 0, finished: false };
  async function* generate() {
    try {
      for (; state.pulled < times; ) {
        state.pulled++;
        yield chunk;
      }
    } finally {
      state.finished = true;
    }
  }
  return { stdin: generate() as unknown as Stdin, state };
}

describe('readAllStdin', () => {
  it('stops pulling at the first chunk past the limit, refuses, and ends the stream', async () => {
    const { stdin, state } = countingStdin(Buffer.alloc(1000, 'a'), 64 * 1024);
    const error = await readAllStdin(stdin, MAX_TOKEN_INPUT_BYTES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`standard input holds more than ${MAX_TOKEN_INPUT_BYTES} bytes; pipe just the token`);
    expect(state.pulled).toBe(Math.ceil((MAX_TOKEN_INPUT_BYTES + 1) / 1000));
    expect(state.finished).toBe(true);
  });

  it.each([
    ['exactly the limit, in pieces', 'a'.repeat(64), 2, 'a'.repeat(128)],
    ['under the limit', 'abc', 3, 'abcabcabc'],
  ])('returns %s', async (_name, chunk, times, expected) => {
    const { stdin } = countingStdin(chunk, times);
    await expect(readAllStdin(stdin, 128)).resolves.toBe(expected);
  });

  it('counts bytes, not characters: 65 two-byte characters exceed 128 bytes', async () => {
    const { stdin } = countingStdin('é', 65);
    await expect(readAllStdin(stdin, 128)).rejects.toThrow('more than 128 bytes');
  });

  it('decodes a character split across two chunks', async () => {
    const bytes = Buffer.from('tok€n', 'utf8');
    const stdin = [bytes.subarray(0, 4), bytes.subarray(4)].values();
    const iterable = {
      async *[Symbol.asyncIterator]() {
        yield* stdin;
      },
    } as unknown as Stdin;
    await expect(readAllStdin(iterable, 128)).resolves.toBe('tok€n');
  });

  it('refuses a 64 MiB file as stdin after its first chunk, and closes it', async () => {
    const stream = createReadStream(sparse('huge-stdin', 64 * MIB));
    await expect(readAllStdin(stream as unknown as Stdin, MAX_TOKEN_INPUT_BYTES)).rejects.toBeInstanceOf(UsageError);
    expect(stream.bytesRead).toBeLessThan(MIB);
    expect(stream.destroyed).toBe(true);
  });
});

describe('a token file', () => {
  const noConfig = (): ConfigFile => {
    throw new Error('the config file must not be read when a token file is given');
  };
  const fromFile = (target: string) => resolveToken({}, noConfig, 'default', { value: target, source: '--token-file' });

  it('may hold the longest token with whitespace around it, up to the limit', async () => {
    const token = 'a'.repeat(MAX_TOKEN_BYTES);
    expect(await fromFile(file('newline', `${token}\n`))).toMatchObject({ value: token });
    const padded = `${' '.repeat(MAX_TOKEN_BYTES / 2)}${token}${'\n'.repeat(MAX_TOKEN_BYTES / 2)}`;
    expect(Buffer.byteLength(padded)).toBe(MAX_TOKEN_INPUT_BYTES);
    expect(await fromFile(file('padded', padded))).toMatchObject({ value: token });
  });

  it.each<[string, () => string]>([
    ['one byte over the limit', () => file('over', `${'a'.repeat(MAX_TOKEN_BYTES)}${' '.repeat(MAX_TOKEN_BYTES + 1)}`)],
    ['64 MiB', () => sparse('huge', 64 * MIB)],
  ])('is refused with exit 3 when it holds more: %s', async (_name, target) => {
    const name = target();
    const error = await rejection(fromFile(name));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `token file ${name} (from --token-file) holds more than ${MAX_TOKEN_INPUT_BYTES} bytes: too large to hold a token`,
    );
  });

  it('names PLANTSTORE_TOKEN_FILE when the file came from there', async () => {
    const name = sparse('huge', MIB);
    const env = { PLANTSTORE_TOKEN_FILE: name };
    const tokenFile = flagReader<AnyFlag>({}, { env, config: noConfig }).sourced(TOKEN_FILE);
    await expect(resolveToken(env, noConfig, 'default', tokenFile)).rejects.toMatchObject({
      message: expect.stringContaining('(from PLANTSTORE_TOKEN_FILE) holds more than'),
    });
  });

  it('that cannot be read says why', async () => {
    const name = path.join(dir, 'missing');
    await expect(fromFile(name)).rejects.toMatchObject({
      message: `cannot read token file ${name} (from --token-file): no such file; point --token-file at a readable file that holds the token`,
      detail: 'ENOENT',
    });
  });
});

describe('a CA bundle', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  /** The bundle as delete reads it: the path from --cacert or PLANTSTORE_CA_CERT, then the file. */
  const caPem = async (parsed: Record<string, string>, env: Env = {}) => {
    const noConfig = (): ConfigFile => {
      throw new Error('no config file is needed');
    };
    const path = flagReader<AnyFlag>(parsed, { env, config: noConfig }).sourced(CACERT);
    return path && readCaBundle(path.value, path.source);
  };

  it('of exactly 4 MiB is read', async () => {
    const pem = PEM.padEnd(MAX_CA_BUNDLE_BYTES, '\n');
    expect(await caPem({ cacert: file('bundle.pem', pem) })).toBe(pem);
  });

  it.each<[string, () => string]>([
    ['one byte over 4 MiB', () => file('over.pem', PEM.padEnd(MAX_CA_BUNDLE_BYTES + 1, '\n'))],
    ['64 MiB', () => sparse('huge.pem', 64 * MIB)],
  ])('is refused with exit 3 when it holds more: %s', async (_name, target) => {
    const name = target();
    const error = await rejection(caPem({ cacert: name }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `the CA bundle ${name} (from --cacert) holds more than 4 MiB: too large to be a PEM bundle of CA certificates`,
    );
  });

  it('from PLANTSTORE_CA_CERT is bounded too', async () => {
    const name = sparse('huge.pem', 64 * MIB);
    await expect(caPem({}, { PLANTSTORE_CA_CERT: name })).rejects.toMatchObject({
      message: expect.stringContaining('(from PLANTSTORE_CA_CERT) holds more than 4 MiB'),
    });
  });
});
