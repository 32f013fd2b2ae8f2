import dns from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isLoopbackAddress } from '../../../src/config/base-url.js';
import { loopbackOnlyLookup, NOT_LOOPBACK } from '../../../src/http/loopback-lookup.js';

/** Makes the system resolver answer `addresses` for any name. */
function resolverAnswers(addresses: Array<{ address: string; family: number }>): void {
  vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: (e: null, a: unknown) => void) =>
    callback(null, addresses)) as never);
}

function lookup(all: boolean): Promise<{ error: NodeJS.ErrnoException | null; result: unknown }> {
  return new Promise((resolve) =>
    loopbackOnlyLookup(
      'localhost',
      { all } as never,
      ((error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
        resolve({ error, result: all ? address : { address, family } })) as never,
    ),
  );
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loopbackOnlyLookup', () => {
  it('fails with NOT_LOOPBACK when localhost resolves to another machine', async () => {
    resolverAnswers([{ address: '192.0.2.2', family: 4 }]);
    const { error } = await lookup(false);
    expect(error?.code).toBe(NOT_LOOPBACK);
    expect(error?.message).toBe('localhost resolved to 192.0.2.2, not to this machine');
  });

  it('keeps only the loopback addresses of a mixed answer', async () => {
    resolverAnswers([
      { address: '192.0.2.2', family: 4 },
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(await lookup(true)).toEqual({
      error: null,
      result: [
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    expect(await lookup(false)).toEqual({ error: null, result: { address: '::1', family: 6 } });
  });
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['192.0.2.2', false],
    ['::ffff:c000:202', false],
    ['0.0.0.0', false],
    ['::', false],
  ])('%s -> %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});
