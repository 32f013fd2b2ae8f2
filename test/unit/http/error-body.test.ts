import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities, type ErrorDetails, parseErrorBody, serverLine, statusText } from '../../../src/http/error-body.js';
import { createMask } from '../../../src/text/secret-mask.js';

const JSON_TYPE = 'application/json';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('parseErrorBody', () => {
  it.each<[string, number, string | undefined, string, ErrorDetails]>([
    ['spec Error object', 400, JSON_TYPE, '{"error":13,"message":"plant 13 is protected"}', { code: 13, message: 'plant 13 is protected' }],
    ['Error object with charset', 400, 'application/json; charset=utf-8', '{"error":-2,"message":"no"}', { code: -2, message: 'no' }],
    ['Error object at int32 edges', 400, JSON_TYPE, '{"error":2147483647,"message":"max"}', { code: 2147483647, message: 'max' }],
    [
      'Error object with negative int32 edge',
      400,
      JSON_TYPE,
      '{"error":-2147483648,"message":"min"}',
      { code: -2147483648, message: 'min' },
    ],
    [
      'Error object without a content type',
      400,
      undefined,
      '{"error":1,"message":"plant 1 does not exist"}',
      { code: 1, message: 'plant 1 does not exist' },
    ],
    ['Error object with an empty message', 400, JSON_TYPE, '{"error":3,"message":"   "}', { code: 3, message: 'Bad Request' }],
    ['non-int32 error 1.5', 400, JSON_TYPE, '{"error":1.5,"message":"odd code"}', { code: null, message: 'odd code' }],
    ['non-int32 error 2**31', 400, JSON_TYPE, `{"error":${2 ** 31},"message":"too big"}`, { code: null, message: 'too big' }],
    ['string error "13"', 400, JSON_TYPE, '{"error":"13","message":"stringly"}', { code: null, message: 'stringly' }],
    ['string error alone', 400, JSON_TYPE, '{"error":"invalid_token"}', { code: null, message: 'invalid_token' }],
    [
      'problem+json title and detail',
      404,
      'application/problem+json',
      '{"type":"about:blank","title":"Not Found","detail":"no plant 5","status":404}',
      { code: null, message: 'Not Found: no plant 5' },
    ],
    ['problem+json title only', 422, 'application/problem+json', '{"title":"Unprocessable"}', { code: null, message: 'Unprocessable' }],
    [
      'HTML with a title',
      502,
      'text/html',
      '<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>',
      { code: null, message: '502 Bad Gateway' },
    ],
    [
      'HTML with a spread-out title',
      503,
      'text/html',
      '<TITLE lang="en">\n  Service\n  Unavailable\n</TITLE>',
      { code: null, message: 'Service Unavailable' },
    ],
    ['HTML without a title', 502, 'text/html', '<html><body><h1>oops</h1></body></html>', { code: null, message: 'Bad Gateway' }],
    ['empty body, no content type', 500, undefined, '', { code: null, message: 'Internal Server Error' }],
    ['empty body declared JSON', 503, JSON_TYPE, '', { code: null, message: 'Service Unavailable' }],
    ['truncated JSON', 400, JSON_TYPE, '{"error":1,"mess', { code: null, message: 'Bad Request' }],
    ['JSON array', 400, JSON_TYPE, '[1,2,3]', { code: null, message: 'Bad Request' }],
    ['JSON with nothing useful', 409, JSON_TYPE, '{"ok":false}', { code: null, message: 'Conflict' }],
    [
      'text/plain first non-empty line',
      400,
      'text/plain; charset=utf-8',
      '\n\r\n  Service down  \r\nsecond line',
      { code: null, message: 'Service down' },
    ],
    ['unknown status with empty body', 599, undefined, '', { code: null, message: 'HTTP status 599' }],
  ])('%s', (_name, status, contentType, body, expected) => {
    expect(parseErrorBody(status, contentType, body)).toEqual(expected);
  });

  it.each([
    ['ANSI escapes in an Error message', JSON_TYPE, '{"error":2,"message":"\\u001b[31mred\\u001b[0m\\nnext\\u009b2J"}'],
    ['control characters in plain text', 'text/plain', 'bell\u0007 and\u0008 back\u0000space\u001b]0;title\u0007'],
    ['line separators in a problem detail', 'application/problem+json', '{"title":"a\\u2028b","detail":"c\\u2029d\\te"}'],
  ])('strips control characters: %s', (_name, contentType, body) => {
    const { message } = parseErrorBody(400, contentType, body);
    expect(message).not.toMatch(CONTROL);
    expect(message).not.toMatch(/\s{2,}/);
    expect(message).toBe(message.trim());
    expect(message.length).toBeGreaterThan(3);
  });

  it('keeps the words around stripped escapes', () => {
    const { code, message } = parseErrorBody(400, JSON_TYPE, '{"error":2,"message":"\\u001b[31mred\\u001b[0m\\nnext"}');
    expect(code).toBe(2);
    expect(message).toContain('red');
    expect(message).toContain('next');
    expect(message).not.toContain('\u001b');
  });

  it('caps a long message at 300 characters plus an ellipsis', () => {
    const long = 'x'.repeat(5000);
    const { code, message } = parseErrorBody(400, JSON_TYPE, JSON.stringify({ error: 7, message: long }));
    expect(code).toBe(7);
    expect(message).toBe(`${'x'.repeat(300)}…`);
  });

  it('never splits a character in half when capping', () => {
    // 299 ASCII characters then an emoji: a cut at 300 UTF-16 units would leave a lone surrogate.
    const { message } = parseErrorBody(400, JSON_TYPE, JSON.stringify({ error: 7, message: `${'a'.repeat(299)}😀 and more` }));
    expect(message).toMatch(/…$/);
    expect(message).not.toMatch(LONE_SURROGATE);
  });

  it('caps a long HTML title too', () => {
    const { message } = parseErrorBody(500, 'text/html', `<title>${'t '.repeat(1000)}</title>`);
    expect(message.length).toBe(301);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('serverLine', () => {
  it.each([
    ['a\nb', 'a b'],
    ['  a \r\n\t b  ', 'a b'],
    ['\u001b[1mbold\u001b[0m', '[1mbold [0m'],
    ['x\u2028y', 'x y'],
    ['C1 CSI \u009b2J here', 'C1 CSI 2J here'],
    ['right-to-left \u202eevil\u202c and \u2066isolate\u2069 \u200fmark', 'right-to-left evil and isolate mark'],
    ['', ''],
  ])('%j -> %j', (input, output) => {
    expect(serverLine(input)).toBe(output);
  });

  const TOKEN = 'Sekr3t-Token_0123456789';
  const mask = createMask([TOKEN]);

  it.each([
    ['at the end of a long message', `${'x'.repeat(290)} ${TOKEN}`],
    ['at the end of a 600-character message', `${'y'.repeat(600 - TOKEN.length)}${TOKEN}`],
    ['split by a control character that cleaning removes', `${'z'.repeat(280)} ${TOKEN.slice(0, 6)}\u202e${TOKEN.slice(6)}`],
  ])('masks the token before cutting the line to length (%s)', (_name, text) => {
    const line = serverLine(text, mask);
    expect(line.length).toBeLessThanOrEqual(301);
    // Not even a prefix of the token survives the cut.
    expect(line).not.toContain(TOKEN.slice(0, 6));
  });
});

describe('decodeHtmlEntities', () => {
  it.each([
    ['a&#x2F;b&#47;c&sol;d', 'a/b/c/d'],
    ['&lt;b&gt; &amp; &quot;q&quot; &#X41;&#65', '<b> & "q" AA'],
    ['&unknown; &#0; &#x110000;', '&unknown; &#0; &#x110000;'],
  ])('%j -> %j', (input, output) => {
    expect(decodeHtmlEntities(input)).toBe(output);
  });

  it('lets the mask find a token written with character references in a <title>', () => {
    const token = 'abc/def+ghi=';
    const html = `<html><title>denied for ${token.replace('/', '&#x2F;').replace('+', '&#43;')}</title></html>`;
    const { message } = parseErrorBody(403, 'text/html', html, createMask([token]));
    expect(message).toBe('denied for ***');
  });
});

describe('statusText', () => {
  it.each([
    [404, 'Not Found'],
    [418, "I'm a Teapot"],
    [599, 'HTTP status 599'],
  ])('%i -> %j', (status, text) => {
    expect(statusText(status)).toBe(text);
  });
});
