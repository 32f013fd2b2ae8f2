// What src/ui/ask-terminal.ts takes from node:tty: the ReadStream and WriteStream it opens on
// /dev/tty to ask a question, which most runs never do. node:tty costs about 0.8 ms of a start-up
// where stdout and stderr are not terminals (scripts, CI, the test suite). The build hands that
// file this module in its place (scripts/bundle-plugins.ts): each getter gives node:tty's own
// class, loading node:tty when first read. test/unit/platform/lazy-builtins.test.ts checks it.

import type * as Tty from 'node:tty';

const real = (): typeof Tty => process.getBuiltinModule('node:tty');

export default {
  get ReadStream(): typeof Tty.ReadStream {
    return real().ReadStream;
  },
  get WriteStream(): typeof Tty.WriteStream {
    return real().WriteStream;
  },
};
