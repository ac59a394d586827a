import * as assert from 'node:assert/strict';
import { appendEntryEdit, ensureEntry } from '../../../src/bib/bibAppend';
import { findEntry } from '../../../src/bib/bibEntry';
import { parseBibFile } from '../../../src/bib/bibFile';
import { applyEdits } from '../../../src/bib/edit';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { GOOD } from './bibSample';

describe('bib/bibAppend', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('appends with one blank line and the file newline style', () => {
    assert.deepEqual(appendEntryEdit('', '@misc{a,\n}'), { offset: 0, length: 0, text: '@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}', '@misc{a,\n}'), { offset: 2, length: 0, text: '\n\n@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}\n', '@misc{a,\n}'), { offset: 3, length: 0, text: '\n@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}\n\n', '@misc{a,\n}'), { offset: 4, length: 0, text: '@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('a}\r\nb}\r\n', '@misc{a,\n  x = {1}\n}'), {
      offset: 8,
      length: 0,
      text: '\r\n@misc{a,\r\n  x = {1}\r\n}\r\n',
    });
  });

  it('ensureEntry reuses an entry, else appends one with a free key; the result parses', () => {
    const f = parseBibFile(GOOD);
    assert.deepEqual(ensureEntry(f, { doi: '10.1000/ABC.123', title: 'x' }), { key: 'smith2020dna', existing: true });
    const paper = {
      authors: ['Anna Smith'],
      publish_year: 2020,
      title: 'DNA and more',
      doi: '10.2/new',
      journal_name: 'J',
    };
    const r = ensureEntry(f, paper, { reservedKeys: ['smith2020dnaa'] });
    assert.equal(r.existing, false);
    assert.equal(r.key, 'smith2020dnab', 'smith2020dna is taken, smith2020dnaa reserved');
    const after = parseBibFile(applyEdits(GOOD, [r.edit!]));
    assert.deepEqual(after.diagnostics, []);
    assert.deepEqual(
      after.entries.map((e) => e.key),
      ['smith2020dna', 'jones2019book', 'smith2020dnab'],
    );
    assert.equal(findEntry(after, paper)?.key, 'smith2020dnab');
  });
});
