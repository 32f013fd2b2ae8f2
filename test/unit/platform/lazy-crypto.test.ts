// The build gives the journal's modules src/platform/lazy-crypto.ts in place of node:crypto (see
// scripts/bundle-plugins.ts). This holds the stand-in to what those modules use and to node:crypto's
// results, so a journal module that starts using more of node:crypto fails here, not in a user's run.

import crypto from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import lazyDefault, * as lazy from '../../../src/platform/lazy-crypto.js';

const JOURNAL = path.resolve(import.meta.dirname, '../../../src/batch/journal');

/** The names each journal module takes from node:crypto: named imports, and members of its default import. */
function usedNames(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(JOURNAL).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(path.join(JOURNAL, file), 'utf8');
    for (const [, clause = ''] of text.matchAll(/^import\s+(?!type\s)([^;]*?)\s*from\s*'node:crypto'/gm)) {
      for (const part of /\{([^}]*)\}/.exec(clause)?.[1]?.split(',') ?? []) names.add(part.trim().split(/\s+as\s+/)[0] ?? '');
      const local = /^(\w+)/.exec(clause)?.[1];
      if (local !== undefined)
        for (const [, member = ''] of text.matchAll(new RegExp(`\\b${local}\\.(\\w+)\\b(?!\\s*[<>])`, 'g'))) names.add(member);
    }
  }
  // Types (crypto.ScryptOptions) are erased before the build sees them.
  return [...names].filter((name) => name !== '' && !/^[A-Z]/.test(name)).sort();
}

it('has every value the journal takes from node:crypto, named and on its default export', () => {
  const used = usedNames();
  expect(used).toEqual(expect.arrayContaining(['randomBytes', 'scrypt', 'scryptSync', 'timingSafeEqual']));
  for (const name of used) {
    expect(typeof (lazy as Record<string, unknown>)[name], name).toBe('function');
    expect(typeof (lazyDefault as Record<string, unknown>)[name], name).toBe('function');
  }
});

it("gives node:crypto's results", async () => {
  const salt = Buffer.from('0123456789abcdef');
  const options = { N: 1024, r: 8, p: 1 };
  expect(lazy.scryptSync('secret', salt, 16, options)).toEqual(crypto.scryptSync('secret', salt, 16, options));
  const scrypt = promisify(lazy.scrypt) as (secret: string, salt: Buffer, length: number, options: crypto.ScryptOptions) => Promise<Buffer>;
  expect(await scrypt('secret', salt, 16, options)).toEqual(crypto.scryptSync('secret', salt, 16, options));
  expect(lazy.randomBytes(8)).toHaveLength(8);
  expect(lazy.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab'))).toBe(true);
  expect(lazy.timingSafeEqual(Buffer.from('ab'), Buffer.from('ac'))).toBe(false);
});
