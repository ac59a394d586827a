/** The evidence table's message validator (host side): exactly the typed messages pass, nothing else does. */
import assert from 'node:assert/strict';
import { MAX_ROWS, parseSort, parseTableMessage } from '../../../src/search/table/protocol';

const ok = (raw: unknown): unknown => {
  const r = parseTableMessage(raw);
  assert.ok('message' in r, `refused ${JSON.stringify(raw)}: ${'problem' in r ? r.problem : ''}`);
  return r.message;
};
const refused = (raw: unknown): string => {
  const r = parseTableMessage(raw);
  assert.ok('problem' in r, `accepted ${JSON.stringify(raw)}`);
  return r.problem;
};

describe('search/table messages', () => {
  it('accepts every well-formed message as it is', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'loadMore' },
      { type: 'searchPapers' },
      { type: 'shown', generation: 3, rows: 1000, ms: 12 },
      { type: 'sorted', sort: { column: 'year', descending: true }, shown: 12, ms: 3 },
      { type: 'sorted', sort: null, shown: 0, ms: 0 },
      { type: 'columns', hidden: ['takeaway', 'rank'] },
      { type: 'columns', hidden: [] },
      { type: 'insertCitation', generation: 1, ids: [0, 5, 999] },
      { type: 'copyBibtex', generation: 1, ids: [2] },
      { type: 'askAgent', generation: 1, ids: [7, 3] },
      { type: 'export', generation: 2, ids: [1], format: 'ris' },
      { type: 'export', generation: 2, ids: [1], format: 'csl-json' },
      { type: 'openPaper', generation: 0, id: 0 },
    ])
      assert.deepEqual(ok(m), m);
    const all = Array.from({ length: MAX_ROWS }, (_, i) => i);
    assert.deepEqual(ok({ type: 'export', generation: 1, ids: all, format: 'bibtex' }), {
      type: 'export',
      generation: 1,
      ids: all,
      format: 'bibtex',
    });
  });

  it('refuses what is not exactly a message: unknown types, extra fields, wrong types and ranges', () => {
    for (const raw of [
      null,
      'ready',
      [],
      { type: 'nope' },
      { type: 'ready', extra: 1 },
      { type: 'insertCitation', generation: 1, ids: [] },
      { type: 'insertCitation', generation: 1, ids: [1, 1] },
      { type: 'insertCitation', generation: 1, ids: [MAX_ROWS] },
      { type: 'insertCitation', generation: 1, ids: [-1] },
      { type: 'insertCitation', generation: 1, ids: [1.5] },
      { type: 'insertCitation', generation: 1, ids: ['1'] },
      { type: 'insertCitation', generation: -1, ids: [1] },
      { type: 'insertCitation', generation: 1, ids: [1], url: 'https://evil.example/' },
      { type: 'copyBibtex', generation: 1, ids: Array.from({ length: MAX_ROWS + 1 }, (_, i) => i) },
      { type: 'export', generation: 1, ids: [1] },
      { type: 'export', generation: 1, ids: [1], format: 'endnote' },
      { type: 'openPaper', generation: 1, id: 1000 },
      { type: 'openPaper', generation: 1, id: 1, url: 'javascript:alert(1)' },
      { type: 'columns', hidden: ['title'] },
      { type: 'columns', hidden: ['year', 'year'] },
      { type: 'columns', hidden: ['nope'] },
      { type: 'sorted', sort: { column: 'nope', descending: true }, shown: 1, ms: 1 },
      { type: 'sorted', sort: null, shown: 1 },
      { type: 'shown', generation: 1, rows: 1, ms: -1 },
      { type: 'sorted', sort: { column: 'year' }, shown: 1, ms: 1 },
      { type: 'sorted', sort: null, shown: 1001, ms: 1 },
      { type: 'shown', generation: 1, rows: 1001, ms: 1 },
      { type: 'shown', generation: 1.5, rows: 1, ms: 1 },
    ])
      refused(raw);
    assert.match(refused({ type: 'x'.repeat(100) }), /^unknown type "x{40}"$/u);
  });

  it('a sort is a known column and a direction, or null', () => {
    assert.deepEqual(parseSort({ column: 'title', descending: false }), { column: 'title', descending: false });
    assert.equal(parseSort(null), null);
    assert.equal(parseSort({ column: 'title', descending: 'yes' }), undefined);
    assert.equal(parseSort({ column: 'title', descending: true, extra: 1 }), undefined);
    assert.equal(parseSort('title'), undefined);
  });
});
