// The words any command may use for what went wrong on the way to the service. Most kinds are
// checked through the delete command's sentences (test/unit/commands/delete/outcomes.test.ts).
import { describe, expect, it } from 'vitest';
import { describeTransportFailure } from '../../../src/ui/transport-words.js';

describe('describeTransportFailure', () => {
  it.each([
    [64 * 1024, 'the 200 answer from api.example.com was larger than the 64 KiB this request reads'],
    [1000, 'the 200 answer from api.example.com was larger than the 1000 bytes this request reads'],
  ])('a 2xx body past the request limit of %i bytes', (limitBytes, sentence) => {
    expect(describeTransportFailure({ kind: 'too-large', host: 'api.example.com', status: 200, limitBytes })).toBe(sentence);
  });
});
