// A journal whose ids carry values (an operation's `value`: a rename's names): each id line carries
// its value's print after the id (value-print.ts), both readers of a line read it alike, and the
// lines of a journal without values are what they were, byte for byte.
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommonLine, parseHeader, parseResultLine, Recorded, sentLine } from '../../../../src/batch/journal/format.js';
import { readJournalForPlan } from '../../../../src/batch/journal/open.js';
import { recordLine } from '../../../../src/batch/journal/records.js';
import { halvesOf, printText, printValue } from '../../../../src/batch/journal/value-print.js';
import { DONE, FAILED, HEADER, journalFolder, RUN } from './fixtures.js';

const SALT = '0011223344556677';
const print = (value: string): string => printText(printValue(value, halvesOf(SALT)));
const common = (line: string, valued: boolean) => {
  const bytes = Buffer.from(`xx${line}yy`);
  return parseCommonLine(bytes, 2, bytes.length - 2, '3', valued);
};

describe('the print of a value', () => {
  it('is fixed for a value and a salt: a journal written by one plantstore is read alike by the next', () => {
    // Changed, every resume of a journal of values would send every id again.
    expect(print('Fern')).toBe('d560c97ab2efc874');
    expect(print('')).toBe('70173c6952e231ac');
    // Another journal's salt gives another print of the same value.
    expect(printText(printValue('Fern', halvesOf('0011223344556678')))).not.toBe(print('Fern'));
  });

  it('tells values apart (property: two different values, two prints)', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => a === b || print(a) !== print(b)));
  });
});

describe('the lines of a journal of values', () => {
  it('carry the print after the id; without a print (ids alone, and format 2) the lines are as before', () => {
    expect(sentLine('42', print('Fern'))).toBe(`{"id":42,"valuePrint":"${print('Fern')}","sent":true}`);
    expect(recordLine('42', DONE, '3', print('Fern'))).toBe(`{"id":42,"valuePrint":"${print('Fern')}","state":"done","status":204}`);
    expect(recordLine('42', FAILED, '3', 'd560c97ab2efc874')).toBe(
      '{"id":42,"valuePrint":"d560c97ab2efc874","state":"failed","status":503,"error":null,"message":"Service Unavailable","exit":6}',
    );
    expect(sentLine('42')).toBe('{"id":42,"sent":true}');
    expect(recordLine('42', DONE, '3')).toBe('{"id":42,"state":"done","status":204}');
    expect(recordLine('42', DONE, '2')).toBe('{"id":42,"deleted":true,"status":204}');
  });

  it.each([
    [sentLine('42', 'd560c97ab2efc874'), { id: 42n, kind: Recorded.sent, hi: 0xd560c97a, lo: 0xb2efc874 }],
    [recordLine('-7', DONE, '3', '00000000ffffffff'), { id: -7n, kind: Recorded.done, hi: 0, lo: 0xffffffff }],
  ])('%s: both readers read it, print and all', (line, read) => {
    expect(common(line, true)).toEqual(read);
    const { hi, lo, ...rest } = read;
    expect(parseResultLine(line, '3', true)).toEqual({ ...rest, print: { hi, lo } });
  });

  it('a line written by hand, with spaces, reads the same; a failure keeps its fields', () => {
    expect(parseResultLine(' { "id" : 42 , "valuePrint" : "d560c97ab2efc874" , "sent" : true } ', '3', true)).toEqual({
      id: 42n,
      kind: Recorded.sent,
      print: { hi: 0xd560c97a, lo: 0xb2efc874 },
    });
    expect(parseResultLine(recordLine('42', FAILED, '3', 'd560c97ab2efc874'), '3', true)).toMatchObject({
      id: 42n,
      kind: Recorded.failed,
      fields: { exit: 6 },
      print: { hi: 0xd560c97a, lo: 0xb2efc874 },
    });
  });

  it.each([
    // No print, a print cut short, in capitals, or after another field: not a line of such a journal.
    sentLine('42'),
    recordLine('42', DONE, '3'),
    '{"id":42,"valuePrint":"d560c97ab2efc87","sent":true}',
    '{"id":42,"valuePrint":"D560C97AB2EFC874","sent":true}',
    '{"id":42,"sent":true,"valuePrint":"d560c97ab2efc874"}',
  ])('%s is not a line of a journal of values', (line) => {
    expect(common(line, true)).toBeUndefined();
    expect(parseResultLine(line, '3', true)).toBeUndefined();
  });

  it('a line with a print is not a line of a journal without values', () => {
    expect(common(sentLine('42', 'd560c97ab2efc874'), false)).toBeUndefined();
    expect(parseResultLine(sentLine('42', 'd560c97ab2efc874'), '3')).toBeUndefined();
  });
});

describe('the header', () => {
  it.each([
    [{ name: 'name' }, /without their name and salt/],
    [{ name: 'name', salt: 'xyz' }, /without their name and salt/],
    [true, /without their name and salt/],
  ])('values %j: not a journal header', (values, why) => {
    const header = HEADER.replace('"operation":"delete"', `"operation":"rename","values":${JSON.stringify(values)}`);
    expect(parseHeader(header)).toEqual({ notHeader: expect.stringMatching(why) });
  });
});

describe('a journal of values, resumed', () => {
  const paths = journalFolder();

  it('an id is done only with the value it was done with; in flight only for the value it was sent with', async () => {
    const header = HEADER.replace('"operation":"delete"', `"operation":"rename","values":{"name":"name","salt":"${SALT}"}`);
    const lines = [
      header,
      sentLine('1', print('Fern')),
      recordLine('1', DONE, '3', print('Fern')),
      sentLine('2', print('Moss')),
      // 2 sent again with another value: the Moss request before it is another's, not this one's in flight.
      sentLine('2', print('Ivy')),
      recordLine('2', FAILED, '3', print('Ivy')),
      sentLine('3', print('Oak')),
    ];
    writeFileSync(paths.file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const state = await readJournalForPlan(paths.file, { ...RUN, operation: 'rename', values: { name: 'name' } });
    expect(state.isDone('1', 'Fern')).toBe(true);
    expect(state.isDone('1', 'Rose')).toBe(false);
    expect(state.wasInFlight('2', 'Ivy')).toBe(false);
    expect(state.wasInFlight('3', 'Oak')).toBe(true);
    expect(state.wasInFlight('3', 'Elm')).toBe(false);
    expect(state.earlierExit('2')).toBe(6);
    expect(state.earlierExit('3')).toBeUndefined();
    expect(state.counts()).toMatchObject({ done: 1, failed: 1, sent: 1 });
  });
});
