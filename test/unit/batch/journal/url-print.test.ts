// A journal header keeps no secret of its base URL: the URL masked, beside a print of the whole
// that only the same URL matches (issue 40, item 9).
import { describe, expect, it } from 'vitest';
import { headerLine, parseHeader } from '../../../../src/batch/journal/format.js';
import { baseUrlFields, matchesUrlPrint, parseUrlPrint } from '../../../../src/batch/journal/url-print.js';

const CLEAR = 'https://api.example.com/botSecret-Token-1234567';
const MASKED = 'https://api.example.com/bot***';

describe('the base URL a header stores', () => {
  it('a URL with nothing masked is stored as it is, with no print (as before)', () => {
    expect(baseUrlFields({ baseUrl: 'https://api.example.com/v1' })).toEqual({ baseUrl: 'https://api.example.com/v1' });
    expect(baseUrlFields({ baseUrl: 'https://api.example.com/v1', maskedBaseUrl: 'https://api.example.com/v1' })).toEqual({
      baseUrl: 'https://api.example.com/v1',
    });
  });

  it('a masked URL is stored masked, and its print matches the clear URL only', () => {
    const fields = baseUrlFields({ baseUrl: CLEAR, maskedBaseUrl: MASKED });
    expect(fields.baseUrl).toBe(MASKED);
    const print = fields.baseUrlPrint;
    expect(print).toBeDefined();
    if (print === undefined) return;
    expect(JSON.stringify(print)).not.toContain('Secret-Token');
    expect(matchesUrlPrint(print, CLEAR)).toBe(true);
    expect(matchesUrlPrint(print, 'https://api.example.com/botOther-Token-7654321')).toBe(false);
  });

  it('the header line holds the masked URL and the print, and reads back', () => {
    const line = headerLine({ baseUrl: CLEAR, maskedBaseUrl: MASKED, profile: 'default' }, new Date(0));
    expect(line).not.toContain('Secret-Token');
    const header = parseHeader(line);
    expect(header).toMatchObject({ baseUrl: MASKED, baseUrlPrint: { kdf: 'scrypt-16384-8-1' } });
  });

  it.each([
    ['not an object', 'x', 'its baseUrlPrint field is not an object'],
    ['another function', { kdf: 'md5', salt: 'AAAA', hash: 'AAAA' }, 'its base URL was recorded with "md5"'],
    [
      'a short salt',
      { kdf: 'scrypt-16384-8-1', salt: 'AAAA', hash: Buffer.alloc(32).toString('base64') },
      'not in the form plantstore writes',
    ],
  ])('a print that is %s is refused, and so is the header', (_name, value, words) => {
    const parsed = parseUrlPrint(value);
    expect(parsed).toMatchObject({ notPrint: expect.stringContaining(words) });
    const line = JSON.stringify({
      plantstore: 'delete-journal',
      version: 2,
      baseUrl: MASKED,
      profile: 'p',
      started: 'x',
      baseUrlPrint: value,
    });
    expect(parseHeader(line)).toMatchObject({ notHeader: expect.stringContaining(words) });
  });
});
