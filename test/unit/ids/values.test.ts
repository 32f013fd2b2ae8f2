// Issue 42 item 6: ids that carry a value each (src/ids/values.ts), as pairs or id<TAB>value lines.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseIdValuePairs, readIdValuesFromStream } from '../../../src/ids/values.js';

const WORDS = { name: 'name', command: 'rename' };
const pairsOf = (read: { ids: Iterable<string>; values: ReadonlyMap<string, string> }) =>
  [...read.ids].map((id) => [id, read.values.get(id)]);

describe('ids with a value each', () => {
  it('pairs: canonical ids in order, a repeat with the same value dropped', () => {
    expect(pairsOf(parseIdValuePairs(['007', 'Fern', '-5', 'Moss', '7', 'Fern'], WORDS))).toEqual([
      ['7', 'Fern'],
      ['-5', 'Moss'],
    ]);
  });

  it('lines split anywhere across chunks, a character split across bytes, CRLF, comments and blank lines', async () => {
    const text = Buffer.from('# names\n1\tFougère\r\n\n  # more\n2\tMoss #2\n3\tIvy');
    const cut = text.indexOf(0xc3) + 1;
    const chunks = [text.subarray(0, 5), text.subarray(5, cut), text.subarray(cut)];
    expect(pairsOf(await readIdValuesFromStream(Readable.from(chunks), WORDS))).toEqual([
      ['1', 'Fougère'],
      ['2', 'Moss #2'],
      ['3', 'Ivy'],
    ]);
  });

  it.each([
    ['1\t\n', /an empty name for plant 1 on line 1 of standard input/],
    ['1\tFern\n01\tMoss\n', /plant 1 is given twice on line 2 of standard input, with two names \('Fern', then 'Moss'\)/],
    ['x\tFern\n', /invalid plant id 'x' on line 1 of standard input/],
    [`1\t${'a'.repeat(70_000)}`, /line 1 of standard input is over 65536 characters/],
  ])('refused: %j', async (text, message) => {
    await expect(readIdValuesFromStream(Readable.from([text]), WORDS)).rejects.toThrow(message);
  });
});
