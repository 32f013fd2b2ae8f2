// The rule for a 2xx: proof only when its body, fully decoded, is empty, JSON, or a one-line
// plain-text acknowledgement. No list of page shapes: each shape below got past 2.0's list, and
// each is refused here by the rule, not by a line written for it.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ACKNOWLEDGEMENT_BYTES, judgeSuccess, mediaTypeOf, type SuccessBody } from '../../../src/http/api-answer.js';
import { ERROR_BODY_BYTES } from '../../../src/http/outcome.js';

const PAGE = '<!DOCTYPE html><html><head><title>Plant Shop</title></head><body>Welcome</body></html>';

function judge(
  headers: { type?: string; encoding?: string; length?: string },
  body: Buffer | string,
  ended: SuccessBody['ended'] = 'whole',
) {
  const raw = typeof body === 'string' ? Buffer.from(body) : body;
  return judgeSuccess(
    { contentType: headers.type, contentEncoding: headers.encoding, contentLength: headers.length, raw, ended, limit: ERROR_BODY_BYTES },
    (text) => text.replaceAll('secret-token', '***'),
  );
}

describe('a 2xx that is not proof: the fourteen shapes that passed as "Deleted", and their kin', () => {
  const page = (title: string) => ({ apiLike: false, page: true, title });
  it.each<[string, { type?: string; encoding?: string }, Buffer | string, object]>([
    [
      'a PHP notice before the page',
      {},
      `<br />\n<b>Notice</b>:  Undefined index: id in /var/www/index.php on line 3<br />\n${PAGE}`,
      page('Plant Shop'),
    ],
    ['a <meta refresh>', {}, '<meta http-equiv="refresh" content="0; url=/login">', page('')],
    ['a <script> redirect', { type: 'text/plain' }, '<script>location.href="/login"</script>', page('')],
    ['<title> first', {}, '<title>Sign in</title><form action="/login"></form>', page('Sign in')],
    ['a frameset', {}, '<frameset cols="100%"><frame src="/app"></frameset>', page('')],
    ['UTF-16 without a byte-order mark', {}, Buffer.from(PAGE, 'utf16le'), { apiLike: false, body: { kind: 'not-text' } }],
    ['a NUL first', {}, `\u0000${PAGE}`, page('Plant Shop')],
    ['a NUL first, no markup', {}, '\u0000OK', { apiLike: false, body: { kind: 'not-text' } }],
    ['an unterminated comment', { type: 'text/plain' }, `<!-- ${PAGE}`, page('Plant Shop')],
    ['content-encoding: gzip, gzip (decoded twice)', { encoding: 'gzip, gzip' }, gzipSync(gzipSync(PAGE)), page('Plant Shop')],
    ['content-encoding: identity, gzip', { encoding: 'identity, gzip' }, gzipSync(PAGE), page('Plant Shop')],
    [
      'an SVG image',
      { type: 'image/svg+xml' },
      '<svg xmlns="http://www.w3.org/2000/svg"><text>OK</text></svg>',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'image/svg+xml', bytes: 61, more: false } },
    ],
    [
      'an S3-style XML <Error>, as application/xml',
      { type: 'application/xml' },
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code></Error>',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'application/xml', bytes: 75, more: false } },
    ],
    ['an S3-style XML <Error>, with no type', {}, '<Error><Code>AccessDenied</Code></Error>', page('')],
    [
      'text/html without a title, whatever its body',
      { type: 'Text/HTML; charset=utf-8' },
      'OK',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'text/html', bytes: 2, more: false } },
    ],
    ['text/html with a title', { type: 'text/html' }, PAGE, page('Plant Shop')],
    [
      'application/xhtml+xml',
      { type: 'application/xhtml+xml' },
      '<div>hi</div>',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'application/xhtml+xml', bytes: 13, more: false } },
    ],
    ['markup deep in plain text', { type: 'text/plain' }, `deleted ${'x'.repeat(100)} </p>`, page('')],
    ['a content coding we cannot undo', { encoding: 'zstd' }, 'OK', { apiLike: false, body: { kind: 'encoding', encoding: 'zstd' } }],
    ['gzip that does not inflate', { encoding: 'gzip' }, 'OK', { apiLike: false, body: { kind: 'encoding', encoding: 'gzip' } }],
    ['invalid UTF-8', { type: 'text/plain' }, Buffer.from([0x4f, 0xff, 0x4b]), { apiLike: false, body: { kind: 'not-text' } }],
    ['two lines of text', {}, 'OK\nsee /login', { apiLike: false, body: { kind: 'text', bytes: 13 } }],
    [
      'one line past the acknowledgement limit',
      {},
      'k'.repeat(ACKNOWLEDGEMENT_BYTES + 1),
      { apiLike: false, body: { kind: 'text', bytes: ACKNOWLEDGEMENT_BYTES + 1 } },
    ],
    [
      'declared JSON that is not JSON',
      { type: 'application/json' },
      'OK',
      { apiLike: false, body: { kind: 'not-json', mediaType: 'application/json' } },
    ],
    ['declared JSON that is a page', { type: 'application/json' }, PAGE, page('Plant Shop')],
    [
      'JSON under another media type',
      { type: 'application/octet-stream' },
      '{}',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'application/octet-stream', bytes: 2, more: false } },
    ],
    [
      'not a media type at all',
      { type: 'json' },
      '{}',
      { apiLike: false, body: { kind: 'media-type', mediaType: 'an invalid content type', bytes: 2, more: false } },
    ],
  ])('%s: not proof', async (_name, headers, body, expected) => {
    expect(await judge(headers, body)).toStrictEqual(expected);
  });

  it('70,000 spaces before the page: past the read limit, not declared JSON, it cannot be checked', async () => {
    const read = `${' '.repeat(70_000)}${PAGE}`.slice(0, ERROR_BODY_BYTES);
    expect(await judge({}, read, 'over-limit')).toStrictEqual({
      apiLike: false,
      body: { kind: 'unchecked', limitBytes: ERROR_BODY_BYTES, cut: false },
    });
  });

  it('a page title is masked', async () => {
    expect(await judge({}, '<title>secret-token</title>')).toStrictEqual({ apiLike: false, page: true, title: '***' });
  });

  it('text cut short, not declared JSON, cannot be checked; markup in what came before the cut is still a page', async () => {
    expect(await judge({}, 'OK', 'cut')).toStrictEqual({
      apiLike: false,
      body: { kind: 'unchecked', limitBytes: ERROR_BODY_BYTES, cut: true },
    });
    expect(await judge({}, '<html><title>Shop', 'cut')).toStrictEqual({ apiLike: false, page: true, title: '' });
  });

  it('a body past the limit weighs what the server announced', async () => {
    const judged = await judge({ type: 'text/csv', length: '12345' }, 'a,b\n'.repeat(10), 'over-limit');
    expect(judged).toStrictEqual({ apiLike: false, body: { kind: 'media-type', mediaType: 'text/csv', bytes: 12345, more: true } });
  });
});

