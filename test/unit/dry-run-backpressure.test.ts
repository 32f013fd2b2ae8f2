// A dry run of many ids into a reader slower than plantstore: it waits for the reader
// (IO.backlog) instead of queueing every line in memory.
import { describe, expect, it } from 'vitest';
import { runDelete } from '../../src/commands/delete/run.js';
import { createContext, type Stdin } from '../../src/context.js';
import { flagReader } from '../../src/flags/read.js';
import { createIO } from '../../src/ui/io.js';

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
    const run = runDelete({ ids, flags: flagReader({ dryRun: true }, ctx) }, ctx);
    // Let every microtask run: the run is parked on the backlog, not finished.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toBeLessThan(1024);
    expect(lines).toBeGreaterThan(0);
    release();
    expect(await run).toBe(0);
    expect(lines).toBe(5000);
  });
});
