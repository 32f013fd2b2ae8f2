// The tokens kept on the machine, learned for the mask when a run stops before it resolved its
// own: every profile's stored token and the token file's, and nothing from what cannot be read
// safely (a FIFO would hang the error path, or drain what a token command writes into it).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { learnTokensAtRest } from '../../../src/config/tokens-at-rest.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-at-rest-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function learned(env: Record<string, string>, argv: string[] = []): string[] {
  const tokens: string[] = [];
  learnTokensAtRest({ PLANTSTORE_CONFIG_DIR: dir, ...env }, argv, (token) => tokens.push(token));
  return tokens;
}

function storeConfig(text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'config.json'), text, { mode: 0o600 });
}

it("learns every profile's stored token, and the token files named by the variable and by --token-file", () => {
  storeConfig(
    JSON.stringify({ profiles: { default: { token: 'stored-default-1' }, staging: { token: ' stored-staging-2\n' }, none: {} } }),
  );
  writeFileSync(path.join(dir, 'env-token'), 'from-the-variable-3\n');
  writeFileSync(path.join(dir, 'flag-token'), 'from-the-flag-4\n');
  writeFileSync(path.join(dir, 'after-dashes'), 'not-a-token-file-5\n');
  const argv = ['--token-file', path.join(dir, 'flag-token'), 'delete', '--', '--token-file', path.join(dir, 'after-dashes')];
  expect(learned({ PLANTSTORE_TOKEN_FILE: path.join(dir, 'env-token') }, argv)).toEqual([
    'stored-default-1',
    'stored-staging-2',
    'from-the-variable-3',
    'from-the-flag-4',
  ]);
  expect(learned({}, [`--token-file=${path.join(dir, 'flag-token')}`])).toEqual([
    'stored-default-1',
    'stored-staging-2',
    'from-the-flag-4',
  ]);
});

it('learns nothing, and throws nothing, from a config file that is not JSON or not there, or a token file that is missing', () => {
  expect(learned({ PLANTSTORE_TOKEN_FILE: path.join(dir, 'missing') })).toEqual([]);
  storeConfig('{ not json');
  expect(learned({})).toEqual([]);
  storeConfig(JSON.stringify({ profiles: [1, null, { token: 7 }] }));
  expect(learned({})).toEqual([]);
});

it('learns only what a run could use as a token: not 8 KiB of zeros from a huge file, nor a value with spaces or too short', () => {
  const huge = path.join(dir, 'huge');
  writeFileSync(huge, Buffer.alloc(64 * 1024));
  storeConfig(JSON.stringify({ profiles: { a: { token: 'has spaces in it' }, b: { token: 'short' }, c: { token: 'good-token-123' } } }));
  expect(learned({ PLANTSTORE_TOKEN_FILE: huge })).toEqual(['good-token-123']);
});

it('never reads a FIFO named as the token file: it returns at once, with nothing learned', () => {
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  // A read of a FIFO with no writer would block this test until its timeout.
  expect(learned({ PLANTSTORE_TOKEN_FILE: fifo })).toEqual([]);
});
