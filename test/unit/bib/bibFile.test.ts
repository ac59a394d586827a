import * as assert from 'node:assert/strict';
import { appendEntryEdit, ensureEntry, entryByKey, entryDoi, entryFields, entryToPaper, findEntry, parseBibFile, tidyBibliography } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { applyEdits, LineIndex } from '../../../src/bib/edit';
import { loadBibtexLibrary } from '../../../src/bib/library';

const GOOD = `% My references
@string{plos = "PLOS ONE"}

@article{smith2020dna,
  author = {Smith, Anna and Sandk{\\"u}hler, J{\\"u}rgen},
  title = {{DNA} repair in {\\"O}sterreich},
  journal = plos,
  year = 2020,
  doi = {10.1000/ABC.123}
}

@book(jones2019book, title = "A {Book} with {\\"u}mlaut {"}quotes{"}", year = {2019}, publisher = {X} # { and } # {Y})
`;

describe('cite/bibFile', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('reads entries, keys, spans, raw fields (braces, quotes, bare words, # concatenation) and directives', () => {
    const f = parseBibFile(GOOD);
    assert.deepEqual(f.diagnostics, []);
    assert.deepEqual(f.entries.map((e) => [e.type, e.key]), [['article', 'smith2020dna'], ['book', 'jones2019book']]);
    const [a, b] = f.entries;
    assert.equal(GOOD.slice(a!.start, a!.start + 9), '@article{');
    assert.equal(GOOD[a!.end - 1], '}');
    assert.equal(GOOD.slice(a!.keyStart, a!.keyStart + 12), 'smith2020dna');
    assert.equal(a!.raw['journal'], 'plos');
    assert.equal(a!.raw['year'], '2020');
    assert.equal(b!.raw['publisher'], 'X and Y');
    assert.equal(b!.raw['title'], 'A {Book} with {\\"u}mlaut {"}quotes{"}');
    assert.equal(GOOD[b!.end - 1], ')');
    assert.deepEqual(f.directives.map((d) => d.type), ['string']);
  });

  it('decodes fields with the library, @string macros resolved', () => {
    const f = parseBibFile(GOOD);
    const fields = entryFields(f, f.entries[0]!);
    assert.equal(fields['title'], 'DNA repair in Österreich');
    assert.equal(fields['journal'], 'PLOS ONE');
    assert.deepEqual(fields['author'], [{ lastName: 'Smith', firstName: 'Anna' }, { lastName: 'Sandkühler', firstName: 'Jürgen' }]);
  });

  it('reads an entry back as paper metadata for hover and Copy Reference (our own entries round-trip)', () => {
    const f = parseBibFile(GOOD);
    assert.equal(entryByKey(f, 'SMITH2020DNA'), f.entries[0]);
    assert.deepEqual(entryToPaper(f, f.entries[0]!), {
      title: 'DNA repair in Österreich', authors: ['Smith, Anna', 'Sandkühler, Jürgen'], journal_name: 'PLOS ONE', publish_year: 2020,
      volume: null, pages: null, publisher_name: null, doi: '10.1000/abc.123', url: null,
    });
    const paper = { title: 'Cost & 50% of {x}', authors: ['Jan van der Berg', 'WHO Study Group'], journal_name: 'J & K', publish_year: 2021, volume: '3', pages: '1-9', publisher_name: 'P', doi: '10.1/ab_c', url: 'https://x.org/a_b%20c#d' };
    const own = parseBibFile(toBibtex(paper, 'k'));
    assert.deepEqual(entryToPaper(own, own.entries[0]!), { ...paper, authors: ['van der Berg, Jan', 'WHO Study Group'], pages: '1–9' });
  });

  it('decodes only what the editor shows, bounded: no abstract, a long title cut, the leading names of a long author list', () => {
    const abstract = 'The effect of {\\"u}ber $x^2$ on memory. '.repeat(5000);
    const authors = Array.from({ length: 400 }, (_v, i) => `Author${i}, A.`).join(' and ');
    const title = `${'Very long title words '.repeat(200)}{\\"u}`;
    const f = parseBibFile(`@article{big, title = {${title}}, author = {${authors}}, abstract = {${abstract}}, journal = {J}, year = 2020}`);
    const fields = entryFields(f, f.entries[0]!);
    assert.equal(fields['abstract'], undefined);
    const p = entryToPaper(f, f.entries[0]!);
    assert.ok(p.title!.endsWith('…') && p.title!.startsWith('Very long title words'), p.title!.slice(-30));
    assert.ok(authors.length > 4000 && p.authors!.length > 100 && p.authors!.length < 400, `${p.authors?.length} authors`);
    assert.deepEqual(p.authors!.slice(0, 2), ['Author0, A.', 'Author1, A.']);
    assert.equal(p.journal_name, 'J');
    assert.equal(p.publish_year, 2020);
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
    assert.deepEqual(f.entries.map((e) => e.key), ['ok1', 'ok2', 'nofield', 'ok1']);
    const errs = f.diagnostics.map((d) => [d.severity, d.range.start.line, d.range.start.character, d.range.end.line, d.message.split(' ').slice(0, 2).join(' ')]);
    assert.deepEqual(errs, [
      ['error', 1, 0, 2, 'Entry broken'],
      ['warning', 4, 21, 4, 'Entry nofield:'],
      ['error', 6, 0, 6, '@article entry'],
      ['warning', 5, 9, 5, 'Duplicate key'],
    ]);
    const broken = f.diagnostics[0]!;
    assert.equal(text.slice(broken.start, broken.end), '@article{broken, title = {Unclosed brace, year = 2021,\n  journal = {J}');
  });

  it('survives hostile input without throwing: stray @, e-mails, unterminated quotes, empty text', () => {
    for (const t of ['', '@', '@@@', 'mail me at a@b.com', '@article{x, title = "open', '@comment{ unbalanced', '}}}{{{', '@article{a,\n}'.repeat(3)]) {
      const f = parseBibFile(t);
      assert.ok(Array.isArray(f.entries));
    }
    assert.deepEqual(parseBibFile('mail me at a@b.com').entries, []);
    assert.equal(parseBibFile('@article{x, title = "open').diagnostics[0]?.severity, 'error');
  });

  it('finds an existing entry by DOI (case, resolver prefix, percent escapes) or by title and year without DOI', () => {
    const f = parseBibFile(GOOD);
    assert.equal(entryDoi(f.entries[0]!), '10.1000/abc.123');
    assert.equal(findEntry(f, { doi: '10.1000/abc.123' })?.key, 'smith2020dna');
    assert.equal(findEntry(f, { doi: 'https://doi.org/10.1000/ABC.123' })?.key, 'smith2020dna');
    assert.equal(findEntry(f, { title: 'DNA Repair in Osterreich!', publish_year: 2020 })?.key, 'smith2020dna', 'title normalised, accents folded');
    assert.equal(findEntry(f, { title: 'DNA repair in Österreich', publish_year: 2021 }), undefined, 'another year');
    assert.equal(findEntry(f, { title: 'DNA repair in Österreich', publish_year: 2020, doi: '10.9/other' }), undefined, 'two different DOIs');
    assert.equal(findEntry(f, { title: 'A Book with ümlaut "quotes"', publish_year: 2019, doi: '10.9/x' })?.key, 'jones2019book', 'entry without DOI');
    const macros = parseBibFile('@article{m, title = {{\\AA}ngstr{\\"o}m, {\\o}l and {\\L}{\\\'o}d{\\\'z} --- {\\cyrchar\\CYRI}}, year = 2001}');
    assert.equal(findEntry(macros, { title: 'Ångström, øl and Łódź — И', publish_year: 2001 })?.key, 'm', 'letters written as macros');
    assert.equal(findEntry(macros, { title: 'Angstrom, ol and Lodz — Я', publish_year: 2001 }), undefined, 'a different letter is another title');
    const escaped = parseBibFile(toBibtex({ title: 'T', doi: '10.1000/a_b%c#{}' }, 'k'));
    assert.equal(findEntry(escaped, { doi: '10.1000/A_B%C#{}' })?.key, 'k', 'our own escaping reads back as the same DOI');
  });

  it('appends with one blank line and the file newline style', () => {
    assert.deepEqual(appendEntryEdit('', '@misc{a,\n}'), { offset: 0, length: 0, text: '@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}', '@misc{a,\n}'), { offset: 2, length: 0, text: '\n\n@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}\n', '@misc{a,\n}'), { offset: 3, length: 0, text: '\n@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('x}\n\n', '@misc{a,\n}'), { offset: 4, length: 0, text: '@misc{a,\n}\n' });
    assert.deepEqual(appendEntryEdit('a}\r\nb}\r\n', '@misc{a,\n  x = {1}\n}'), { offset: 8, length: 0, text: '\r\n@misc{a,\r\n  x = {1}\r\n}\r\n' });
  });

  it('ensureEntry reuses an entry, else appends one with a free key; the result parses', () => {
    const f = parseBibFile(GOOD);
    assert.deepEqual(ensureEntry(f, { doi: '10.1000/ABC.123', title: 'x' }), { key: 'smith2020dna', existing: true });
    const paper = { authors: ['Anna Smith'], publish_year: 2020, title: 'DNA and more', doi: '10.2/new', journal_name: 'J' };
    const r = ensureEntry(f, paper, { reservedKeys: ['smith2020dnaa'] });
    assert.equal(r.existing, false);
    assert.equal(r.key, 'smith2020dnab', 'smith2020dna is taken, smith2020dnaa reserved');
    const after = parseBibFile(applyEdits(GOOD, [r.edit!]));
    assert.deepEqual(after.diagnostics, []);
    assert.deepEqual(after.entries.map((e) => e.key), ['smith2020dna', 'jones2019book', 'smith2020dnab']);
    assert.equal(findEntry(after, paper)?.key, 'smith2020dnab');
  });

  it('tidy: removes later duplicates by DOI, sorts by key, keeps directives first and comments with their entry', () => {
    const text = [
      '@string{j = "Journal"}',
      '@article{zeta, doi = {10.1/A}, title = {Z}}',
      '% about alpha',
      '@article{alpha, title = {A}}',
      '@article{Beta, doi = {https://doi.org/10.1/a}, title = {B dup}}',
      '@article{gamma, title = {G}}',
    ].join('\n');
    const r = tidyBibliography(text, ['alpha', 'ZETA']);
    assert.deepEqual(r.removed, [{ key: 'Beta', keptKey: 'zeta', doi: '10.1/a' }]);
    assert.deepEqual(r.uncited, ['gamma']);
    assert.equal(
      r.text,
      ['@string{j = "Journal"}', '% about alpha\n@article{alpha, title = {A}}', '@article{gamma, title = {G}}', '@article{zeta, doi = {10.1/A}, title = {Z}}'].join('\n\n') + '\n',
    );
    assert.deepEqual(tidyBibliography(r.text).removed, [], 'idempotent');
    assert.equal(tidyBibliography(r.text).text, r.text);
  });

  it('tidy refuses to move text of a file with errors', () => {
    const r = tidyBibliography('@article{a, title = {x}\n@article{b, title={y}}');
    assert.equal(r.text, undefined);
    assert.equal(r.diagnostics[0]?.severity, 'error');
  });

  it('parses a 10,000-entry file and finds an entry in it', function () {
    this.timeout(60000);
    const parts: string[] = [];
    for (let i = 0; i < 10000; i++)
      parts.push(toBibtex({ authors: [`Author${i} Family${i}`], title: `Title number ${i} & more`, publish_year: 2000 + (i % 25), doi: `10.5555/x.${i}`, journal_name: 'J' }, `k${i}`));
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
