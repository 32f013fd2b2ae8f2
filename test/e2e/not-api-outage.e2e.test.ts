// An answer that is not the API's is a failing answer (issue 40, item 5): a maintenance page (200,
// HTML) from a service that has answered as the API in this run is the service down, and the batch
// pauses and probes as for a gateway's 502; the same page from a base URL that has never answered
// as the API ends the run at once, exit 6. The built CLI against the sandbox behind a recording
// proxy; asserted on what the proxy counted, never on how long a run took.
import { describe, it, type TestContext } from 'vitest';
import { PROBE_EVERY_MS } from '../../src/batch/throttle/outage.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { runPlantstore } from '../helpers/cli.js';
import { type DownAnswer, type GatewayProxy, MAINTENANCE_PAGE, startGatewayProxy } from '../helpers/gateway-proxy.js';
import { closedAfter, ownConfigDir } from '../helpers/per-test.js';

const TOKEN = 'not-api-Token-4c8e21b9';
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');

/** The CLI's environment for this test: a config folder of its own (the tests of a file run at once). */
const envFor = (context: TestContext, baseUrl: string) => ({
  PLANTSTORE_CONFIG_DIR: ownConfigDir(context),
  PLANTSTORE_TOKEN: TOKEN,
  PLANTSTORE_BASE_URL: baseUrl,
});

/** nginx's `error_page 502 =200` with a JSON body: a 200 an API could send, to the first DELETE and to the one that confirms it. */
const JSON_CATCH_ALL: DownAnswer = { status: 200, contentType: 'application/json', body: '{"message":"upstream unavailable, try later"}' };

async function sandboxBehindProxy(context: TestContext, plants: number, whileDown = MAINTENANCE_PAGE) {
  const sandbox = closedAfter(context, await startSandbox({ host: '127.0.0.1', port: 0, token: TOKEN, plants }));
  const proxy = closedAfter(context, await startGatewayProxy(sandbox.url, whileDown));
  return { sandbox, proxy };
}

/** What reached the page after the run's first second of it: at most a probe a pause apart, as for a 503 outage (outage.e2e.test.ts). */
function pageBound(proxy: GatewayProxy, window: { from: number; to: number }) {
  const afterFirstSecond = proxy.downArrivals.filter((at) => at >= window.from + 1000).length;
  const probesAtMost = Math.ceil((window.to - window.from - 1000) / PROBE_EVERY_MS) + 1;
  return { afterFirstSecond, probesAtMost };
}

// Each test has its own servers and config folder: the outages they wait out overlap.
describe.concurrent("an answer that is not the API's for 3 s mid-batch", () => {
  it.for<[string, DownAnswer, string[]]>([
    ['a maintenance page (200, HTML)', MAINTENANCE_PAGE, []],
    ['a maintenance page (200, HTML)', MAINTENANCE_PAGE, ['--concurrency', '64']],
    ["nginx's error_page 502 =200 (JSON)", JSON_CATCH_ALL, []],
  ])(
    '%s, 1,500 ids with %#: no id fails, and only a probe a second reaches it after its first second',
    { timeout: 60_000 },
    async ([_name, whileDown, flags], context) => {
      const { expect } = context;
      // The page from the 500th request on (downAfter counts requests; the default's limit reaches its
      // ceiling of 64 within the first hundred), for 3 s; 1,000 ids after it.
      const { sandbox, proxy } = await sandboxBehindProxy(context, 1_500, whileDown);
      const outage = proxy.downAfter(500, 3_000);
      const result = await runPlantstore(['delete', '--stdin', ...flags], { env: envFor(context, proxy.url), input: ids(1_500) });
      const window = await outage;

      expect(result.stderr).toMatch(/^1500 deleted, 0 already absent, 0 failed, 0 not sent in /m);
      expect(result.code).toBe(0);
      expect(sandbox.plantCount).toBe(0);
      expect(result.stderr).toMatch(/the service was down once/);
      const { afterFirstSecond, probesAtMost } = pageBound(proxy, window);
      expect(afterFirstSecond).toBeLessThanOrEqual(probesAtMost);
    },
  );
});

describe.concurrent('a base URL that serves a page from the first request', () => {
  it('5,000 ids: exit 6 at once, saying the base URL may lead elsewhere; a handful of requests, the rest not sent', async (context) => {
    const { expect } = context;
    const { sandbox, proxy } = await sandboxBehindProxy(context, 5_000);
    void proxy.downAfter(0, 60_000);
    const result = await runPlantstore(['delete', '--stdin'], { env: envFor(context, proxy.url), input: ids(5_000) });

    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      '✗ plant 1: the server answered 200 with a web page ("Down for maintenance"), not the API; nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status) (HTTP 200)',
    );
    expect(result.stderr).toMatch(/^0 deleted, 0 already absent, \d+ failed, \d+ not sent in /m);
    expect(result.stderr).toMatch(
      /: not sent: the base URL has not answered as the Plant Store API in this run \(plant \d+: the server answered 200 with a web page/,
    );
    // The ids in flight when the first page came, each sent once: never retried, never paced through a pause.
    expect(proxy.received).toBeLessThanOrEqual(16);
    expect(sandbox.plantCount).toBe(5_000);
  }, 30_000);
});
