// `plantstore --version` on the built CLI: the bare version from main.ts's fast path, and with
// --json the object for bug reports, both from the fast path (the two words alone, either order)
// and through commander (with any other option).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runPlantstore } from '../helpers/cli.js';

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('plantstore --version', () => {
  it.each([[['--version']], [['-V']], [['--no-color', '--version']]])('%j prints the version alone', async (argv) => {
    const result = await runPlantstore(argv, { env: cleanEnv() });
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([[['--version', '--json']], [['--json', '--version']], [['--json', '-V']], [['--no-color', '--json', '--version']]])(
    '%j prints {"version","node"} on one line',
    async (argv) => {
      const result = await runPlantstore(argv, { env: cleanEnv() });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toBe(`${JSON.stringify({ version: VERSION, node: process.version })}\n`);
    },
  );
});
