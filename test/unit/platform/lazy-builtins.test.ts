// The build hands undici src/http/lazy-assert.cts for node:assert, src/ui/ask-terminal.ts
// src/platform/lazy-tty.ts for node:tty, and src/http/loopback-lookup.ts src/http/lazy-dns.ts for
// node:dns (scripts/bundle-plugins.ts). These hold each stand-in to its importers' use and to the
// real module, so a change that uses more of a built-in fails here rather than in a user's run.

import assert from 'node:assert';
import dns from 'node:dns';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import tty from 'node:tty';
import { expect, it } from 'vitest';
import lazyDns from '../../../src/http/lazy-dns.js';
import lazyTty from '../../../src/platform/lazy-tty.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
// Required as undici requires node:assert: the module itself is the function (Node strips its types).
const lazyAssert = createRequire(import.meta.url)('../../../src/http/lazy-assert.cts') as (value: unknown, message?: string) => void;
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const members = (text: string, name: string): string[] =>
  [...new Set([...text.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, 'g'))].map((m) => m[1] ?? ''))].sort();

it('undici calls node:assert only as assert(value, message?)', () => {
  const lib = path.join(ROOT, 'node_modules/undici/lib');
  const files = readdirSync(lib, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
  const importers = files.map((file) => readFileSync(path.join(lib, file), 'utf8')).filter((text) => text.includes("'node:assert'"));
  expect(importers.length).toBeGreaterThan(5);
  for (const text of importers) {
    expect(text).toMatch(/^const assert = require\('node:assert'\)$/m);
    expect(members(text, 'assert')).toEqual([]);
  }
});

it("the assert stand-in passes what holds and throws node:assert's error for what does not", () => {
  expect(() => lazyAssert(1)).not.toThrow();
  expect(() => lazyAssert(true, 'never')).not.toThrow();
  const thrown = (() => {
    try {
      lazyAssert(0, 'the queue is empty');
    } catch (error) {
      return error;
    }
  })();
  expect(thrown).toBeInstanceOf(assert.AssertionError);
  expect(thrown).toMatchObject({ code: 'ERR_ASSERTION', message: 'the queue is empty', actual: 0, expected: true });
  expect(() => lazyAssert(false)).toThrow(assert.AssertionError);
});

it("ask-terminal takes only ReadStream and WriteStream from node:tty, and gets node:tty's own", () => {
  expect(members(read('src/ui/ask-terminal.ts'), 'tty')).toEqual(['ReadStream', 'WriteStream']);
  expect(lazyTty.ReadStream).toBe(tty.ReadStream);
  expect(lazyTty.WriteStream).toBe(tty.WriteStream);
});

it("loopback-lookup takes only lookup() from node:dns, and gets node:dns's own", () => {
  expect(members(read('src/http/loopback-lookup.ts'), 'dns')).toEqual(['lookup']);
  expect(lazyDns.lookup).toBe(dns.lookup);
});
