// What src/http/loopback-lookup.ts takes from node:dns: lookup(), used only for a base URL
// naming `localhost`. node:dns costs about 0.5 ms of a start-up that connects to an address
// (http://127.0.0.1:8080) or lets net.connect resolve the name. The build hands that file this
// module in its place (scripts/bundle-plugins.ts): the getter gives node:dns's own lookup(),
// loading node:dns when first read. test/unit/platform/lazy-builtins.test.ts checks it.

import type * as Dns from 'node:dns';

export default {
  get lookup(): typeof Dns.lookup {
    return process.getBuiltinModule('node:dns').lookup;
  },
};
