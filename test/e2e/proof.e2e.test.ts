// Proof by the spec (issue 40, item 4): a 204 is proof; any other 2xx is proof only once the
// same DELETE, sent again, answers "no such plant", which a real deletion must produce and a
// catch-all cannot. The built CLI against loopback servers: catch-alls of every shape the issue
// met, real APIs that answer 200 and then "no such plant" in each of its forms, and a 200 cut
// short. Asserted on what the servers were sent and what the journal records.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { jsonLines } from '../helpers/batch-output.js';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { answer, type Script, startHostileServer, writeHead } from '../helpers/hostile-server.js';

const TOKEN = 'proof-Token-7d31c0e5a2';

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

async function serve(script: Script) {
  const server = await startHostileServer(script);
  onTestFinished(() => server.close());
  return server;
}

const run = (url: string, args: string[]) =>
  runPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: url } });

/** The ids a journal records as deleted. */
function journaledDeleted(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"state":"done"'))
    .map((line) => /"id":(-?\d+)/.exec(line)?.[1] ?? '?');
}

const JSON_TYPE = { 'content-type': 'application/json' };
// One line, declared UTF-16 and sent as UTF-8: decoded as the header says it is CJK, with no markup to see.
const UTF16_LABELLED_PAGE = '<html><head><title>Plant Shop</title></head><body>Welcome</body></html>';

describe('a catch-all that answers 2xx to anything, from the first request', () => {
  it.each<[string, number, Record<string, string>, string]>([
    ['200 {}', 200, JSON_TYPE, '{}'],
    ['200 {"status":"maintenance"}', 200, JSON_TYPE, '{"status":"maintenance"}'],
    ["a 200 carrying the spec's Error object", 200, JSON_TYPE, '{"error":1,"message":"oops"}'],
    ['a page labelled text/plain; charset=utf-16', 200, { 'content-type': 'text/plain; charset=utf-16' }, UTF16_LABELLED_PAGE],
    ['an empty 200', 200, {}, ''],
    ["nginx's error_page 502 =200 with a JSON body", 200, JSON_TYPE, '{"message":"upstream unavailable, try later"}'],
    ['an empty 202', 202, {}, ''],
  ])('%s: nothing deleted or journaled, exit 6 saying it came back twice and what to check', async (_name, status, headers, body) => {
    const server = await serve((exchange) => answer(exchange, status, headers, body));
    const journal = path.join(config.dir, 'run.journal');
    const result = await run(server.url, ['delete', '--journal', journal, '1', '2', '3']);

    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/Deleted/);
    expect(result.stderr).toContain(`answered ${status} twice to the same DELETE`);
    expect(result.stderr).toContain('the base URL may lead elsewhere (check it with plantstore auth status)');
    expect(journaledDeleted(journal)).toEqual([]);
    // Each id once, and once more to confirm: never retried, as a base URL that leads elsewhere
    // answers the same again. The three are sent at once: an id whose first answer comes after
    // another id's confirmation proved the base URL is not the API is not confirmed (it would
    // prove nothing more), and stays in flight, sent once with no decided answer. Which ids do
    // depends on the order the answers arrive, so each id is checked by its own count.
    const summary = /^0 deleted, .*?(\d+) failed, (?:(\d+) in flight \([^)]*\), )?0 not sent in /m.exec(result.stderr);
    expect(summary, result.stderr).not.toBeNull();
    const failed = Number(summary?.[1]);
    const inFlight = Number(summary?.[2] ?? 0);
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(failed + inFlight).toBe(3);
    const sends = ['1', '2', '3'].map((id) => server.exchanges.filter((e) => e.url === `/plants/${id}`).length);
    expect(sends.filter((count) => count === 2)).toHaveLength(failed);
    expect(sends.filter((count) => count === 1)).toHaveLength(inFlight);
    if (inFlight > 0) expect(result.stderr).toContain('the DELETE that would confirm it was not sent');
  });

  it('--json: "deleted":false and exit 6 on its line; the batch stops, the ids left not sent', async () => {
    const server = await serve((exchange) => answer(exchange, 200, JSON_TYPE, '{}'));
    const ids = Array.from({ length: 500 }, (_, i) => String(i + 1));
    const result = await run(server.url, ['--json', 'delete', '--concurrency', '4', ...ids]);

    expect(result.code).toBe(6);
    const lines = jsonLines(result.stdout).filter((line) => 'id' in line);
    expect(lines).toHaveLength(500);
    expect(lines.filter((line) => line['deleted'] !== false)).toEqual([]);
    expect(lines[0]).toMatchObject({ id: 1, deleted: false, status: 200, exit: 6 });
    const notSent = lines.filter((line) => line['attempted'] === false);
    expect(notSent.length).toBeGreaterThan(490);
    expect(notSent[0]?.['message']).toMatch(/^not sent: the base URL has not answered as the Plant Store API in this run \(plant \d+: /);
    // The ids in flight when the first came back twice, two requests each: a handful, not 500.
    expect(server.exchanges.length).toBeLessThanOrEqual(2 * 8);
  });
});

