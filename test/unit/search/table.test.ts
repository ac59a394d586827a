/**
 * The evidence table's pure parts: rows from papers (labels, units, what is not reported, hostile text), sorting
 * (missing values last both ways, ties in the service's order, text by the display language) and filtering within the
 * loaded rows, on the emulator's corpus and on hand-made papers.
 */
import * as assert from 'node:assert/strict';
import type { Paper } from '../../../src/api/index';
import {
  cellText,
  COLUMNS,
  columnIndex,
  fold,
  tableRow,
  tableRows,
  type TableRow,
} from '../../../src/search/table/rows';
import { filterActive, filteredIds, NO_FILTER, sortedIds, type FilterSpec } from '../../../src/search/table/sortFilter';
import { getCorpus } from '../../emulator/index';
import { corpusSearchPaper } from '../bib/corpusPaper';

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const compare = (a: string, b: string): number => collator.compare(a, b);
const cell = (r: TableRow, c: (typeof COLUMNS)[number]): string => r.text[columnIndex(c)]!;

/** Corpus papers as the service returns them (the fields the table shows). */
function corpusPapers(n = 1000): Paper[] {
  return getCorpus().slice(0, n).map(corpusSearchPaper);
}

const paper = (over: Partial<Paper> = {}): Paper => ({
  title: 'Creatine and memory',
  authors: ['Ana Lima', 'Jürgen Müller'],
  publish_year: 2020,
  journal_name: 'Journal of Things',
  url: 'https://consensus.app/papers/creatine/abc/',
  citation_count: 12,
  study_type: 'rct',
  sample_size: 120,
  population_type: 'human',
  study_duration_days: 84,
  sjr_best_quartile: 1,
  is_preprint: false,
  takeaway: 'It helps.',
  ...over,
});

describe('search/table rows', () => {
  it('a row shows every column, with units, labels and numbers as the display language writes them', () => {
    const r = tableRow(paper(), 4, { formatNumber: (n) => n.toLocaleString('de-DE') });
    assert.deepEqual(r.text, [
      '5',
      'Creatine and memory',
      'Ana Lima',
      '2020',
      'Journal of Things',
      'Randomized controlled trial (RCT)',
      '120',
      'Human',
      'about 3 months',
      'Q1',
      '12',
      '',
      'No',
      'It helps.',
    ]);
    assert.equal(r.id, 4);
    assert.equal(r.authors, 'Ana Lima; Jürgen Müller');
    assert.equal(r.studyType, 'rct');
    assert.equal(r.link, true);
    assert.deepEqual(r.value, [5, null, null, 2020, null, null, 120, null, 84, 1, 12, null, 0, null]);
    assert.equal(
      cell(
        tableRow(paper({ sample_size: 12345 }), 0, { formatNumber: (n) => n.toLocaleString('de-DE') }),
        'sampleSize',
      ),
      '12.345',
    );
  });

  it('what the service does not report is empty (never a guess); open access only when known', () => {
    const r = tableRow({ title: null, authors: null }, 0);
    assert.equal(cell(r, 'title'), '(untitled paper)');
    for (const c of COLUMNS.filter((c) => c !== 'rank' && c !== 'title')) assert.equal(cell(r, c), '', c);
    assert.equal(r.link, false);
    assert.equal(cell(tableRow(paper(), 0, { openAccess: true }), 'openAccess'), 'Yes');
    assert.equal(cell(tableRow(paper({ full_text_chunks: ['Section: Results | text'] }), 0), 'openAccess'), 'Yes');
    assert.equal(cell(tableRow(paper({ full_text_chunks: [' '] }), 0), 'openAccess'), '');
    assert.equal(cell(tableRow(paper({ is_preprint: true }), 0), 'preprint'), 'Yes');
    assert.equal(cell(tableRow(paper({ is_preprint: null }), 0), 'preprint'), '');
  });

  it('durations: days, about months, about years; one day is singular', () => {
    const d = (days: number): string => cell(tableRow(paper({ study_duration_days: days }), 0), 'duration');
    assert.equal(d(1), '1 day');
    assert.equal(d(30), '30 days');
    assert.equal(d(180), 'about 6 months');
    assert.equal(d(1095), 'about 3 years');
  });

  it('hostile text is plain, one line and bounded: no control, invisible or direction characters survive', () => {
    const hostile = paper({
      title: '<script>alert(1)</script>\n\u202eevil\u200b title\u0000 ' + 'x'.repeat(2000),
      authors: ['\u2066Mallory\u2069 <b>', ''],
      takeaway: '😀'.repeat(800),
      journal_name: 'J\r\nER  - X',
      url: 'javascript:alert(1)',
    });
    const r = tableRow(hostile, 0);
    const title = cell(r, 'title');
    assert.ok(title.startsWith('<script>alert(1)</script> evil title x'), title.slice(0, 60));
    assert.equal(title.length, 500);
    assert.ok(title.endsWith('…'));
    assert.equal(cell(r, 'firstAuthor'), 'Mallory <b>');
    assert.equal(cell(r, 'journal'), 'J ER - X');
    const takeaway = cell(r, 'takeaway');
    assert.ok(takeaway.length <= 1000 && !/[\ud800-\udbff]…$/u.test(takeaway), 'no surrogate pair cut in half');
    assert.equal(r.link, false, 'only https links are offered');
    for (const text of r.text)
      // eslint-disable-next-line no-control-regex
      assert.ok(!/[\u0000-\u001f\u202a-\u202e\u2066-\u2069\u200b]/u.test(text), JSON.stringify(text));
    assert.equal(cellText(42, 10), '');
  });

  it('1,000 corpus papers become 1,000 rows with distinct ids in the service order', () => {
    const rows = tableRows(corpusPapers(), 0);
    assert.equal(rows.length, 1000);
    assert.deepEqual(
      rows.map((r) => r.id),
      rows.map((_, i) => i),
    );
    assert.ok(rows.every((r) => r.text.length === COLUMNS.length && r.value.length === COLUMNS.length));
    const more = tableRows(corpusPapers(30), 20);
    assert.deepEqual(
      more.map((r) => r.id),
      [20, 21, 22, 23, 24, 25, 26, 27, 28, 29],
      'Load More: only the new rows',
    );
  });
});

