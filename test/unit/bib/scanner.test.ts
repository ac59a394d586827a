/** The fast paths of the .bib scan (indexOf-based line starts, lazy line index, sticky resume): same answers. */
import * as assert from 'node:assert/strict';
import { parseBibFile } from '../../../src/bib/bibFile';
import { LineIndex, newlineOf } from '../../../src/bib/edit';

describe('bib/bibFile scanner fast paths', () => {
  it('LineIndex and newlineOf count LF and CRLF breaks like a character loop', () => {
    const text = 'a\r\nbb\n\r\nccc\nd';
    const idx = new LineIndex(text);
    assert.deepEqual(
      [0, 3, 5, 6, 7, 10, 12, 13].map((o) => idx.position(o)),
      [
        { line: 0, character: 0 },
        { line: 1, character: 0 },
        { line: 1, character: 2 },
        { line: 2, character: 0 },
        { line: 2, character: 1 },
        { line: 3, character: 2 },
        { line: 4, character: 0 },
        { line: 4, character: 1 },
      ],
    );
    assert.equal(newlineOf(text), '\n', 'two LF against two CRLF: LF wins ties');
    assert.equal(newlineOf('a\r\nb\r\nc\n'), '\r\n');
    assert.equal(newlineOf('\nx'), '\n');
    assert.equal(newlineOf(''), '\n');
  });

  it('resumes after a broken entry at the next line that starts an entry (indented, CRLF), not at an @ inside a line', () => {
    const text =
      '@article{broken,\r\n  title = {never closed,\r\n  note = {mail me@home{x} @misc{no}\r\n   @misc{ok1, title = {One}}\r\n@book{ok2, title = "Two"}\r\n';
    const f = parseBibFile(text);
    assert.deepEqual(
      f.entries.map((e) => e.key),
      ['ok1', 'ok2'],
    );
    assert.equal(f.diagnostics.length, 1);
    assert.deepEqual(f.diagnostics[0]!.range.start, { line: 0, character: 0 });
    assert.equal(f.diagnostics[0]!.range.end.line, 2, 'the broken entry ends before the resumed line');
    assert.equal(f.entries[1]!.raw['title'], 'Two');
  });
});
