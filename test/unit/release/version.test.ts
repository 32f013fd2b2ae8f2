// `plantstore --version` in-process, through commander: the bare version, and with --json the
// object a bug report wants, whatever the order of the two words.
import { describe, expect, it } from 'vitest';
import { inProcess, VERSION } from '../../helpers/in-process.js';

const { run } = inProcess();

describe('--version', () => {
  it.each([[['--version']], [['-V']], [['--no-color', '--version']]])('%j prints the bare version', async (argv) => {
    const result = await run(argv);
    expect(result).toMatchObject({ exit: 0, error: undefined, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([[['--version', '--json']], [['--json', '--version']], [['-V', '--json']], [['--json', '--no-color', '-V']]])(
    '%j prints {"version","node"} as one JSON line',
    async (argv) => {
      const result = await run(argv);
      expect(result).toMatchObject({ exit: 0, error: undefined, stderr: '' });
      expect(result.stdout).toBe(`${JSON.stringify({ version: VERSION, node: process.version })}\n`);
    },
  );

  it('--json after -- is an operand, not the JSON switch', async () => {
    const result = await run(['--version', '--', '--json']);
    expect(result.stdout).toBe(`${VERSION}\n`);
  });
});

describe('package-lock.json', () => {
  it('carries the package version, so npm install in a fresh clone leaves no diff', async () => {
    const { readFileSync } = await import('node:fs');
    const read = (file: string) => JSON.parse(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8'));
    const lock = read('package-lock.json');
    const pkg = read('package.json');
    expect({ lock: lock.version, root: lock.packages[''].version }).toEqual({ lock: pkg.version, root: pkg.version });
  });
});
