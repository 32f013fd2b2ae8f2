// Proxies from the environment, against a real forward proxy on loopback. For an
// http origin undici's ProxyAgent sends absolute-form requests through the proxy
// (no tunnel); for an https origin it sends CONNECT. Both are exercised here.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { type ForwardProxy, type ProxyOptions, startForwardProxy } from '../helpers/forward-proxy.js';
import { closedPort, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { runTimed } from '../helpers/timed.js';

const TOKEN = 'proxy-Token-3b8e61f0c2';
const SLACK_MS = 3000;

let config: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  config = tempConfigDir();
});
afterAll(() => config.cleanup());

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

describe('an http base URL', () => {
  it.each([
    { name: 'HTTP_PROXY', env: (p: string) => ({ HTTP_PROXY: p }), proxied: true },
    { name: 'lowercase http_proxy', env: (p: string) => ({ http_proxy: p }), proxied: true },
    { name: 'HTTP_PROXY with NO_PROXY=127.0.0.1', env: (p: string) => ({ HTTP_PROXY: p, NO_PROXY: '127.0.0.1' }), proxied: false },
    {
      name: 'http_proxy with no_proxy=localhost,127.0.0.1',
      env: (p: string) => ({ http_proxy: p, no_proxy: 'localhost,127.0.0.1' }),
      proxied: false,
    },
  ])('with $name: deleted (exit 0), through the proxy: $proxied', async ({ env, proxied }) => {
    const forward = await proxy();
    const server = await plantServer();
    const run = await runTimed(['--verbose', 'delete', '42'], { env: { ...baseEnv(server.url), ...env(forward.url) } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Deleted plant 42\n');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    if (proxied) {
      expect(forward.requests).toEqual([expect.objectContaining({ kind: 'forward', method: 'DELETE', target: `${server.url}/plants/42` })]);
      expect(run.stderr).toContain(`DELETE ${server.url}/plants/42 via proxy ${forward.url}`);
    } else {
      expect(forward.requests).toHaveLength(0);
      expect(run.stderr).toContain(`DELETE ${server.url}/plants/42 (direct)`);
      expect(run.stderr).not.toContain('via proxy');
    }
    expect(run.ms).toBeLessThan(SLACK_MS);
  });

  it('names the proxy, credentials masked, when its port refuses connections: exit 7', async () => {
    const server = await plantServer();
    const port = await closedPort();
    const env = { ...baseEnv(server.url), HTTP_PROXY: `http://user:secretpw@127.0.0.1:${port}` };
    const run = await runTimed(['--verbose', '--max-retry-wait', '0', 'delete', '42'], { env });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      `✗ plant 42: connection refused by proxy http://***@127.0.0.1:${port} (while reaching ${new URL(server.url).host})`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain('secretpw');
    expect(`${run.stdout}${run.stderr}`).not.toContain(`user:`);
    expect(server.requests).toHaveLength(0);
    expect(run.ms).toBeLessThan(SLACK_MS);
  });
});

describe('an https base URL', () => {
  it('names the proxy when it answers 407 to CONNECT: exit 7, one tunnel asked for', async () => {
    const forward = await proxy({ refuseConnect: 407 });
    const target = await closedPort(); // never reached: the proxy refuses first
    const proxyUrl = `http://user:secretpw@127.0.0.1:${forward.port}`;
    const env = { ...baseEnv(`https://127.0.0.1:${target}`), HTTPS_PROXY: proxyUrl };
    const run = await runTimed(['--verbose', 'delete', '42'], { env });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      `✗ plant 42: proxy http://***@127.0.0.1:${forward.port} refused to connect to 127.0.0.1:${target} (HTTP 407 to CONNECT)`,
    );
    expect(run.stderr).toContain(`via proxy http://***@127.0.0.1:${forward.port}`);
    expect(`${run.stdout}${run.stderr}`).not.toContain('secretpw');
    expect(forward.requests).toEqual([expect.objectContaining({ kind: 'connect', target: `127.0.0.1:${target}` })]);
    // The proxy credentials went to the proxy, and only there; the bearer token did not.
    expect(forward.requests[0]?.headers['proxy-authorization']).toBe(`Basic ${Buffer.from('user:secretpw').toString('base64')}`);
    expect(JSON.stringify(forward.requests[0]?.headers)).not.toContain(TOKEN);
    expect(run.ms).toBeLessThan(SLACK_MS);
  });
});
