// The settings tests' shared ground: a fresh config folder per test, config files written
// into it, and the flag reader as a command builds it. Call settingsFixture() at the top of a file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type ConfigFile, openConfig } from '../../src/config/file.js';
import { resolveTarget, type Target, type TargetSettings } from '../../src/config/resolve.js';
import type { AnyFlag } from '../../src/flags/flag.js';
import { flagReader } from '../../src/flags/read.js';
import type { Env } from '../../src/platform/env.js';
import { serviceSettings } from '../../src/service/settings.js';

export const TOKEN = 'stored-token-0123456789';
export const ENV_TOKEN = 'env-token-abcdefghijkl';

export type GlobalFlags = Record<string, string>;

export function settingsFixture() {
  const state = { dir: '', warnings: [] as string[] };
  beforeEach(() => {
    state.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plantstore-settings-'));
    state.warnings = [];
  });
  afterEach(() => {
    fs.rmSync(state.dir, { recursive: true, force: true });
  });

  /** The environment of a test: always an isolated config folder. */
  function envWith(extra: Record<string, string> = {}): Env {
    return { PLANTSTORE_CONFIG_DIR: state.dir, ...extra };
  }

  function writeConfigText(text: string, mode = 0o600): string {
    const file = path.join(state.dir, 'config.json');
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode); // the umask may have narrowed it
    return file;
  }

  function writeConfig(data: unknown, mode = 0o600): string {
    return writeConfigText(JSON.stringify(data), mode);
  }

  function configFor(env: Env): () => ConfigFile {
    const file = openConfig(env, (line) => state.warnings.push(line));
    return () => file;
  }

  /** The flags as commander would hand them over, read as a command reads them. */
  function flagsFrom(parsed: GlobalFlags, env: Env, config: () => ConfigFile = configFor(env)) {
    return flagReader<AnyFlag>(parsed, { env, config });
  }

  /** What a command reads for its target, as every command that calls the service reads it. */
  function targetFrom(parsed: GlobalFlags, env: Env): TargetSettings {
    return serviceSettings(flagsFrom(parsed, env)).target;
  }

  async function targetOf(parsed: GlobalFlags, env: Env): Promise<Target> {
    const target = await resolveTarget(targetFrom(parsed, env), env, configFor(env));
    if ('missing' in target) throw new Error(`missing ${target.missing}`);
    return target;
  }

  return {
    dir: () => state.dir,
    warnings: () => state.warnings,
    envWith,
    writeConfigText,
    writeConfig,
    configFor,
    flagsFrom,
    targetFrom,
    targetOf,
  };
}
