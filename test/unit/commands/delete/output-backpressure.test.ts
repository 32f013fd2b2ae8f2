// Many ids into a reader slower than plantstore (`| less`, a slow pipe): a dry run
// and a real run wait for the reader (IO.backlog) instead of queueing every line in memory.
import { describe, expect, it } from 'vitest';
import { runVerb } from '../../../../src/commands/batch-command.js';
import { DELETE, deleteOptions } from '../../../../src/commands/delete/command.js';
import { type Context, createContext } from '../../../../src/context.js';
import { flagReader } from '../../../../src/flags/read.js';
import type { Stdin } from '../../../../src/platform/stdin.js';
import { createIO } from '../../../../src/ui/io.js';

describe('delete --dry-run', () => {
  it('stops producing lines while stdout is backed up, and goes on once the reader catches up', async () => {
    let lines = 0;
    let release: () => void = () => {};
    let backedUp = true;
    const stdout = {
      write: (text: string) => {
        lines += text.split('\n').length - 1;
      },
      // The reader is slow until the test says otherwise.
      backlog: () =>
        backedUp
          ? new Promise<void>((resolve) => {
              release = () => {
                backedUp = false;
                resolve();
              };
            })
          : undefined,
    };
    const io = createIO(stdout, { write: () => {} }, false, {});
    const env = {
      PLANTSTORE_TOKEN: 'dry-run-Token-1234',
      PLANTSTORE_BASE_URL: 'https://api.example.com',
      PLANTSTORE_CONFIG_DIR: '/nonexistent',
    };
    const ctx = createContext({ io, env, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal });
    const ids = Array.from({ length: 5000 }, (_, i) => String(i + 1));
    const run = runVerb(DELETE, deleteOptions(flagReader({ dryRun: true }, ctx), ids), ctx);
    // Let every microtask run: the run is parked on the backlog, not finished.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toBeLessThan(1024);
    expect(lines).toBeGreaterThan(0);
    release();
    expect(await run).toBe(0);
    expect(lines).toBe(5000);
  });

  it('a real run starts no new deletion while stdout is backed up, and finishes once the reader catches up', async () => {
    let lines = 0;
    let release: () => void = () => {};
    // The reader falls behind after the first 50 lines.
    let backedUp = false;
    let whenReleased: Promise<void> | undefined;
    const stdout = {
      write: (text: string) => {
        lines += text.split('\n').length - 1;
        if (lines >= 50 && whenReleased === undefined) backedUp = true;
      },
      backlog: () => {
        if (!backedUp) return undefined;
        whenReleased ??= new Promise<void>((resolve) => {
          release = () => {
            backedUp = false;
            resolve();
          };
        });
        return whenReleased;
      },
    };
    const io = createIO(stdout, { write: () => {} }, false, {});
    const env = { PLANTSTORE_TOKEN: 'real-run-Token-1234', PLANTSTORE_BASE_URL: 'https://api.example.com' };
    const sent: string[] = [];
    const ctx: Context = {
      ...createContext({ io, env, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal }),
      // Like the real transport, every attempt passes the run's gate (the throttle) first.
      async transport({ gate }) {
        return {
          async send({ label }, signal) {
            const permit = await gate?.acquire('first', signal);
            sent.push(label ?? '');
            permit?.release({ kind: 'ok' });
            return { kind: 'ok' as const, status: 204, body: '' };
          },
          async close() {},
        };
      },
    };
    const ids = Array.from({ length: 2000 }, (_, i) => String(i + 1));
    const run = runVerb(DELETE, deleteOptions(flagReader({}, ctx), ids), ctx);
    // Let every queued callback run: the run is parked on the backlog, not finished.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    // What was in flight when the reader fell behind, nowhere near all 2000.
    expect(sent.length).toBeGreaterThanOrEqual(50);
    expect(sent.length).toBeLessThan(100);
    const parked = sent.length;
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(sent.length).toBe(parked);
    release();
    expect(await run).toBe(0);
    expect(sent.length).toBe(2000);
    expect(lines).toBe(2000);
  });
});
