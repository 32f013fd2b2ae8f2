// The guard belongs to operations that destroy (issue 42 item 3): a read is never refused by a
// deletion limit from the environment or a profile, nor asked about at a terminal, and its
// command declares neither --max-deletes nor --yes.
import { describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/file.js';
import { BATCH_FLAGS, type BatchFlags, batchFlags, batchOptions, MAX_DELETES, YES } from '../../../src/engine/batch-flags.js';
import { flagReader } from '../../../src/flags/read.js';
import type { Env } from '../../../src/platform/env.js';

/** A reader of flags as a run sees them: parsed argv, the environment, a profile's settings. */
function flagsOf(parsed: Record<string, unknown>, env: Env, profile: Record<string, string> = {}): BatchFlags {
  const file = {
    path: '/config.json',
    profile: () => profile,
    distrust: () => undefined,
    folderWritableByOthers: () => undefined,
  } as unknown as ConfigFile;
  return flagReader(parsed, { env, config: () => file }) as unknown as BatchFlags;
}

describe('the guard is read only for a destructive operation', () => {
  const env = { PLANTSTORE_MAX_DELETES: '1' };

  it('a destructive one reads --max-deletes from the environment and --yes', () => {
    const opts = batchOptions(flagsOf({ yes: true }, env), ['1', '2'], () => ({}), true);
    expect(opts.maxDeletes).toEqual({ value: 1, source: 'PLANTSTORE_MAX_DELETES' });
    expect(opts.yes).toBe(true);
  });

  it('another reads neither: not the variable, not the profile, not even a parsed --yes', () => {
    expect(batchOptions(flagsOf({ yes: true }, env), ['1', '2'], () => ({}), false)).toMatchObject({ maxDeletes: undefined, yes: false });
    const profiled = batchOptions(flagsOf({}, {}, { 'max-deletes': '1' }), ['1', '2'], () => ({}), false);
    expect(profiled.maxDeletes).toBeUndefined();
  });

  it("a bad PLANTSTORE_MAX_DELETES stops a destructive run's flags, and not another's", () => {
    const bad = { PLANTSTORE_MAX_DELETES: 'lots' };
    expect(() => batchOptions(flagsOf({}, bad), ['1'], () => ({}), true)).toThrow(/PLANTSTORE_MAX_DELETES/);
    expect(() => batchOptions(flagsOf({}, bad), ['1'], () => ({}), false)).not.toThrow();
  });

  it("the flags a command declares: the guard's only with a destructive operation, the rest in the same order", () => {
    expect(batchFlags(true)).toEqual(BATCH_FLAGS);
    expect(batchFlags(false)).not.toContain(MAX_DELETES);
    expect(batchFlags(false)).not.toContain(YES);
    expect(batchFlags(false)).toEqual(BATCH_FLAGS.filter((flag) => flag !== MAX_DELETES && flag !== YES));
  });
});
