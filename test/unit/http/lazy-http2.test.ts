// The build gives undici's HTTP/2 client src/http/lazy-http2.ts in place of node:http2 (see
// scripts/bundle.ts). This holds the stand-in to what undici takes from it and to Node's values,
// so an undici upgrade that uses more of node:http2 fails here rather than in a user's h2 run.

import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import * as lazy from '../../../src/http/lazy-http2.js';

const clientH2 = readFileSync(createRequire(import.meta.url).resolve('undici/lib/dispatcher/client-h2.js'), 'utf8');

it("has every constant undici's HTTP/2 client destructures, with node:http2's values", () => {
  const destructured = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/.exec(clientH2)?.[1];
  expect(destructured).toBeDefined();
  const names = (destructured ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  expect(names.length).toBeGreaterThan(0);
  expect(Object.keys(lazy.constants).sort()).toEqual([...names].sort());
  for (const name of names)
    expect(lazy.constants[name as keyof typeof lazy.constants]).toBe(http2.constants[name as keyof typeof http2.constants]);
});

it("undici's HTTP/2 client calls nothing of node:http2 but connect()", () => {
  const used = new Set([...clientH2.matchAll(/\bhttp2\.(\w+)/g)].map((match) => match[1]));
  expect([...used]).toEqual(['connect']);
});

it('connect() opens a real HTTP/2 session (node:http2 is loaded when first called)', async () => {
  const server = http2.createServer();
  server.on('stream', (stream) => stream.respond({ ':status': 204 }, { endStream: true }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const session = lazy.connect(`http://127.0.0.1:${port}`);
  try {
    const status = await new Promise<unknown>((resolve, reject) => {
      session.once('error', reject);
      const request = session.request({ ':method': 'DELETE', ':path': '/plants/1' });
      request.once('response', (headers) => resolve(headers[':status']));
      request.once('error', reject);
      request.end();
    });
    expect(status).toBe(204);
  } finally {
    session.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