describe('search/table sorting and filtering', () => {
  const rows = tableRows(
    [
      paper({ title: 'Paper 10', publish_year: 2019, sample_size: null, citation_count: 5 }),
      paper({ title: 'paper 9', publish_year: null, sample_size: 50, citation_count: 5 }),
      paper({ title: 'Äther', publish_year: 2021, sample_size: 500, citation_count: 0, is_preprint: true }),
      paper({ title: '', publish_year: 2019, sample_size: 10, citation_count: null, study_type: 'meta-analysis' }),
    ],
    0,
  );

  it('numbers: missing last in both directions, ties in the service order', () => {
    assert.deepEqual(sortedIds(rows, { column: 'year', descending: false }, compare), [0, 3, 2, 1]);
    assert.deepEqual(sortedIds(rows, { column: 'year', descending: true }, compare), [2, 0, 3, 1]);
    assert.deepEqual(sortedIds(rows, { column: 'citations', descending: true }, compare), [0, 1, 2, 3]);
    assert.deepEqual(sortedIds(rows, { column: 'sampleSize', descending: false }, compare), [3, 1, 2, 0]);
    assert.deepEqual(sortedIds(rows, null, compare), [0, 1, 2, 3]);
    assert.deepEqual(sortedIds(rows, { column: 'rank', descending: true }, compare), [3, 2, 1, 0]);
  });

  it('text: by the display language (accents and case ignored, numbers by value), flags yes first', () => {
    // Row 3 has no title: "(untitled paper)" sorts as text.
    assert.deepEqual(sortedIds(rows, { column: 'title', descending: false }, compare), [3, 2, 1, 0]);
    assert.deepEqual(sortedIds(rows, { column: 'preprint', descending: true }, compare), [2, 0, 1, 3]);
    assert.deepEqual(sortedIds(rows, { column: 'studyType', descending: false }, compare), [3, 0, 1, 2]);
  });

  it('filters: words anywhere (any case, with or without accents), study type, year, sample, peer review', () => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const order = [3, 2, 1, 0];
    const f = (spec: Partial<FilterSpec>): number[] => filteredIds(byId, order, { ...NO_FILTER, ...spec });
    assert.deepEqual(f({}), order);
    assert.deepEqual(f({ text: 'MULLER' }), order, 'every author is searched, accents folded');
    assert.deepEqual(f({ text: 'ATHER' }), [2]);
    assert.deepEqual(f({ text: 'untitled' }), [], 'the placeholder of a missing title is not searched');
    assert.deepEqual(f({ text: '  paper   9 ' }), [1, 0], 'every word somewhere: row 0 has 9 in its year');
    assert.deepEqual(f({ studyType: 'meta-analysis' }), [3]);
    assert.deepEqual(f({ minYear: 2020 }), [2], 'no year: left out');
    assert.deepEqual(f({ minSample: 50 }), [2, 1], 'no sample size: left out');
    assert.deepEqual(f({ peerReviewed: true }), [3, 1, 0]);
    assert.deepEqual(f({ text: 'randomized' }), [2, 1, 0], 'the study type label is searched');
    assert.equal(filterActive(NO_FILTER), false);
    assert.equal(filterActive({ ...NO_FILTER, text: '  ' }), false);
    assert.equal(fold('Ångström ÆON'), 'angstrom æon');
  });

  it('sorting and filtering 1,000 rows is quick (no quadratic step)', () => {
    const many = tableRows(corpusPapers(), 0);
    const byId = new Map(many.map((r) => [r.id, r]));
    const t0 = performance.now();
    for (const column of COLUMNS)
      for (const descending of [false, true]) sortedIds(many, { column, descending }, compare);
    const sorts = (performance.now() - t0) / (COLUMNS.length * 2);
    const t1 = performance.now();
    const hits = filteredIds(byId, sortedIds(many, null, compare), {
      ...NO_FILTER,
      text: 'memory adults',
      minYear: 2010,
    });
    const filtering = performance.now() - t1;
    assert.ok(hits.length > 0 && hits.length < 1000);
    // A loose bound (the machine may be busy): bench/table.ts measures it.
    assert.ok(sorts < 200 && filtering < 200, `sort ${sorts.toFixed(1)} ms, filter ${filtering.toFixed(1)} ms`);
  });
});
