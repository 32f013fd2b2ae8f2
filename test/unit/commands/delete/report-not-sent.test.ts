// The JSON line of an id not sent: its fields after the id are serialized once for a run of such
// ids (a stop leaves up to a million), and must still be each id's own.
import { describe, expect, it } from 'vitest';
import { resultJson } from '../../../../src/commands/delete/report.js';
import { notSent } from '../../../../src/commands/delete/result.js';

describe('resultJson of ids not sent', () => {
  it('is the same object JSON.stringify would write, id by id, as the message and the exit change', () => {
    const results = [
      notSent('1', 'not sent: interrupted before its turn', 143),
      notSent('2', 'not sent: interrupted before its turn', 143),
      notSent('3', 'not sent: interrupted before its turn', 130),
      notSent('9007199254740993', 'not sent: --fail-fast stopped after plant 2 failed', 1),
      notSent('5', 'not sent: interrupted before its turn', 143),
    ];
    for (const result of results) {
      const { id, ...rest } = result;
      expect(resultJson(result)).toBe(`{"id":${id},${JSON.stringify(rest).slice(1)}`);
    }
  });

  it('masks the message with the mask it is given, each time another mask is given', () => {
    const result = notSent('1', 'not sent: the journal /tmp/secret-token-0123/j could not be written', 70);
    const hide = (text: string) => text.replaceAll('secret-token-0123', '***');
    expect(resultJson(result, hide)).toContain('/tmp/***/j');
    expect(resultJson(result, (text) => text)).toContain('/tmp/secret-token-0123/j');
    expect(resultJson(result, hide)).toContain('/tmp/***/j');
  });
});
