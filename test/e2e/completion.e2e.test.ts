// The completion script as a shell loads it: printed by the built CLI, sourced by
// bash, asking the same CLI for profile names.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSTALL } from '../../src/completion/tree.js';
import { BIN, cleanEnv, ROOT, runPlantstore, tempConfigDir } from '../helpers/cli.js';

const config = tempConfigDir();
let script: string;
let scriptFile: string;
let binDir: string;

beforeAll(async () => {
  // A `plantstore` on PATH, as an installed CLI would be, running the built binary.
  binDir = path.join(config.dir, 'bin');
  mkdirSync(binDir);
  const wrapper = path.join(binDir, 'plantstore');
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  writeFileSync(
    path.join(config.dir, 'config.json'),
    JSON.stringify({ profiles: { default: { 'base-url': 'http://127.0.0.1:1' }, staging: { 'base-url': 'http://127.0.0.1:2' } } }),
    { mode: 0o600 },
  );
  const printed = await runPlantstore(['completion', 'bash']);
  expect(printed.code).toBe(0);
  script = printed.stdout;
  scriptFile = path.join(config.dir, 'plantstore.bash');
  writeFileSync(scriptFile, script);
});
afterAll(() => config.cleanup());

function complete(words: string[]): string[] {
  const program = `
    source "$1"
    COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
    COMP_CWORD=${words.length - 1}
    COMP_LINE='${words.join(' ')}'
    COMP_POINT=\${#COMP_LINE}
    _plantstore
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', program, 'bash', scriptFile], {
    encoding: 'utf8',
    env: cleanEnv({ PATH: `${binDir}:${process.env['PATH']}`, PLANTSTORE_CONFIG_DIR: config.dir }),
  });
  return out.split('\n').filter(Boolean).sort();
}

it('passes bash -n', () => {
  expect(script).toContain('complete -F _plantstore plantstore');
  expect(() => execFileSync('bash', ['-n', scriptFile])).not.toThrow();
});

// Every other completion is test/unit/commands/completion's, on the same generated script with a stand-in
// for the profile helper; here the printed script completes a command, and profiles from the real CLI.
it.each([
  [['plantstore', 'de'], ['delete']],
  [
    ['plantstore', '--profile', ''],
    ['default', 'staging'],
  ],
])('completes %j', (words, expected) => {
  expect(complete(words)).toEqual(expected);
});

it("after a command, the printed script offers only the options it reads: none of the client's after sandbox (issue 41)", () => {
  const sandbox = complete(['plantstore', 'sandbox', '--']);
  expect(sandbox).toContain('--port');
  for (const client of ['--base-url', '--token-file', '--retries', '--cacert', '--profile']) expect(sandbox).not.toContain(client);
  expect(complete(['plantstore', 'delete', '--'])).toEqual(expect.arrayContaining(['--base-url', '--token-file', '--retries', '--rate']));
  expect(complete(['plantstore', '--'])).toEqual(expect.arrayContaining(['--base-url', '--profile', '--retries']));
});

it('the documented install line works in a fresh home, where the completions folder does not exist yet', () => {
  const home = path.join(config.dir, 'fresh-home');
  mkdirSync(home);
  // The README, or the reference beside it (docs/), wherever the install line is.
  const docs = existsSync(path.join(ROOT, 'docs')) ? readdirSync(path.join(ROOT, 'docs')).map((name) => path.join('docs', name)) : [];
  const text = ['README.md', ...docs.filter((file) => file.endsWith('.md'))].map((file) => readFileSync(path.join(ROOT, file), 'utf8'));
  const line = text
    .join('\n')
    .split('\n')
    .find((shown) => shown.includes('plantstore completion bash >'));
  expect(line).toBe(INSTALL.bash);
  execFileSync('bash', ['-c', line as string], { env: cleanEnv({ HOME: home, PATH: `${binDir}:${process.env['PATH']}` }) });
  const installed = readFileSync(path.join(home, '.local/share/bash-completion/completions/plantstore'), 'utf8');
  expect(installed).toBe(script);
});
