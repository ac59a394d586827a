import * as assert from 'node:assert/strict';
import { entryToPaper, parseBibFile, type BibFile } from '../../../src/cite/bibFile';
import { toBibtex } from '../../../src/cite/bibtex';
import { loadBibtexLibrary } from '../../../src/cite/library';
import { fieldSpans, shownEntry, shownPaper } from '../../../src/citations/hoverEntry';
import { getCorpus } from '../../emulator/corpus';
import { corpusCitePaper } from '../cite/corpusPaper';

/** What hover shows of a paper (six authors, then "et al.": seven decoded). */
const shownOf = (p: ReturnType<typeof entryToPaper>) => ({
  title: p.title,
  authors: p.authors?.slice(0, 7) ?? null,
  journal_name: p.journal_name,
  publish_year: p.publish_year,
  url: p.url,
  doi: p.doi,
});

describe('citations/hoverEntry (what hover decodes of an entry)', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('reads field spans as bibFile does: braces, quotes with braces inside, bare words, # joins', () => {
    const text = '@article{k, title = {A {B} c}, note = "x {"} y" # jan, year = 2020 ,journal=jbc}';
    const f = parseBibFile(text);
    const e = f.entries[0]!;
    const spans = fieldSpans(text, text.indexOf(',') + 1, e.end - 1);
    assert.deepEqual(spans.map((s) => [s.name, text.slice(s.start, s.end), s.macros]), [
      ['title', 'title = {A {B} c}', []],
      ['note', 'note = "x {"} y" # jan', ['jan']],
      ['year', 'year = 2020', []],
      ['journal', 'journal=jbc', ['jbc']],
    ]);
  });

  it('decodes the same title, authors, venue, year, URL and DOI as the whole entry (900 corpus papers, macros)', () => {
    const corpus = getCorpus(900).map(corpusCitePaper);
    const text = [
      '@string{jbc = "J. Biol. Chem."}',
      '@string{j2 = jbc # " (Suppl.)"}',
      '@STRING{ unused = "x" }',
      ...corpus.map((p, i) => toBibtex(p, `k${i}`)),
      '@article{m1, author = {M{\\"u}ller, J. and van der Berg, Jan}, title = "Quoted {T}itle", journal = jbc, year = 2019, month = jan, abstract = {long}}',
      '@article{m2, title = {Joined} # { title}, journal = j2, date = {2021-03}, url = {https://example.org/a_b}, doi = {10.1/X}}',
    ].join('\n\n');
    const file = parseBibFile(text);
    assert.equal(file.entries.length, 902);
    for (const e of file.entries) assert.deepEqual(shownOf(shownPaper(file, e)), shownOf(entryToPaper(file, e)), e.key);
    assert.equal(shownPaper(file, file.entries[900]!).journal_name, 'J. Biol. Chem.');
    assert.equal(shownPaper(file, file.entries[901]!).journal_name, 'J. Biol. Chem. (Suppl.)', 'a macro using a macro');
  });

  it('leaves out what hover does not show and cuts what it shows long', () => {
    const abstract = 'The effect of {\\"u}ber $x^2$ on memory. '.repeat(5000);
    const authors = Array.from({ length: 60 }, (_v, i) => `Author${i}, A.`).join(' and ');
    const title = `${'Very long title words '.repeat(200)}{\\"u}`;
    const text = `@article{big, title = {${title}}, author = {${authors}}, abstract = {${abstract}}, journal = {J}, year = 2020}`;
    const file: BibFile = parseBibFile(text);
    const small = shownEntry(file, file.entries[0]!);
    assert.ok(small.file.text.length < 5000, `${small.file.text.length} characters decoded`);
    assert.ok(!small.file.text.includes('abstract'));
    const p = shownPaper(file, file.entries[0]!);
    assert.equal(p.authors?.length, 7);
    assert.ok(p.title!.endsWith('…') && p.title!.length <= 1001 && p.title!.startsWith('Very long title words'), p.title!.slice(-30));
    assert.equal(p.journal_name, 'J');
    assert.equal(p.publish_year, 2020);
    assert.equal(p.key, 'big');
  });
});
