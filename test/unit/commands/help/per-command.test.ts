// Issue 29 item 3: help per command. Each command's help lists the variables and exit codes
// that concern it and names man plantstore; one completion install advice everywhere; an
// unknown shell names the supported ones; a mistyped flag points at the command's own help;
// every bad id on the command line is named, up to ten.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTALL } from '../../../../src/completion/tree.js';
import { expectUsageError, inProcess } from '../../../helpers/in-process.js';

const { run } = inProcess();

/** A section of a help text: the lines after its heading, up to the blank line. */
function section(help: string, heading: string): string | undefined {
  return new RegExp(`\\n${heading}\\n((?: {2}.*\\n)+)`).exec(help)?.[1];
}

describe("each command's help", () => {
  it.each([
    [
      ['delete'],
      ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_COMMAND', 'PLANTSTORE_BASE_URL', 'PLANTSTORE_CONCURRENCY', 'https_proxy'],
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 70, 130],
    ],
    [['auth'], ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_FILE', 'PLANTSTORE_CONFIG_DIR'], [0, 2, 3, 4]],
    [
      ['auth', 'status'],
      ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_COMMAND', 'PLANTSTORE_PROFILE', 'PLANTSTORE_TIMEOUT'],
      [0, 3, 4],
    ],
    [
      ['auth', 'logout'],
      ['PLANTSTORE_PROFILE', 'PLANTSTORE_CONFIG_DIR'],
      [0, 3],
    ],
    [
      ['config', 'get'],
      ['PLANTSTORE_PROFILE', 'PLANTSTORE_CONFIG_DIR'],
      [0, 2, 3],
    ],
    [
      ['config', 'profiles'],
      ['PLANTSTORE_PROFILE', 'PLANTSTORE_CONFIG_DIR'],
      [0, 2, 3],
    ],
    [['sandbox'], ['PLANTSTORE_SANDBOX_TOKEN'], [0, 2, 3]],
    [['completion'], ['PLANTSTORE_CONFIG_DIR'], [0, 2]],
  ])('%j lists its variables and exit codes', async (argv, variables, exits) => {
    const help = (await run([...argv, '--help'])).stdout;
    const environment = section(help, 'Environment:');
    expect(environment, 'Environment section').toBeDefined();
    // A variable no option stands for has its row; an option's is named beside it (issue 41: delete --help was 157 lines).
    const flat = help.replace(/\s+/g, ' ');
    for (const name of variables) {
      const listed = new RegExp(`^ {2}${name}\\b`, 'm').test(environment ?? '');
      const beside = new RegExp(`\\((?:env|prefer env) ${name}\\b|\\(also ${name}=1\\)`).test(flat);
      expect(listed || beside, name).toBe(true);
    }
    const codes = [...(section(help, 'Exit codes(?: \\(.*\\))?:') ?? '').matchAll(/^ {2}\s*(\d+) {2}/gm)].map((match) => Number(match[1]));
    expect(codes).toEqual(expect.arrayContaining(exits));
    expect(help).toContain('after npm install -g plantstore, the manual: man plantstore');
  });

  it('delete --help fits in far fewer lines than its 167: the reference holds the details (issue 41)', async () => {
    const help = (await run(['delete', '--help'])).stdout;
    expect(help.split('\n').length).toBeLessThanOrEqual(135);
    // What a user needs stays: every option, the variables no option stands for, every exit code.
    for (const needed of ['--journal <file>', '--max-deletes <n>', '--shard <i/n>', 'PLANTSTORE_TOKEN ', 'https_proxy', '  143  '])
      expect(help).toContain(needed);
  });

  it('lists no variable of a flag the command does not read', async () => {
    const environment = section((await run(['config', 'path', '--help'])).stdout, 'Environment:') ?? '';
    expect(environment).not.toContain('PLANTSTORE_TOKEN');
    expect(environment).not.toContain('PLANTSTORE_TIMEOUT');
  });
});

describe('completion install advice', () => {
  // The README, and the reference beside it where that lives (docs/*.md).
  const root = path.resolve(import.meta.dirname, '../../../..');
  const docs = existsSync(path.join(root, 'docs')) ? readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')) : [];
  const README = ['README.md', ...docs.map((name) => `docs/${name}`)].map((file) => readFileSync(path.join(root, file), 'utf8')).join('\n');

  it('is one line for bash, the same in the README (or its reference), completion --help and the script, and makes its folder', async () => {
    expect(INSTALL.bash).toMatch(/^mkdir -p (\S+) && plantstore completion bash > \1\/plantstore$/);
    expect(README.split('\n')).toContain(INSTALL.bash);
    const help = (await run(['completion', '--help'])).stdout.replace(/ \\\n\s+/g, ' ');
    expect(help).toContain(`$ ${INSTALL.bash}`);
    const script = (await run(['completion', 'bash'])).stdout;
    expect(script).toContain(`# Every new shell:   ${INSTALL.bash}`);
  });

  it('is not contradicted by the top-level help', async () => {
    const help = (await run(['--help'])).stdout;
    expect(help).not.toContain('bashrc');
    expect(README).not.toMatch(/^plantstore completion bash > /m);
  });
});

describe('usage errors point at the next step', () => {
  it.each([
    [['completion', 'tcsh'], /^unknown shell 'tcsh': plantstore completion supports bash, zsh, fish and powershell$/],
    [['completion'], /^name your shell: plantstore completion bash \(or zsh, fish, powershell\)/],
    [['delete', '--jsn', '1'], /^unknown option '--jsn' \(did you mean --json\?\); see plantstore delete --help$/],
    [['auth', 'status', '--bogus'], /^unknown option '--bogus'; see plantstore auth status --help$/],
    [['config', 'lsit'], /; see plantstore config --help$/],
    [
      ['delete', '1.5', 'abc'],
      /^invalid plant ids '1\.5' and 'abc': an id is a whole number from -9223372036854775808 to 9223372036854775807, such as 42$/,
    ],
    [['delete', '7', '1.5', '8'], /^invalid plant id '1\.5': an id is a whole number such as 42$/],
    [
      ['delete', ...'abcdefghijklm'.split(''), '99999999999999999999'],
      /^invalid plant ids 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j' and 4 more: /,
    ],
  ])('%j', async (argv, message) => {
    const result = await run(argv, { env: { PLANTSTORE_TOKEN: 'sandbox-token-0123', PLANTSTORE_BASE_URL: 'https://x.example' } });
    expectUsageError(result, message);
    expect(result.sent).toEqual([]);
  });
});
