/**
 * The resumable parse (BibParser) and the scans under it: a parse run in slices of any size gives exactly
 * parseBibFile's result, and the key and field scans read exactly what the regular expressions they replaced read, on
 * random hostile texts.
 */
import * as assert from 'node:assert/strict';
import { pieceEnds } from '../../../src/bib/bibBytes';
import { entryFields } from '../../../src/bib/bibEntry';
import { BibParser, parseBibFile, type BibFile } from '../../../src/bib/bibFile';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { sliceText } from '../../../src/bib/textPieces';
import { canAppendTo, joinParse } from '../../../src/citations/incrementalParse';
import { readFields, readKey, type FieldList } from '../../../src/bib/bibScan';
import { mulberry32 } from '../../emulator/corpus';
import { readFieldsReference, readKeyReference } from './bibScanReference';
import { GOOD } from './bibSample';
import { plainEntries, plainFile } from './plainParse';

const PIECES = [
  '@article{',
  '@misc(',
  '@string{j = {J}}',
  '@comment{',
  '@preamble{"p"}',
  'key2020',
  'Key-x:y.z+1',
  ',',
  ' ',
  '\n',
  '\r\n',
  '\t',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u3000',
  'title',
  'Author',
  '_x',
  '=',
  ' = ',
  '{',
  '}',
  '"',
  '#',
  '(',
  ')',
  'a',
  '2019',
  '{\\"u}',
  'j',
  '%',
  "'",
  '~',
  '\\',
  '@',
  '}\n\n',
  ' and ',
];

/** The raw value of each field readFields listed (a name given twice keeps its last value), as the reference reads them. */
function fieldRecord(text: string, fields: FieldList): Record<string, string> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 3) {
    const v = fields[i + 1]!;
    raw[fields[i] as string] = typeof v === 'string' ? v : text.slice(v, fields[i + 2] as number);
  }
  return raw;
}

function randomText(rnd: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(rnd() * PIECES.length)]!;
  return s;
}

