import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OutputStream, orderedStreams } from '../../../src/ui/streams.js';

/** A stream whose reader is as slow as the test says, writing into one shared log like `> log 2>&1`. */
class FakeStream extends EventEmitter implements OutputStream {
  writableNeedDrain = false;
  writes: string[] = [];
  constructor(
    readonly log: string[],
    readonly name: string,
  ) {
    super();
  }
  write(text: string): boolean {
    this.writes.push(text);
    this.log.push(`${this.name}:${text}`);
    return !this.writableNeedDrain;
  }
}

let log: string[];
let out: FakeStream;
let err: FakeStream;
beforeEach(() => {
  vi.useFakeTimers();
  log = [];
  out = new FakeStream(log, 'out');
  err = new FakeStream(log, 'err');
});
afterEach(() => {
  vi.useRealTimers();
});

describe('orderedStreams', () => {
  it('keeps the order lines were written in across both streams, in one write per run of lines', () => {
    const streams = orderedStreams(out, err);
    streams.stdout.write('a\n');
    streams.stdout.write('b\n');
    streams.stderr.write('fail\n');
    streams.stdout.write('c\n');
    expect(log).toEqual([]);
    vi.runAllTimers();
    expect(log).toEqual(['out:a\nb\n', 'err:fail\n', 'out:c\n']);
  });

  it('flush() writes at once: before the process exits', () => {
    const streams = orderedStreams(out, err);
    streams.stderr.write('summary\n');
    streams.flush();
    expect(log).toEqual(['err:summary\n']);
  });

  it('backlog() waits while a reader is behind, and only then', async () => {
    const streams = orderedStreams(out, err);
    expect(streams.backlog()).toBeUndefined();
    err.writableNeedDrain = true;
    const waiting = streams.backlog();
    expect(waiting).toBeInstanceOf(Promise);
    let done = false;
    void waiting?.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    err.writableNeedDrain = false;
    err.emit('drain');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('backlog() writes out a large queue first, so a loop that never yields cannot grow it without bound', () => {
    const streams = orderedStreams(out, err);
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 200; i++) streams.stdout.write(line);
    expect(streams.backlog()).toBeUndefined();
    expect(out.writes.join('')).toBe(line.repeat(200));
  });

  it.each([
    ['stdout', () => out],
    ['stderr', () => err],
  ])('a %s reader that leaves (EPIPE) drops that stream quietly; the other goes on', (_name, leaving) => {
    const streams = orderedStreams(out, err);
    const gone = leaving();
    gone.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    streams.stdout.write('ok\n');
    streams.stderr.write('note\n');
    streams.flush();
    expect(gone.writes).toEqual([]);
    expect(log).toHaveLength(1);
    gone.writableNeedDrain = true;
    expect(streams.backlog()).toBeUndefined();
  });

  it('reports a write error that is not a reader leaving, once, naming the stream', () => {
    const failures: string[] = [];
    orderedStreams(out, err, (error, stream) => failures.push(`${stream} ${error.code}`));
    out.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    err.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    err.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    expect(failures).toEqual(['stderr ENOSPC']);
  });

  it('a failure on stderr first does not hide one on stdout: each stream is reported once', () => {
    const failures: string[] = [];
    orderedStreams(out, err, (error, stream) => failures.push(`${stream} ${error.code}`));
    err.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    out.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    out.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    expect(failures).toEqual(['stderr ENOSPC', 'stdout ENOSPC']);
  });
});
