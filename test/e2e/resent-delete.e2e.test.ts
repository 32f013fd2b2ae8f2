// A proxy that sends a DELETE again on its own (issue 40, item 11): behind nginx's default
// proxy_next_upstream, a DELETE that timed out at one upstream goes to the next, which answers
// "no such plant" for the plant the first one deleted. All the client sees is a slow "no such
// plant" at the first attempt; when many come, the run says once what likely happened and how
// to finish. The built CLI against a loopback server that answers as such a proxy would.
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { SLOW_MISSING_MS } from '../../src/commands/delete/resend-watch.js';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { answer, startHostileServer } from '../helpers/hostile-server.js';

const TOKEN = 'resent-Token-0b9d44e1f3';
const NO_SUCH_PLANT = '{"error":404,"message":"Plant not found"}';

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** Every DELETE answered "no such plant" after `delayMs`: the proxy's wait for its first upstream, then the second's answer. */
async function answeringMissingAfter(delayMs: number) {
  const server = await startHostileServer((exchange) => {
    const timer = setTimeout(() => answer(exchange, 404, { 'content-type': 'application/json' }, NO_SUCH_PLANT), delayMs);
    exchange.connection.closed.then(() => clearTimeout(timer));
  });
  onTestFinished(() => server.close());
  return server;
}

const run = (url: string) =>
  runPlantstore(['delete', '1', '2', '3', '4'], {
    env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: url },
  });

describe('"no such plant" at the first attempt, slowly, for id after id', () => {
  it('says once that a proxy may have sent the DELETE again, and that --ignore-missing finishes', async () => {
    const server = await answeringMissingAfter(SLOW_MISSING_MS + 200);
    const result = await run(server.url);

    expect(result.code).toBe(5);
    const hints = result.stderr.split('\n').filter((line) => line.includes('proxy_next_upstream'));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(
      /^✗ plant \d: error 404: Plant not found; 3 plants so far answered "no such plant" at their first attempt, slowly or after timeouts: a proxy before the service \(nginx's proxy_next_upstream, on by default\) may have sent a DELETE that timed out at one upstream again to another, which found the plant already deleted; if so, run the same command again with --ignore-missing to finish \(HTTP 404\)$/,
    );
  });

  it('at once, as an API answers a plant that is not there: nothing more is said', async () => {
    const server = await answeringMissingAfter(0);
    const result = await run(server.url);
    expect(result.code).toBe(5);
    expect(result.stderr).not.toContain('proxy_next_upstream');
  });
});
