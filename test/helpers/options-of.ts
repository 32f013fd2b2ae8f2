// The options a command would run with for an argv, captured at gh's seam (src/cli.ts Seams):
// the whole program parses argv, the command's run function is replaced by a capture, and
// nothing is run. A flag's bad value comes back as the CliError the real program reports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { runCli, type Seams } from '../../src/cli.js';
import { createContext } from '../../src/context.js';
import { Exit } from '../../src/errors.js';
import type { Stdin } from '../../src/platform/stdin.js';
import { createTestIO } from '../../src/ui/io.js';

export interface OptionsOfRun {
  /** Variables; PLANTSTORE_CONFIG_DIR is a fresh folder unless given. */
  env?: Record<string, string>;
  /** The profiles of config.json in that folder; none when left out. */
  profiles?: Record<string, Record<string, string>>;
}

type OptionsFor<K extends keyof Seams> = Parameters<NonNullable<Seams[K]>>[0];

export async function optionsOf<K extends keyof Seams>(
  seam: K,
  argv: readonly string[],
  { env = {}, profiles }: OptionsOfRun = {},
): Promise<OptionsFor<K>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-options-'));
  try {
    const fullEnv = { PLANTSTORE_CONFIG_DIR: dir, ...env };
    if (profiles) writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
    const ctx = createContext({
      io: createTestIO({ env: fullEnv }),
      env: fullEnv,
      stdin: Readable.from([]) as unknown as Stdin,
      version: '0.0.0-test',
      signal: new AbortController().signal,
    });
    let captured: { opts: OptionsFor<K> } | undefined;
    const capture = async (opts: OptionsFor<K>) => {
      captured = { opts };
      return Exit.ok;
    };
    await runCli(argv, ctx, {}, { [seam]: capture } as Seams);
    if (!captured) throw new Error(`plantstore ${argv.join(' ')} did not reach the ${seam} command`);
    return captured.opts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
