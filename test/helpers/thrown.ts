/** Runs fn and returns what it threw, failing the test if it threw nothing. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, got a return');
}

/** Awaits the promise and returns what it rejected with, failing the test if it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a resolution');
}