/** A real API that answers a deletion 200 with a body, and a plant that is not there as `missing` says. */
function apiAnswering200(missing: { status: number; body: string }): Script {
  const deleted = new Set<string>();
  return (exchange) => {
    if (deleted.has(exchange.url)) return answer(exchange, missing.status, JSON_TYPE, missing.body);
    deleted.add(exchange.url);
    answer(exchange, 200, JSON_TYPE, '{"id":1,"name":"fern"}');
  };
}

describe('a real API that answers 200, then "no such plant" to the same DELETE', () => {
  it.each<[string, { status: number; body: string }, string[]]>([
    ['a 404 Error object', { status: 404, body: '{"error":404,"message":"Plant not found"}' }, []],
    ['a 400 Error object, no code declared', { status: 400, body: '{"error":1,"message":"Plant not found"}' }, []],
    ['the code declared with --missing-error', { status: 400, body: '{"error":7,"message":"no such plant"}' }, ['--missing-error', '7']],
  ])('%s: deleted, confirmed, one extra request each; journaled', async (_name, missing, flags) => {
    const server = await serve(apiAnswering200(missing));
    const journal = path.join(config.dir, 'run.journal');
    const result = await run(server.url, ['delete', '--journal', journal, ...flags, '1', '2', '3']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      ['1', '2', '3']
        .map((id) => `Deleted plant ${id} (answered 200, confirmed: the DELETE sent again answered "no such plant")\n`)
        .join(''),
    );
    expect(server.exchanges).toHaveLength(6);
    expect(journaledDeleted(journal).sort()).toEqual(['1', '2', '3']);
  });

  it('--json: the first answer\'s status, and "confirmed":true', async () => {
    const server = await serve(apiAnswering200({ status: 404, body: '{"error":404,"message":"Plant not found"}' }));
    const result = await run(server.url, ['--json', 'delete', '42']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 42, deleted: true, status: 200, confirmed: true });
  });

  it('a 204 is proof: no extra request', async () => {
    const server = await serve((exchange) => answer(exchange, 204));
    const result = await run(server.url, ['--json', 'delete', '1', '2']);
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).filter((line) => 'id' in line)).toEqual([
      { id: 1, deleted: true, status: 204 },
      { id: 2, deleted: true, status: 204 },
    ]);
    expect(server.exchanges).toHaveLength(2);
  });

  it("with --missing-error 7, a 400 with another code does not confirm it: failed, the API's word, exit 1", async () => {
    const server = await serve(apiAnswering200({ status: 400, body: '{"error":1,"message":"plant is protected"}' }));
    const result = await run(server.url, ['--json', 'delete', '--missing-error', '7', '42']);
    expect(result.code).toBe(1);
    const [line] = jsonLines(result.stdout);
    expect(line).toMatchObject({ id: 42, deleted: false, status: 400, error: 1, exit: 1 });
    expect(line?.['message']).toMatch(
      /^the server answered 200, not the spec's 204, .*; the DELETE sent again to confirm it: plant is protected; .*--missing-error 1/,
    );
  });
});

describe('a 2xx cut short', () => {
  /** A JSON 200 that announces more than it sends, and is reset mid-body. */
  const cutJson200: Script = (exchange) => {
    writeHead(exchange, 200, { ...JSON_TYPE, 'content-length': 64 });
    exchange.connection.socket.write('{"id":42,"na');
    exchange.connection.socket.resetAndDestroy();
  };

  it('is no answer: retried, and the 204 that follows is the proof', async () => {
    const server = await serve((exchange) => (exchange.number === 1 ? cutJson200(exchange) : answer(exchange, 204)));
    const result = await run(server.url, ['--max-retry-wait', '0', 'delete', '42']);
    expect(result).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n' });
    expect(server.exchanges).toHaveLength(2);
  });

  it('every time: failed and uncertain, never deleted', async () => {
    const server = await serve(cutJson200);
    const result = await run(server.url, ['--json', '--max-retry-wait', '0', 'delete', '42']);
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 42, deleted: false, status: 200, uncertain: true });
    expect(server.exchanges).toHaveLength(3);
  });
});
