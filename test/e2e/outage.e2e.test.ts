// A failing service pauses the batch, not each id; a few failing ids are theirs alone (issue 34,
// items 7 and 8). The built CLI against loopback servers: a reverse proxy before the sandbox
// whose upstream goes down mid-run, a server that gives a gateway's 502 page for a while, and a
// server with a few ids that always answer 503 or never answer. Asserted on what the servers
// counted, never on how long a run took.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'vitest';
import { MAX_AUTO_CONCURRENCY } from '../../src/batch/adaptive/latency-tuning.js';
import { OUTAGE_AFTER_ANSWERS, PROBE_EVERY_MS } from '../../src/batch/throttle/outage.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { runPlantstore } from '../helpers/cli.js';
import { type GatewayProxy, startGatewayProxy } from '../helpers/gateway-proxy.js';
import { closedAfter, ownConfigDir } from '../helpers/per-test.js';

const TOKEN = 'outage-Token-5b2e90c4';
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');

/** The CLI's environment for this test: a config folder of its own (the tests of a file run at once). */
const envFor = (context: TestContext, baseUrl: string) => ({
  PLANTSTORE_CONFIG_DIR: ownConfigDir(context),
  PLANTSTORE_TOKEN: TOKEN,
  PLANTSTORE_BASE_URL: baseUrl,
});

/** What reaches a down proxy: the requests the run started before it saw the outage (at most a ceiling's worth), then one probe a pause apart. */
function downBound(proxy: GatewayProxy, window: { from: number; to: number }) {
  const afterFirstSecond = proxy.downArrivals.filter((at) => at >= window.from + 1000).length;
  const probesAtMost = Math.ceil((window.to - window.from - 1000) / PROBE_EVERY_MS) + 1;
  return { afterFirstSecond, probesAtMost };
}

// Each test has its own servers and config folder: the outages they wait out overlap.
describe.concurrent('an upstream down for a while behind a reverse proxy', () => {
  // Down after 500 requests (downAfter counts requests, not time: the default's limit reaches its
  // ceiling of 64 within its first hundred), for 5 s, then 1,000 more ids after it is back: the
  // restart is seen, and a run that did not pause would send far more than the bound below while
  // it is down. The bench's outage row runs the 20,000.
  it('1,500 ids: no id fails, and while it is down only a probe a second reaches the proxy', async (context) => {
    const { expect } = context;
    const sandbox = closedAfter(context, await startSandbox({ host: '127.0.0.1', port: 0, token: TOKEN, plants: 1_500 }));
    const proxy = closedAfter(context, await startGatewayProxy(sandbox.url));
    const outage = proxy.downAfter(500, 5_000);
    const result = await runPlantstore(['delete', '--stdin'], { env: envFor(context, proxy.url), input: ids(1_500) });
    const window = await outage;

    expect(result.stderr).toMatch(/^1500 deleted, 0 already absent, 0 failed, 0 not sent in /m);
    expect(result.code).toBe(0);
    expect(sandbox.plantCount).toBe(0);
    // Before the run saw the outage: the requests it had started, at most its ceiling and the failing answers in a row that tell.
    expect(proxy.receivedWhileDown).toBeLessThanOrEqual(MAX_AUTO_CONCURRENCY + OUTAGE_AFTER_ANSWERS);
    const { afterFirstSecond, probesAtMost } = downBound(proxy, window);
    expect(afterFirstSecond).toBeLessThanOrEqual(probesAtMost);
    expect(result.stderr).toMatch(/the service was down once/);
  }, 120_000);
});

describe.concurrent("a server that gives a gateway's 502 page for 3 s", () => {
  it.for<[string, string[]]>([
    ['the default', []],
    ['--concurrency 64', ['--concurrency', '64']],
  ])('1,500 ids with %s: none fails', { timeout: 60_000 }, async ([_name, flags], context) => {
    const { expect } = context;
    // The page from the 500th request on (past the default's ramp to 64), for 3 s; 1,000 ids after it.
    const sandbox = closedAfter(context, await startSandbox({ host: '127.0.0.1', port: 0, token: TOKEN, plants: 1_500 }));
    const proxy = closedAfter(context, await startGatewayProxy(sandbox.url));
    const outage = proxy.downAfter(500, 3_000);
    const result = await runPlantstore(['delete', '--stdin', ...flags], { env: envFor(context, proxy.url), input: ids(1_500) });
    const window = await outage;

    expect(result.stderr).toMatch(/^1500 deleted, 0 already absent, 0 failed, 0 not sent in /m);
    expect(result.code).toBe(0);
    // The slow restart after it is no rate cut: the summary names the outage, and no pace the server asked for.
    expect(result.stderr).toMatch(/; throttled: the service was down once \(/);
    expect(result.stderr).not.toMatch(/sending at/);
    const { afterFirstSecond, probesAtMost } = downBound(proxy, window);
    expect(afterFirstSecond).toBeLessThanOrEqual(probesAtMost);
  });
});

/** 500 plants; 4 ids always answer 503, 2 never answer (held open until the client gives up). */
async function fewBadIds(context: TestContext) {
  // The first wave among them: before any good answer, as the run met them; then one mid-run and one near the end.
  const always503 = new Set(['1', '2', '3', '499']);
  const silent = new Set(['4', '300']);
  const deleted = new Set<string>();
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    const id = req.url?.split('/').pop() ?? '';
    requests.set(id, (requests.get(id) ?? 0) + 1);
    if (always503.has(id)) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":503,"message":"try later"}');
      return;
    }
    if (silent.has(id)) return;
    deleted.add(id);
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, always503, silent, deleted, requests };
}

describe.concurrent('a few ids that always answer 503 and a few that never answer', () => {
  it.for<[string, string[]]>([
    ['--max-retry-wait 0', ['--max-retry-wait', '0']],
    ['--max-retry-wait 0 and --concurrency 64', ['--max-retry-wait', '0', '--concurrency', '64']],
    ['--max-retry-wait 2', ['--max-retry-wait', '2']],
    ['the default wait', []],
  ])(
    'with %s: every other id is deleted, and only those 6 fail, each after its own retries',
    { timeout: 60_000 },
    async ([_name, flags], context) => {
      const { expect } = context;
      const server = await fewBadIds(context);
      const result = await runPlantstore(['delete', '--stdin', '--timeout', '1', ...flags], {
        env: envFor(context, server.url),
        input: ids(500),
      });

      expect(server.deleted.size).toBe(494);
      expect(result.stderr).toMatch(
        /^494 deleted, 0 already absent, 0 failed, 6 in flight \(sent with no decided answer: they may be deleted\), 0 not sent in /m,
      );
      const failed = [...result.stderr.matchAll(/^✗ plant (\d+):/gm)].map((match) => match[1]);
      expect(failed).toEqual(['1', '2', '3', '4', '300', '499']);
      expect(result.stderr).not.toMatch(/: not sent|giving up|refused (every|all)/);
      // Nor did they change the others' pace: no pause, no rate cut (before, 8 pauses and ~1/s with --max-retry-wait 2).
      expect(result.stderr).not.toMatch(/paused|sending at ~/);
      // The first failing id's code: 503 is 6.
      expect(result.code).toBe(6);
      // Each bad id had its retries (3 attempts; a 503 refused while others are served may cost a fifth of one), no more.
      for (const id of server.always503) expect(server.requests.get(id)).toBeGreaterThanOrEqual(3);
      for (const id of server.silent) expect(server.requests.get(id)).toBe(3);
    },
  );
});
