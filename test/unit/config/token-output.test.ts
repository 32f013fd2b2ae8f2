// What a token command prints: the token alone, or {"token", "expiresAt"}. A reason for
// refusing the output never quotes it, since the output may be the token.
import { describe, expect, it } from 'vitest';
import { parseRfc3339, readTokenOutput } from '../../../src/config/token-output.js';

const SECRET = 'Zq7xK9mPw2Lr';
const QUOTED = /^printed the token in double quotes, as a JSON string; print it bare \(jq -r, not jq\)$/;

describe('readTokenOutput', () => {
  it.each<[string, string, { token: string; expiresAt?: number }]>([
    ['the token alone', `${SECRET}\n`, { token: SECRET }],
    ['surrounded by whitespace', `\n\t ${SECRET} \r\n\n`, { token: SECRET }],
    ['padded base64', 'abcdefgh12==', { token: 'abcdefgh12==' }],
    ['JSON without expiresAt', `{"token":"${SECRET}"}`, { token: SECRET }],
    ['JSON with a null expiresAt', `{"token":"${SECRET}","expiresAt":null}`, { token: SECRET }],
    [
      'JSON with expiresAt and other members',
      ` {"kind":"x","token":"${SECRET}","expiresAt":"2030-01-02T15:04:05Z"}\n`,
      { token: SECRET, expiresAt: Date.UTC(2030, 0, 2, 15, 4, 5) },
    ],
    ['JSON whose token has whitespace around it', `{"token":" ${SECRET}\\n"}`, { token: SECRET }],
  ])('%s', (_name, stdout, obtained) => {
    expect(readTokenOutput(stdout)).toEqual({ ok: true, obtained });
  });

  it.each<[string, string, RegExp]>([
    ['nothing', '', /^printed no token on stdout; it must print the token alone, or a JSON object/],
    ['only whitespace', ' \n\t\n', /^printed no token on stdout; it must print the token alone, or a JSON object/],
    ['two lines (a pass entry with a login line)', `${SECRET}\nlogin: ${SECRET}x`, /more than one line.*head -n 1/],
    ['a short token', 'Zq7x', /^printed a token that is shorter than 8 characters; a bearer token is longer; check what it prints/],
    ['a long token', 'Z'.repeat(4097), /^printed a token that is longer than 4096 characters; check what it prints when run by itself$/],
    ['a space inside', `${SECRET} ${SECRET}`, /^printed a token that has characters a bearer token cannot hold \(.*\); check/],
    ['a control character', `${SECRET}\u001b[2J`, /cannot hold/],
    ['non-ASCII', `${SECRET}é`, /cannot hold/],
    ['a header injection', `${SECRET}\r\nX-Evil: 1`, /more than one line/],
    ['a JSON string (jq without -r)', `"${SECRET}"\n`, QUOTED],
    ['a JSON string with escapes', `"${SECRET}\\/x"`, QUOTED],
    ['a JSON string with whitespace around it', ` "${SECRET}" \n`, QUOTED],
    ['a JSON object whose token is quoted twice', `{"token":"\\"${SECRET}\\""}`, QUOTED],
    ['a lone quote at the start', `"${SECRET}`, /cannot hold/],
    ['broken JSON', `{"token":"${SECRET}"`, /^printed text that begins with \{ but is not valid JSON; it must print the token alone/],
    ['a JSON array', `[{"token":"${SECRET}"}]`, /cannot hold/],
    ['JSON without token', `{"access_token":"${SECRET}"}`, /^printed a JSON object without a "token" string; it must print/],
    ['JSON with a numeric token', '{"token":12345678901}', /without a "token" string/],
    ['JSON with an empty token', '{"token":"  "}', /^printed an empty token; it must print/],
    ['JSON with a bad token', `{"token":"${SECRET}é"}`, /cannot hold/],
    ['a date without a time', `{"token":"${SECRET}","expiresAt":"2030-01-02"}`, /"expiresAt" that is not an RFC 3339 time/],
    ['a numeric expiresAt', `{"token":"${SECRET}","expiresAt":1893596645}`, /not an RFC 3339 time/],
    ['an expiresAt without a zone', `{"token":"${SECRET}","expiresAt":"2030-01-02T15:04:05"}`, /not an RFC 3339/],
    ['an expiresAt on 31 April', `{"token":"${SECRET}","expiresAt":"2030-04-31T15:04:05Z"}`, /not an RFC 3339/],
  ])('refuses %s without quoting it', (_name, stdout, reason) => {
    const read = readTokenOutput(stdout);
    expect(read.ok).toBe(false);
    // The reason, then what to print instead, as the token command's error says them.
    const said = read.ok ? '' : `${read.reason}; ${read.hint}`;
    expect(said).toMatch(reason);
    expect(said).not.toContain(SECRET);
    expect(said).not.toContain('Zq7x');
  });
});

describe('parseRfc3339', () => {
  it.each<[string, number]>([
    ['2030-01-02T15:04:05Z', Date.UTC(2030, 0, 2, 15, 4, 5)],
    ['2030-01-02t15:04:05z', Date.UTC(2030, 0, 2, 15, 4, 5)],
    ['2030-01-02 15:04:05Z', Date.UTC(2030, 0, 2, 15, 4, 5)],
    ['2030-01-02T15:04:05.25Z', Date.UTC(2030, 0, 2, 15, 4, 5, 250)],
    ['2030-01-02T15:04:05.123456789Z', Date.UTC(2030, 0, 2, 15, 4, 5, 123)],
    ['2030-01-02T17:04:05+02:00', Date.UTC(2030, 0, 2, 15, 4, 5)],
    ['2030-01-02T10:34:05-04:30', Date.UTC(2030, 0, 2, 15, 4, 5)],
    ['2030-01-02T00:30:00+01:00', Date.UTC(2030, 0, 1, 23, 30)],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
    ['2016-12-31T23:59:60Z', Date.UTC(2016, 11, 31, 23, 59, 59, 999)],
  ])('%s', (text, ms) => {
    expect(parseRfc3339(text)).toBe(ms);
  });

  it('takes years 0-99 as they are, not as 1900-1999 as Date.UTC does', () => {
    expect(new Date(parseRfc3339('0099-01-01T00:00:00Z') as number).getUTCFullYear()).toBe(99);
  });

  it.each([
    '',
    '2030-01-02',
    '2030-01-02T15:04Z',
    '2030-01-02T15:04:05',
    '2030-1-02T15:04:05Z',
    '2030-13-02T15:04:05Z',
    '2030-00-02T15:04:05Z',
    '2030-01-00T15:04:05Z',
    '2029-02-29T00:00:00Z',
    '2030-04-31T00:00:00Z',
    '2030-01-02T24:00:00Z',
    '2030-01-02T15:60:00Z',
    '2030-01-02T15:04:61Z',
    '2030-01-02T15:04:05+2:00',
    '2030-01-02T15:04:05+24:00',
    '2030-01-02T15:04:05.Z',
    ' 2030-01-02T15:04:05Z',
    'Wed, 02 Jan 2030 15:04:05 GMT',
    '1893596645',
  ])('refuses %j', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});
