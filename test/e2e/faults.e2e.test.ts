// Answers the spec does not show, from a real loopback server, with the request as it left the
// process. Elsewhere: silence past --timeout, a Retry-After, a gzip body and Ctrl-C once each in
// test/e2e/hostile; redirects, HTML 5xx pages, retries and odd encodings in-process in test/http;
// plain http to another host in test/unit/commands/config/integrity (and the leak sweep); an old Node in
// test/e2e/old-node.
import { describe, expect, it } from 'vitest';
import { runPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { closedPort } from '../helpers/scripted-server.js';

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
    name: '403 problem+json',
    status: 403,
    headers: { 'content-type': 'application/problem+json' },
    body: '{"type":"about:blank","title":"Forbidden","detail":"token lacks plants:delete"}',
    exit: 4,
    stderr:
      '✗ plant 42: Forbidden: token lacks plants:delete (HTTP 403)\n' +
      'the server refused the token (401/403); it came from PLANTSTORE_TOKEN: set it to a valid token, or unset it and store one with plantstore auth login\n',
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
  expect(result.stderr).toBe(
    `✗ plant 42: connection refused (127.0.0.1:${port}): is the server running at that address, and is the base URL right?\n`,
  );
});
