// What undici takes from node:assert: assert(value, message?), its checks of its own state, which
// hold in every run (one that failed would be a bug of undici's). node:assert costs about 0.6 ms of
// every start-up. The build hands undici this function in its place (scripts/bundle-plugins.ts):
// a check that holds costs a test of `value`; one that fails throws node:assert's own error
// (AssertionError, code ERR_ASSERTION), loading node:assert then. Without a message, Node words
// that error from the source line that called it, which is this file's rather than undici's: in
// a minified bundle neither says more. CommonJS, as undici takes the module itself for the
// function (`const assert = require('node:assert')`). test/unit/platform/lazy-builtins.test.ts checks it.

function assert(value: unknown, message?: string | Error): asserts value {
  if (value) return;
  const ok: (value: unknown, message?: string | Error) => void = process.getBuiltinModule('node:assert').ok;
  ok(value, message);
}

module.exports = assert;
