import * as assert from 'node:assert/strict';
import { entryDoi, entryFields, entryToPaper, findEntry } from '../../../src/bib/bibEntry';
import { entryByKey, parseBibFile } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { GOOD } from './bibSample';

describe('bib/bibEntry', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('decodes fields with the library, @string macros resolved', () => {
    const f = parseBibFile(GOOD);
    const fields = entryFields(f, f.entries[0]!);
    assert.equal(fields['title'], 'DNA repair in Österreich');
    assert.equal(fields['journal'], 'PLOS ONE');
    assert.deepEqual(fields['author'], [
      { lastName: 'Smith', firstName: 'Anna' },
      { lastName: 'Sandkühler', firstName: 'Jürgen' },
    ]);
  });

  it('reads an entry back as paper metadata for hover and Copy Reference (our own entries round-trip)', () => {
    const f = parseBibFile(GOOD);
    assert.equal(entryByKey(f, 'SMITH2020DNA'), f.entries[0]);
    assert.deepEqual(entryToPaper(f, f.entries[0]!), {
      title: 'DNA repair in Österreich',
      authors: ['Smith, Anna', 'Sandkühler, Jürgen'],
      journal_name: 'PLOS ONE',
      publish_year: 2020,
      volume: null,
      pages: null,
      publisher_name: null,
      doi: '10.1000/abc.123',
      url: null,
    });
    const paper = {
      title: 'Cost & 50% of {x}',
      authors: ['Jan van der Berg', 'WHO Study Group'],
      journal_name: 'J & K',
      publish_year: 2021,
      volume: '3',
      pages: '1-9',
      publisher_name: 'P',
      doi: '10.1/ab_c',
      url: 'https://x.org/a_b%20c#d',
    };
    const own = parseBibFile(toBibtex(paper, 'k'));
    assert.deepEqual(entryToPaper(own, own.entries[0]!), {
      ...paper,
      authors: ['van der Berg, Jan', 'WHO Study Group'],
      pages: '1–9',
    });
  });

  it('decodes only what the editor shows, bounded: no abstract, a long title cut, the leading names of a long author list', () => {
    const abstract = 'The effect of {\\"u}ber $x^2$ on memory. '.repeat(5000);
    const authors = Array.from({ length: 400 }, (_v, i) => `Author${i}, A.`).join(' and ');
    const title = `${'Very long title words '.repeat(200)}{\\"u}`;
    const f = parseBibFile(
      `@article{big, title = {${title}}, author = {${authors}}, abstract = {${abstract}}, journal = {J}, year = 2020}`,
    );
    const fields = entryFields(f, f.entries[0]!);
    assert.equal(fields['abstract'], undefined);
    const p = entryToPaper(f, f.entries[0]!);
    assert.ok(p.title!.endsWith('…') && p.title!.startsWith('Very long title words'), p.title!.slice(-30));
    assert.ok(
      authors.length > 4000 && p.authors!.length > 100 && p.authors!.length < 400,
      `${p.authors?.length} authors`,
    );
    assert.deepEqual(p.authors!.slice(0, 2), ['Author0, A.', 'Author1, A.']);
    assert.equal(p.journal_name, 'J');
    assert.equal(p.publish_year, 2020);
  });

  it('finds an existing entry by DOI (case, resolver prefix, percent escapes) or by title and year without DOI', () => {
    const f = parseBibFile(GOOD);
    assert.equal(entryDoi(f.entries[0]!), '10.1000/abc.123');
    assert.equal(findEntry(f, { doi: '10.1000/abc.123' })?.key, 'smith2020dna');
    assert.equal(findEntry(f, { doi: 'https://doi.org/10.1000/ABC.123' })?.key, 'smith2020dna');
    assert.equal(
      findEntry(f, { title: 'DNA Repair in Osterreich!', publish_year: 2020 })?.key,
      'smith2020dna',
      'title normalised, accents folded',
    );
    assert.equal(findEntry(f, { title: 'DNA repair in Österreich', publish_year: 2021 }), undefined, 'another year');
    assert.equal(
      findEntry(f, { title: 'DNA repair in Österreich', publish_year: 2020, doi: '10.9/other' }),
      undefined,
      'two different DOIs',
    );
    assert.equal(
      findEntry(f, { title: 'A Book with ümlaut "quotes"', publish_year: 2019, doi: '10.9/x' })?.key,
      'jones2019book',
      'entry without DOI',
    );
    const macros = parseBibFile(
      "@article{m, title = {{\\AA}ngstr{\\\"o}m, {\\o}l and {\\L}{\\'o}d{\\'z} --- {\\cyrchar\\CYRI}}, year = 2001}",
    );
    assert.equal(
      findEntry(macros, { title: 'Ångström, øl and Łódź — И', publish_year: 2001 })?.key,
      'm',
      'letters written as macros',
    );
    assert.equal(
      findEntry(macros, { title: 'Angstrom, ol and Lodz — Я', publish_year: 2001 }),
      undefined,
      'a different letter is another title',
    );
    const escaped = parseBibFile(toBibtex({ title: 'T', doi: '10.1000/a_b%c#{}' }, 'k'));
    assert.equal(
      findEntry(escaped, { doi: '10.1000/A_B%C#{}' })?.key,
      'k',
      'our own escaping reads back as the same DOI',
    );
  });
});
