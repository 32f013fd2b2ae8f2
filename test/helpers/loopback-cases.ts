import { afterEach, beforeEach, type TestContext } from 'vitest';
import { tempConfigDir } from './cli.js';
import { closedAfter, ownConfigDir } from './per-test.js';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

/**
 * Per-test scratch for end-to-end cases against scripted loopback servers: a
 * fresh config folder, and every server started through `serve` closed after
 * the test. Call it at the top of a test file.
 */
export function loopbackCases(token: string) {
  let config: ReturnType<typeof tempConfigDir>;
  const servers: ScriptedServer[] = [];
  beforeEach(() => {
    config = tempConfigDir();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    config.cleanup();
  });
  return {
    async serve(handler: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
      const server = await startScriptedServer(handler);
      servers.push(server);
      return server;
    },
    // Retries are off so each case shows one answer; test/http/retry-and-bodies covers retrying.
    envFor: (baseUrl: string) => ({
      PLANTSTORE_CONFIG_DIR: config.dir,
      PLANTSTORE_TOKEN: token,
      PLANTSTORE_BASE_URL: baseUrl,
      PLANTSTORE_RETRIES: '0',
    }),
  };
}

/**
 * The same scratch for tests that run at once (describe.concurrent, it.concurrent): each test's
 * own config folder and servers, from its context (a beforeEach would hand one test's folder to
 * another). `const { serve, envFor } = scratch(context)` at the top of a test.
 */
export function concurrentLoopbackCases(token: string) {
  return (context: TestContext) => {
    const dir = ownConfigDir(context);
    return {
      serve: async (handler: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> =>
        closedAfter(context, await startScriptedServer(handler)),
      // As loopbackCases: retries off.
      envFor: (baseUrl: string) => ({
        PLANTSTORE_CONFIG_DIR: dir,
        PLANTSTORE_TOKEN: token,
        PLANTSTORE_BASE_URL: baseUrl,
        PLANTSTORE_RETRIES: '0',
      }),
    };
  };
}
