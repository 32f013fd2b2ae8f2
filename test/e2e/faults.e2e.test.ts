// Answers the spec does not show, from a real loopback server: every exit code row a server can cause.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { closedPort, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'faults-Token-81c2d7e4';
const { serve, envFor } = loopbackCases(TOKEN);

describe.each([
  {
    name: '404 with an Error object',
    status: 404,
    headers: { 'content-type': 'application/json' },
    body: '{"error":44,"message":"no such plant"}',
    exit: 5,
    stderr: '✗ plant 42: error 44: no such plant (HTTP 404)\n',
  },
  {
    name: '500 with an HTML page',
    status: 500,
    headers: { 'content-type': 'text/html' },
    body: '<html><head><title>Internal Server Error</title></head><body><pre>at Stack.trace</pre></body></html>',
    exit: 6,
    stderr: '✗ plant 42: Internal Server Error (HTTP 500)\n',
  },
  {
    name: '403 problem+json',
    status: 403,
    headers: { 'content-type': 'application/problem+json' },
    body: '{"type":"about:blank","title":"Forbidden","detail":"token lacks plants:delete"}',
    exit: 4,
    stderr: '✗ plant 42: Forbidden: token lacks plants:delete (HTTP 403)\n',
  },
  {
    name: '429 with an empty body',
    status: 429,
    headers: {},
    body: '',
    exit: 6,
    stderr: '✗ plant 42: Too Many Requests (HTTP 429)\n',
  },
])('a server answering $name', ({ status, headers, body, exit, stderr }) => {
  it(`exits ${exit} with a one-line explanation`, async () => {
    const server = await serve((_req, res) => res.writeHead(status, headers).end(body));
    const result = await runPlantstore(['delete', '42'], { env: envFor(server.url) });
    expect(result).toMatchObject({ code: exit, stdout: '', stderr });
    expect(server.requests[0]).toMatchObject({ method: 'DELETE', url: '/plants/42' });
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(server.requests[0]?.headers['user-agent']).toMatch(/^plantstore\/\d+\.\d+\.\d+ node\/\d+\.\d+\.\d+$/);
  });
});

it('does not follow a redirect, so the token never reaches the other host (exit 6)', async () => {
  const other = await startScriptedServer((_req, res) => res.writeHead(204).end());
  const server = await serve((_req, res) => res.writeHead(302, { location: `${other.url}/plants/42` }).end());
  const result = await runPlantstore(['--json', 'delete', '42'], { env: envFor(server.url) });
  await other.close();
  expect(result.code).toBe(6);
  expect(other.requests).toHaveLength(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ id: 42, deleted: false, status: 302, exit: 6 });
  expect(result.stderr).toContain(`redirected to ${other.url}/plants/42`);
});

it('keeps a path prefix of the base URL and ignores its trailing slash', async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const prefixed = await runPlantstore(['delete', '42'], { env: envFor(`${server.url}/api/v1/`) });
  expect(prefixed.code).toBe(0);
  expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/plants/42']);
});

it('exits 7 when the connection is refused', async () => {
  const port = await closedPort();
  const result = await runPlantstore(['delete', '42'], { env: envFor(`http://127.0.0.1:${port}`) });
  expect(result.code).toBe(7);
  expect(result.stderr).toBe(`✗ plant 42: connection refused (127.0.0.1:${port})\n`);
});

it('exits 8 when the server does not answer within --timeout', async () => {
  const server = await serve(() => {});
  const result = await runPlantstore(['--timeout', '0.3', 'delete', '42'], { env: envFor(server.url) });
  expect(result.code).toBe(8);
  expect(result.stderr).toContain('no complete answer from 127.0.0.1');
  expect(result.stderr).toContain('within 0.3s');
});

it('exits 3 before sending anything when plain http would carry the token off this machine', async () => {
  const result = await runPlantstore(['delete', '42'], { env: envFor('http://plants.example.com') });
  expect(result.code).toBe(3);
  expect(result.stderr).toContain('refusing to send the token over plain http to plants.example.com');
});

it('exits 130 on Ctrl-C, saying what was and was not deleted', async () => {
  const server = await serve((req, res) => {
    if (req.url === '/plants/1') res.writeHead(204).end(); // the second request hangs until interrupted
  });
  const child = startPlantstore(['delete', '--concurrency', '1', '1', '2', '3'], { env: envFor(server.url) });
  const done = finished(child);
  await server.nextRequest();
  await server.nextRequest();
  child.kill('SIGINT');
  const result = await done;
  expect(result.code).toBe(130);
  expect(result.stdout).toBe('Deleted plant 1\n');
  expect(result.stderr).toContain('✗ plant 2: interrupted while waiting for the answer');
  expect(result.stderr).toContain('✗ plant 3: not sent: interrupted before its turn');
  expect(result.stderr).toContain('1 deleted, 0 already absent, 1 failed, 1 not attempted');
  expect(result.stderr).toContain('interrupted: 1 of 3 deleted before the interrupt');
});

describe('an unsupported Node', () => {
  const oldNode = findOldNode();
  it.skipIf(!oldNode)('gets one clear line and exit 3', async () => {
    const result = await runPlantstore(['--version'], { node: oldNode! });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^plantstore needs Node\.js >= 22\.19; this is v\d+\.\d+\.\d+\n$/);
  });
});

// The machine's own Node (v20 here and in CI) is older than the engines range.
function findOldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    try {
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      const [major, minor] = version.slice(1).split('.').map(Number);
      if (major! < 22 || (major === 22 && minor! < 19)) return candidate;
    } catch {
      // not installed there
    }
  }
  return undefined;
}
