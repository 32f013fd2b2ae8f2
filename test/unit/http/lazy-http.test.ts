// The build gives undici's core/util.js and dispatcher/client.js src/http/lazy-http.ts in place of
// node:http (see scripts/bundle-plugins.ts). This holds the stand-in to what those files take from
// node:http and to Node's value, so an undici upgrade that uses more of it fails here.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import * as lazy from '../../../src/http/lazy-http.js';

const require = createRequire(import.meta.url);
const source = (file: string): string => readFileSync(require.resolve(`undici/lib/${file}`), 'utf8');

it("undici's util.js takes only IncomingMessage, and only to compare a stream's class with it", () => {
  const util = source('core/util.js');
  expect(util).toMatch(/^const \{ IncomingMessage \} = require\('node:http'\)$/m);
  expect([...util.matchAll(/\bIncomingMessage\b/g)]).toHaveLength(2);
  expect(util).toContain('Object.getPrototypeOf(stream).constructor === IncomingMessage');
});

it("undici's client.js reads only http.maxHeaderSize", () => {
  const client = source('dispatcher/client.js');
  expect(client).toMatch(/^const http = require\('node:http'\)$/m);
  expect(new Set([...client.matchAll(/\bhttp\.(\w+)/g)].map((match) => match[1]))).toEqual(new Set(['maxHeaderSize']));
});

it("maxHeaderSize is node:http's, with --max-http-header-size given or not", () => {
  expect(lazy.maxHeaderSize).toBe(http.maxHeaderSize);
  const tsx = require.resolve('tsx');
  const read = (flags: string[], env: NodeJS.ProcessEnv = {}): string =>
    execFileSync(
      process.execPath,
      [...flags, '--import', tsx, '-e', "import('./src/http/lazy-http.ts').then((m) => console.log(m.maxHeaderSize))"],
      {
        encoding: 'utf8',
        cwd: path.resolve(import.meta.dirname, '../../..'),
        env: { PATH: process.env['PATH'] ?? '', ...env },
      },
    ).trim();
  expect(read([])).toBe('16384');
  expect(read(['--max-http-header-size=32768'])).toBe('32768');
  expect(read([], { NODE_OPTIONS: '--max-http-header-size=4096' })).toBe('4096');
});

it('an IncomingMessage of node:http is not taken for the stand-in', () => {
  expect(Object.getPrototypeOf(new http.IncomingMessage(null as never)).constructor === lazy.IncomingMessage).toBe(false);
});
