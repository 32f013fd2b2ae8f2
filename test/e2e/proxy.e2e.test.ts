// Proxies from the environment, against a real forward proxy. The proxies and servers
// on "another host" run in a network namespace this file creates (test/helpers/netns.ts),
// reached over a veth pair as any other host would be. An https origin goes through the proxy's CONNECT tunnel, so the
// proxy never sees the token; a loopback origin never goes through a proxy, and
// plain http (loopback only) therefore never does either.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createCa, issue, OPENSSL } from '../helpers/certificates.js';
import { tempConfigDir } from '../helpers/cli.js';
import { type ForwardProxy, type ProxyOptions, startForwardProxy } from '../helpers/forward-proxy.js';
import { createOtherHost, type OtherHost, type RemoteServer } from '../helpers/netns.js';
import { closedPort, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { runTimed } from '../helpers/timed.js';

const TOKEN = 'proxy-Token-3b8e61f0c2';

let config: ReturnType<typeof tempConfigDir>;
let other: OtherHost;
beforeAll(() => {
  config = tempConfigDir();
  other = createOtherHost();
});
afterAll(async () => {
  config.cleanup();
  await other?.remove();
});

const baseEnv = (baseUrl: string) => ({ PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: baseUrl });

async function proxy(options?: ProxyOptions): Promise<ForwardProxy> {
  const started = await startForwardProxy(options);
  onTestFinished(() => started.close());
  return started;
}

async function plantServer(): Promise<ScriptedServer> {
  const server = await startScriptedServer((_req, res) => res.writeHead(204).end());
  onTestFinished(() => server.close());
  return server;
}

describe('a loopback base URL', () => {
  it.each([
    { name: 'HTTP_PROXY', env: (p: string) => ({ HTTP_PROXY: p }) },
    { name: 'http_proxy', env: (p: string) => ({ http_proxy: p }) },
    { name: 'ALL_PROXY', env: (p: string) => ({ ALL_PROXY: p }) },
    { name: 'HTTPS_PROXY and https_proxy', env: (p: string) => ({ HTTPS_PROXY: p, https_proxy: p }) },
  ])('goes direct whatever $name says: the token never reaches a proxy on another host', async ({ env }) => {
    const remote = await other.proxy();
    onTestFinished(() => remote.close());
    const server = await plantServer();
    for (const baseUrl of [server.url, server.url.replace('127.0.0.1', 'localhost')]) {
      const run = await runTimed(['--verbose', 'delete', '42'], { env: { ...baseEnv(baseUrl), ...env(remote.url) } });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Deleted plant 42\n');
      expect(run.stderr).toContain(`DELETE ${baseUrl}/plants/42 (direct)`);
    }
    expect(await remote.requests()).toHaveLength(0);
    expect(server.requests.map((request) => request.headers['authorization'])).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });
});

describe.skipIf(OPENSSL === undefined)('an https base URL on another host', () => {
  let work: string;
  let remote: RemoteServer<string>;
  let caFile: string;
  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'plantstore-proxy-'));
    const ca = createCa(work);
    const cert = issue(ca, work, 'remote', [`IP:${other.address}`]);
    caFile = ca.certFile;
    remote = await other.https(cert.certFile, cert.keyFile);
  });
  afterAll(async () => {
    await remote?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each([
    { name: 'HTTPS_PROXY', env: (p: string) => ({ HTTPS_PROXY: p }) },
    { name: 'a proxy without a scheme, as curl accepts it', env: (p: string) => ({ https_proxy: p.replace('http://', '') }) },
    { name: 'ALL_PROXY', env: (p: string) => ({ ALL_PROXY: p }) },
  ])('goes through the CONNECT tunnel with $name; the proxy never sees the token', async ({ env }) => {
    const forward = await proxy();
    const before = (await remote.requests()).length;
    const run = await runTimed(['--cacert', caFile, '--verbose', 'delete', '42'], {
      env: { ...baseEnv(remote.url), ...env(forward.url) },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`DELETE ${remote.url}/plants/42 via proxy ${forward.url}`);
    expect(forward.requests).toEqual([expect.objectContaining({ kind: 'connect', target: `${other.address}:${remote.port}` })]);
    expect(JSON.stringify(forward.requests)).not.toContain(TOKEN);
    expect((await remote.requests()).slice(before)).toEqual(['/plants/42']);
  });

  it.each([407, 403, 502])('names the proxy when it answers %i to CONNECT: exit 7, nothing else asked', async (status) => {
    const forward = await proxy({ refuseConnect: status });
    const proxyUrl = `http://user:secretpw@127.0.0.1:${forward.port}`;
    const run = await runTimed(['--cacert', caFile, '--verbose', '--max-retry-wait', '0', 'delete', '42'], {
      env: { ...baseEnv(remote.url), HTTPS_PROXY: proxyUrl },
    });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      `✗ plant 42: proxy http://***@127.0.0.1:${forward.port} refused to connect to ${other.address}:${remote.port} (HTTP ${status} to CONNECT)`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain('secretpw');
    expect(forward.requests.every((request) => request.kind === 'connect')).toBe(true);
    // The proxy credentials went to the proxy, and only there; the bearer token did not.
    expect(forward.requests[0]?.headers['proxy-authorization']).toBe(`Basic ${Buffer.from('user:secretpw').toString('base64')}`);
    expect(JSON.stringify(forward.requests)).not.toContain(TOKEN);
  });

  it('names the proxy, credentials masked, when its port refuses connections: exit 7', async () => {
    const port = await closedPort();
    const env = { ...baseEnv(remote.url), HTTPS_PROXY: `http://user:secretpw@127.0.0.1:${port}` };
    const run = await runTimed(['--cacert', caFile, '--max-retry-wait', '0', 'delete', '42'], { env });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      `✗ plant 42: connection refused by proxy http://***@127.0.0.1:${port} (while reaching ${other.address}:${remote.port}): is the proxy running there, and is the proxy variable right?`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain('secretpw');
  });

  it('refuses a proxy scheme it cannot speak, before sending anything: exit 3', async () => {
    const before = (await remote.requests()).length;
    const run = await runTimed(['delete', '42'], { env: { ...baseEnv(remote.url), HTTPS_PROXY: 'socks5://127.0.0.1:1080' } });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      'plantstore: unsupported proxy socks5://127.0.0.1:1080 (from HTTPS_PROXY): plantstore speaks to http:// and https:// proxies only; set HTTPS_PROXY to one, or unset it\n',
    );
    expect((await remote.requests()).length).toBe(before);
  });
});

describe('a plain http base URL on another host', () => {
  it.each([
    { name: 'directly', env: (_p: string) => ({}) },
    { name: 'through a proxy on this machine', env: (p: string) => ({ HTTP_PROXY: p, http_proxy: p }) },
  ])('is refused before anything is sent ($name): exit 3, the host and the proxy asked nothing', async ({ env }) => {
    const remote = await other.http();
    onTestFinished(() => remote.close());
    const forward = await proxy();
    const run = await runTimed(['delete', '42'], { env: { ...baseEnv(remote.url), ...env(forward.url) } });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `plantstore: refusing to send the token over plain http to ${other.address}:${remote.port} (base URL from PLANTSTORE_BASE_URL); use https, or http only for loopback\n`,
    );
    expect(await remote.connections()).toBe(0);
    expect(forward.requests).toHaveLength(0);
  });
});
