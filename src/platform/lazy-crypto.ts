// What the journal's modules (src/batch/journal/) take from node:crypto: salts and scrypt for
// the prints of a token and a base URL. node:crypto costs about 3 ms of a start-up to load, and
// those modules are part of every delete, with a journal or not. The build hands them this
// module in its place (scripts/bundle-plugins.ts), and node:crypto is loaded by the first call.
// test/unit/platform/lazy-crypto.test.ts holds it to what those modules use.

import type * as Crypto from 'node:crypto';

const real = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const randomBytes = ((...args: Parameters<typeof Crypto.randomBytes>) => real().randomBytes(...args)) as typeof Crypto.randomBytes;

// Promisified by credentials.ts as the module loads: a plain function with the callback last,
// as node:crypto's own scrypt is (it has no util.promisify.custom).
export const scrypt = ((...args: Parameters<typeof Crypto.scrypt>) => real().scrypt(...args)) as typeof Crypto.scrypt;

export const scryptSync = ((...args: Parameters<typeof Crypto.scryptSync>) => real().scryptSync(...args)) as typeof Crypto.scryptSync;

export const timingSafeEqual = ((...args: Parameters<typeof Crypto.timingSafeEqual>) =>
  real().timingSafeEqual(...args)) as typeof Crypto.timingSafeEqual;

export default { randomBytes, scrypt, scryptSync, timingSafeEqual };
