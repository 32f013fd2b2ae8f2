import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMask, MASK } from '../../../src/text/secret-mask.js';

const TOKEN = 'Abc/def+Ghi_jk.l~m-n=';
const mask = createMask([TOKEN]);

const percentAll = (text: string, lower = false): string =>
  Array.from(text, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .join('')
    .replace(/%[0-9a-f]{2}/gi, (m) => (lower ? m.toLowerCase() : m.toUpperCase()));

describe('createMask', () => {
  it.each([
    ['as is', TOKEN],
    ['upper case', TOKEN.toUpperCase()],
    ['lower case', TOKEN.toLowerCase()],
    ['encodeURIComponent', encodeURIComponent(TOKEN)],
    ['encodeURIComponent, lower-case hex', encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['every character percent-encoded', percentAll(TOKEN)],
    ['every character percent-encoded, lower case', percentAll(TOKEN, true)],
    ['HTML hex references', TOKEN.replace(/\//g, '&#x2F;').replace(/\+/g, '&#x2b;')],
    ['HTML decimal references without semicolons', TOKEN.replace(/\//g, '&#47').replace(/=/g, '&#061;')],
    ['HTML named references', TOKEN.replace(/\//g, '&sol;').replace(/\+/g, '&plus;').replace(/=/g, '&equals;')],
    ['\\u escapes', TOKEN.replace(/\//g, '\\u002f')],
    ['base64', Buffer.from(TOKEN).toString('base64')],
    ['base64url', Buffer.from(TOKEN).toString('base64url')],
    ['base64 of the whole header', Buffer.from(`Bearer ${TOKEN}`).toString('base64')],
    ['base64 after one byte', Buffer.from(`x${TOKEN}y`).toString('base64')],
    ['base64 after two bytes', Buffer.from(`xy${TOKEN}`).toString('base64')],
  ])('hides the token %s', (_name, form) => {
    const shown = mask(`before ${form} after`);
    expect(shown).toContain(MASK);
    expect(shown.startsWith('before ')).toBe(true);
    expect(shown.toLowerCase()).not.toContain(TOKEN.toLowerCase());
    expect(shown).not.toContain(form);
  });

  it.each([
    ['Bearer ', 'QmVhcmVy***'],
    ['', '***'],
    ['x', '***'],
    ['xy', '***'],
  ])('leaves no byte of the token in base64 after %j', (prefix, shown) => {
    expect(mask(Buffer.from(`${prefix}${TOKEN}`).toString('base64'))).toBe(shown);
  });

  it('leaves text without the token alone', () => {
    const text = 'plant 42 does not exist; token rejected; %2F &#x2F; YWJj';
    expect(mask(text)).toBe(text);
  });

  it('is the identity without secrets', () => {
    expect(createMask([])('anything Bearer x')).toBe('anything Bearer x');
  });

  it('hides a random b64token in any of its encodings, wherever it sits (property)', () => {
    const tokenChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/');
    const encodings: Array<(token: string) => string> = [
      (t) => t,
      (t) => t.toUpperCase(),
      encodeURIComponent,
      (t) => percentAll(t, true),
      (t) => Array.from(t, (c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
      (t) => Array.from(t, (c) => `&#${c.charCodeAt(0)};`).join(''),
      (t) => Buffer.from(t).toString('base64'),
      (t) => Buffer.from(`Bearer ${t}`).toString('base64url'),
    ];
    fc.assert(
      fc.property(
        fc.array(tokenChar, { minLength: 8, maxLength: 64 }).map((chars) => chars.join('')),
        fc.nat(encodings.length - 1),
        fc.string(),
        fc.string(),
        (token, which, before, after) => {
          const encode = encodings[which] as (t: string) => string;
          const shown = createMask([token])(`${before}${encode(token)}${after}`);
          expect(shown).not.toContain(encode(token));
          expect(shown.includes(token)).toBe(false);
        },
      ),
    );
  });
});

describe('a token with "/" (standard base64)', () => {
  const SLASHED = 'abc/def+ghi/jkl==';
  const mask = createMask([SLASHED]);
  it.each([
    ['JSON-escaped, as PHP writes it', 'abc\\/def+ghi\\/jkl=='],
    ['one slash escaped, one not', 'abc\\/def+ghi/jkl=='],
    ['as \\u002f', 'abc\\u002fdef+ghi\\u002Fjkl=='],
  ])('%s: masked', (_name, form) => {
    expect(mask(`token ${form} echoed`)).toBe(`token ${MASK} echoed`);
  });
});
