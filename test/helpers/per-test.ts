// What a test owns when the tests of its file run at once (describe.concurrent): its own config
// folder and its own servers, set up in the test and undone when it finishes, in place of a
// module-level `let` that a beforeEach reassigns under the feet of the test still running. Hooks
// come from the test's context: vitest does not know which of several running tests a global
// onTestFinished belongs to.
import type { TestContext } from 'vitest';
import { tempConfigDir } from './cli.js';

type Context = Pick<TestContext, 'onTestFinished'>;

/** A fresh config folder for this test alone, removed when it finishes. */
export function ownConfigDir({ onTestFinished }: Context): string {
  const config = tempConfigDir();
  onTestFinished(() => config.cleanup());
  return config.dir;
}

/** `resource`, closed when this test finishes, passed or failed. */
export function closedAfter<T extends { close(): Promise<unknown> }>({ onTestFinished }: Context, resource: T): T {
  onTestFinished(async () => {
    await resource.close();
  });
  return resource;
}