describe('bib/BibParser (a parse in slices) and the scans under it', () => {
  it('a parse run in slices equals parseBibFile, whatever the slices', () => {
    const rnd = mulberry32(99);
    const texts = [GOOD, GOOD.repeat(40), ''];
    for (let i = 0; i < 600; i++) texts.push(randomText(rnd, 5 + Math.floor(rnd() * 200)));
    for (let i = 0; i < 20; i++) texts.push(`${GOOD}\n${randomText(rnd, 50)}\n${GOOD.repeat(10)}`);
    for (const text of texts) {
      const expected = parseBibFile(text);
      // The clock says time is up after `k` checks: slices of every size from one check on.
      const k = 1 + Math.floor(rnd() * 4);
      let ticks = 0;
      const parser = new BibParser(text);
      // Some slices also end once a number of entries is read (a list waiting for the first ones).
      for (let guard = 0; guard < 1e6; guard++) {
        const want = rnd() < 0.3 ? parser.entries.length + 1 + Math.floor(rnd() * 3) : undefined;
        const done = parser.run(0, () => (++ticks % k === 0 ? 1 : -1), want);
        if (want !== undefined && !done) assert.ok(parser.entries.length <= want, 'no more entries than wanted');
        if (done) break;
      }
      assert.equal(parser.done, true);
      assert.deepEqual(plainFile(parser.result()), plainFile(expected), JSON.stringify(text.slice(0, 200)));
      assert.equal(parser.result(), parser.result(), 'the result is kept');
    }
  });

  it('a text cut into pieces before each `@` that starts a line and joined piece by piece parses as the whole text', async () => {
    // What reading a large .bib in pieces relies on (bibliographyCache.readPieces): wherever every join is allowed,
    // the joined parse is the whole parse, and reading an entry or directive from the pieces reads what the whole
    // text holds there; where one is not, the whole text is parsed instead.
    await loadBibtexLibrary();
    const rnd = mulberry32(11);
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let joinedPieces = 0;
    let refused = 0;
    for (let i = 0; i < 400; i++) {
      // Good entries with random text between them now and then (which may leave something open across a cut).
      const parts = Array.from({ length: 2 + Math.floor(rnd() * 8) }, () =>
        rnd() < 0.15 ? `${randomText(rnd, 5 + Math.floor(rnd() * 60))}\n` : GOOD,
      );
      let text = parts.join('');
      if (rnd() < 0.3) text = text.replace(/\r?\n/gu, '\r\n');
      const bytes = encoder.encode(text);
      const ends = pieceEnds(bytes, 0, 1 + Math.floor(rnd() * 200));
      let from = 0;
      let file: BibFile | undefined;
      let whole = '';
      for (const end of ends) {
        const piece = decoder.decode(bytes.subarray(from, (from = end)));
        assert.match(piece, from === bytes.length && ends.length === 1 ? /^/u : /^@|\n$/u);
        whole += piece;
        const part = parseBibFile(piece);
        file = !file ? part : canAppendTo(file) ? joinParse(file, part, whole) : undefined;
        if (!file) break;
      }
      assert.equal(from === bytes.length || !file, true);
      if (!file) {
        refused++;
        continue;
      }
      assert.equal(file.text, text);
      const expected = parseBibFile(text);
      assert.deepEqual(plainFile(file), plainFile(expected), JSON.stringify(text.slice(0, 200)));
      for (const e of file.entries) assert.equal(sliceText(file, e.start, e.end), text.slice(e.start, e.end));
      // Hover's decoding (with the @strings an entry uses) reads from the pieces: the last entries, in later pieces.
      for (const e of file.entries.slice(-2)) assert.deepEqual(entryFields(file, e), entryFields(expected, e), e.key);
      for (const d of file.directives) assert.equal(sliceText(file, d.start, d.end), text.slice(d.start, d.end));
      if (ends.length > 2) joinedPieces++;
    }
    // Both outcomes happen: enough joins of three pieces or more for the comparison to mean something.
    assert.ok(joinedPieces > 50, `only ${joinedPieces} texts joined from three pieces or more`);
    assert.ok(refused > 10, `only ${refused} texts refused a join`);
  });

  it("a head of the text (cut after a line break) reads the whole text's entries up to its first problem", () => {
    // What a large file's first list relies on (bibliographyCache.headEntries): entries before the head's first
    // problem are the whole parse's, field for field.
    const rnd = mulberry32(7);
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const text =
        rnd() < 0.5
          ? `${GOOD.repeat(1 + Math.floor(rnd() * 3))}${randomText(rnd, 80)}${GOOD}`
          : randomText(rnd, 20 + Math.floor(rnd() * 300));
      const whole = parseBibFile(text).entries;
      const breaks = [...text.matchAll(/\n/g)].map((m) => m.index + 1);
      for (const cut of breaks.filter(() => rnd() < 0.3)) {
        const parser = new BibParser(text.slice(0, cut));
        parser.run();
        const problem = parser.firstProblem ?? Infinity;
        const trusted = parser.entries.filter((e) => e.end <= problem);
        assert.deepEqual(
          plainEntries(trusted),
          plainEntries(whole.slice(0, trusted.length)),
          JSON.stringify(text.slice(0, cut)),
        );
        compared += trusted.length;
      }
    }
    assert.ok(compared > 1000, `only ${compared} entries compared`);
    const clean = new BibParser(GOOD);
    clean.run();
    assert.equal(clean.firstProblem, undefined);
    const cut = new BibParser(`${GOOD}@article{open,\n  title = {Cut here`);
    cut.run();
    assert.equal(cut.firstProblem, GOOD.length);
  });

  it('readKey and readFields read what the regular expressions read', () => {
    const rnd = mulberry32(5);
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(rnd, 1 + Math.floor(rnd() * 30));
      const from = Math.floor(rnd() * (text.length + 1));
      assert.deepEqual(readKey(text, from), readKeyReference(text, from), JSON.stringify([text, from]));
      // Where the fields end: anywhere, or before a character the scans must not read past (`#`, `=`, `,`).
      const end = i % 4 ? from + Math.floor(rnd() * (text.length - from + 1)) : Math.max(from, text.search(/[#=,]/u));
      const a: FieldList = [];
      const b: Record<string, string> = {};
      const sa = new Map<string, [number, number]>();
      const sb = new Map<string, [number, number]>();
      assert.deepEqual(
        [readFields(text, from, end, a, sa), fieldRecord(text, a), sa],
        [readFieldsReference(text, from, end, b, sb), b, sb],
        JSON.stringify([text, from, end]),
      );
    }
  });
});
