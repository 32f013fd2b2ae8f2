// Waiting on a slow reader many times (journal failed --json, a dry run of a million ids into a
// pager) must leave no listener behind each wait: Node warned of a leak after ten.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type OutputStream, orderedStreams } from '../../../src/ui/streams.js';

class SlowStream extends EventEmitter implements OutputStream {
  constructor(readonly writableNeedDrain: boolean) {
    super();
  }
  write(): boolean {
    return false;
  }
}

describe('backlog()', () => {
  it('removes its listeners once the reader drains', async () => {
    const out = new SlowStream(true);
    const streams = orderedStreams(out, new SlowStream(false));
    for (let i = 0; i < 20; i++) {
      const waiting = streams.backlog();
      out.emit('drain');
      await waiting;
    }
    expect(out.listenerCount('close')).toBe(0);
    expect(out.listenerCount('drain')).toBe(0);
  });
});
