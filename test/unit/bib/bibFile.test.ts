import * as assert from 'node:assert/strict';
import { findEntry } from '../../../src/bib/bibEntry';
import { parseBibFile } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { LineIndex } from '../../../src/bib/edit';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { GOOD } from './bibSample';

describe('bib/bibFile', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('reads entries, keys, spans, raw fields (braces, quotes, bare words, # concatenation) and directives', () => {
    const f = parseBibFile(GOOD);
    assert.deepEqual(f.diagnostics, []);
    assert.deepEqual(
      f.entries.map((e) => [e.type, e.key]),
      [
        ['article', 'smith2020dna'],
        ['book', 'jones2019book'],
      ],
    );
    const [a, b] = f.entries;
    assert.equal(GOOD.slice(a!.start, a!.start + 9), '@article{');
    assert.equal(GOOD[a!.end - 1], '}');
    assert.equal(GOOD.slice(a!.keyStart, a!.keyStart + 12), 'smith2020dna');
    assert.equal(a!.raw['journal'], 'plos');
    assert.equal(a!.raw['year'], '2020');
    assert.equal(b!.raw['publisher'], 'X and Y');
    assert.equal(b!.raw['title'], 'A {Book} with {\\"u}mlaut {"}quotes{"}');
    assert.equal(GOOD[b!.end - 1], ')');
    assert.deepEqual(
      f.directives.map((d) => d.type),
      ['string'],
    );
  });

  it('reports a malformed entry with its line/column range and still reads the entries after it', () => {
    const text = [
      '@article{ok1, title = {Fine}, year = 2020}',
      '@article{broken, title = {Unclosed brace, year = 2021,',
      '  journal = {J}',
      '@article{ok2, title = {Also fine}, year = 2022}',
      '@misc{nofield, title {missing equals}}',
      '@article{ok1, title = {Duplicate key}}',
      '@article{, title = {no key}}',
    ].join('\n');
    const f = parseBibFile(text);
    assert.deepEqual(
      f.entries.map((e) => e.key),
      ['ok1', 'ok2', 'nofield', 'ok1'],
    );
    const errs = f.diagnostics.map((d) => [
      d.severity,
      d.range.start.line,
      d.range.start.character,
      d.range.end.line,
      d.message.split(' ').slice(0, 2).join(' '),
    ]);
    assert.deepEqual(errs, [
      ['error', 1, 0, 2, 'Entry broken'],
      ['warning', 4, 21, 4, 'Entry nofield:'],
      ['error', 6, 0, 6, '@article entry'],
      ['warning', 5, 9, 5, 'Duplicate key'],
    ]);
    const broken = f.diagnostics[0]!;
    assert.equal(
      text.slice(broken.start, broken.end),
      '@article{broken, title = {Unclosed brace, year = 2021,\n  journal = {J}',
    );
  });

  it('survives hostile input without throwing: stray @, e-mails, unterminated quotes, empty text', () => {
    for (const t of [
      '',
      '@',
      '@@@',
      'mail me at a@b.com',
      '@article{x, title = "open',
      '@comment{ unbalanced',
      '}}}{{{',
      '@article{a,\n}'.repeat(3),
    ]) {
      const f = parseBibFile(t);
      assert.ok(Array.isArray(f.entries));
    }
    assert.deepEqual(parseBibFile('mail me at a@b.com').entries, []);
    assert.equal(parseBibFile('@article{x, title = "open').diagnostics[0]?.severity, 'error');
  });

  it('parses a 10,000-entry file and finds an entry in it', function () {
    this.timeout(60000);
    const parts: string[] = [];
    for (let i = 0; i < 10000; i++)
      parts.push(
        toBibtex(
          {
            authors: [`Author${i} Family${i}`],
            title: `Title number ${i} & more`,
            publish_year: 2000 + (i % 25),
            doi: `10.5555/x.${i}`,
            journal_name: 'J',
          },
          `k${i}`,
        ),
      );
    const text = parts.join('\n\n');
    const f = parseBibFile(text);
    assert.equal(f.entries.length, 10000);
    assert.deepEqual(f.diagnostics, []);
    assert.equal(findEntry(f, { doi: '10.5555/X.9999' })?.key, 'k9999');
    assert.equal(findEntry(f, { title: 'Title number 4321 & more', publish_year: 2021 })?.key, 'k4321');
    const lines = new LineIndex(text);
    assert.equal(lines.position(f.entries[1]!.start).line, parts[0]!.split('\n').length + 1);
  });
});