describe('a 2xx that is proof', () => {
  it.each<[string, { type?: string; encoding?: string }, Buffer | string, string]>([
    ['empty', {}, '', ''],
    ['empty, declared HTML (nothing to be a page)', { type: 'text/html' }, '', ''],
    ['OK', {}, 'OK', 'OK'],
    ['OK as text/plain with a line break', { type: 'text/plain; charset=utf-8' }, 'OK\r\n', 'OK\r\n'],
    ['an acknowledgement of exactly the limit', {}, 'k'.repeat(ACKNOWLEDGEMENT_BYTES), 'k'.repeat(ACKNOWLEDGEMENT_BYTES)],
    ['a comparison is not markup', {}, 'deleted: 1 < 2', 'deleted: 1 < 2'],
    ['{}', {}, '{}', '{}'],
    ['{"deleted":true}', { type: 'application/json' }, '{"deleted":true}', '{"deleted":true}'],
    ['JSON with no type, over several lines', {}, '{\n  "deleted": true\n}\n', '{\n  "deleted": true\n}\n'],
    ['JSON whose strings hold markup', { type: 'application/json' }, '{"note":"<b>gone</b>"}', '{"note":"<b>gone</b>"}'],
    [
      'JSON whose media type has html in it',
      { type: 'application/vnd.html-report+json; charset=utf-8' },
      '{"report":"deleted"}',
      '{"report":"deleted"}',
    ],
    ['application/problem+json', { type: 'application/problem+json' }, '{"status":200}', '{"status":200}'],
    ['JSON after a UTF-8 byte-order mark', { type: 'application/json' }, '\uFEFF{"deleted":true}', '{"deleted":true}'],
    ['gzip-encoded JSON', { type: 'application/json', encoding: 'gzip' }, gzipSync('{"deleted":true}'), '{"deleted":true}'],
    ['an empty body, gzip-encoded', { encoding: 'x-gzip' }, gzipSync(''), ''],
  ])('%s', async (_name, headers, body, text) => {
    expect(await judge(headers, body)).toStrictEqual({ apiLike: true, text, whole: true });
  });

  it('declared JSON past the read limit is taken at its word, if it begins as JSON', async () => {
    const big = `{"ids":[${'1,'.repeat(40_000)}`.slice(0, ERROR_BODY_BYTES);
    expect(await judge({ type: 'application/json' }, big, 'over-limit')).toMatchObject({ apiLike: true, whole: false });
    expect(await judge({ type: 'application/json' }, `<html>${' '.repeat(100)}`, 'over-limit')).toMatchObject({
      apiLike: false,
      page: true,
    });
  });
});

describe('mediaTypeOf: parsed, never searched for a word', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'none'],
    ['  ', 'none'],
    ['text/plain', 'plain'],
    ['TEXT/PLAIN;charset=ascii', 'plain'],
    ['application/json', 'json'],
    ['application/vnd.html-report+json', 'json'],
    ['application/json-seq', 'other'],
    ['text/json', 'other'],
    ['text/html', 'html'],
    ['application/xhtml+xml ; charset=utf-8', 'html'],
    ['application/htmlish', 'other'],
    ['text/plain/html', 'other'],
    ['text', 'other'],
  ])('%s is %s', (contentType, kind) => {
    expect(mediaTypeOf(contentType).kind).toBe(kind);
  });
});
