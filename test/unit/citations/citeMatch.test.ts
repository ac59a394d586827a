import * as assert from 'node:assert/strict';
import { doiKey, entryToPaper, findEntry } from '../../../src/bib/bibEntry';
import { parseBibFile, type BibFile } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { citeKey, KEY_SCHEMES } from '../../../src/bib/keys';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { EntryIndex, matchRank, predictKey } from '../../../src/citations/citeMatch';
import { byline, rawFamilies, rawText } from '../../../src/citations/entryText';
import type { BibliographyEntry, CitePaper, LoadedBibliography } from '../../../src/citations/types';
import { getCorpus, mulberry32 } from '../../emulator/corpus';
import { corpusCitePaper } from '../bib/corpusPaper';

/** BibliographyEntry records of a parsed file, as BibliographyService.entries gives them. */
function entriesOf(file: BibFile): BibliographyEntry[] {
  const bib = { file, text: file.text, exists: true, source: 'declared' } as unknown as LoadedBibliography;
  return file.entries.map((entry) => ({
    bib,
    entry,
    get paper(): CitePaper {
      return entryToPaper(file, entry);
    },
  }));
}

const corpusPaper = (p: ReturnType<typeof getCorpus>[number]): CitePaper => {
  // Without the publisher and preprint flag, as this suite has always checked it.
  const { publisher_name: _pub, is_preprint: _pre, ...paper } = corpusCitePaper(p);
  return paper;
};

describe('citations/citeMatch (completion and hover data)', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('reads raw .bib values well enough for a list: accents, letters, escapes, dashes, commands, braces', () => {
    assert.equal(rawText(String.raw`Sandk{\"u}hler and {\O}stergaard`), 'Sandkühler and Østergaard');
    assert.equal(rawText(String.raw`Caf\'{e} \c{c}a {\v{S}}koda \'{\i} $\alpha$`), 'Café ça Škoda í α');
    assert.equal(rawText(String.raw`Salt \& Pepper: 50\% of \$5 \#1 a\_b`), 'Salt & Pepper: 50% of $5 #1 a_b');
    assert.equal(
      rawText(String.raw`Pages 1--7 --- an \emph{important} {DNA}~result`),
      'Pages 1–7 — an important DNA result',
    );
    assert.deepEqual(rawFamilies(String.raw`Sandk{\"u}hler, Julia and John {von Neumann} and Li, Wei`), [
      'Sandkühler',
      'Neumann',
      'Li',
    ]);
    assert.equal(byline(['A', 'B', 'C', 'D', 'E', 'F', 'G'], 2020, 'J'), 'A, B, C, D, E, F, et al. · 2020 · J');
    assert.equal(byline([], undefined, null), '');
    // DOIs compare like bibFile's entries: resolver prefix, case and percent escapes ignored.
    assert.equal(doiKey('https://doi.org/10.1000/ABC%2Fdef'), '10.1000/abc/def');
    assert.equal(doiKey('doi: 10.1000/x'), '10.1000/x');
    assert.equal(doiKey('not a doi'), undefined);
  });

  it('ranks by key prefix, key substring, then a word of the title or an author (accents ignored)', () => {
    const info = { key: 'sandkuhler2023creatine', title: 'Créatine and the Brain', families: ['Sandkühler', 'Müller'] };
    assert.equal(matchRank('', info), 0);
    assert.equal(matchRank('Sand', info), 0);
    assert.equal(matchRank('2023', info), 1);
    assert.equal(matchRank('brai', info), 2);
    assert.equal(matchRank('mull', info), 2);
    assert.equal(matchRank('müll', info), 2);
    assert.equal(matchRank('xyz', info), undefined);
    assert.equal(matchRank('rain', info), undefined, 'a title word matches only at its start');
  });

  it('predicts the key citeKey gives, clashes and all, for every key scheme', () => {
    const rand = mulberry32(7);
    const base: CitePaper[] = getCorpus(300).map(corpusPaper);
    // Same author, year and first title word many times over: a, b, … z, aa … suffixes.
    const clones = Array.from({ length: 40 }, (_, i) => ({ ...base[0]!, doi: `10.1/clone.${i}` }));
    const papers = [...base, ...clones].sort(() => rand() - 0.5);
    for (const scheme of KEY_SCHEMES) {
      const existing = ['Smith2020', 'anon2020'];
      const taken = new Set(existing.map((k) => k.toLowerCase()));
      for (const p of papers) {
        const expected = citeKey(p, existing, scheme);
        assert.equal(predictKey(p, taken, scheme), expected, `${scheme}: ${p.title}`);
        existing.push(expected);
      }
    }
  });

  it('finds a paper in the bibliography exactly as findEntry does (DOI, else title and year), on 500 corpus papers', () => {
    const corpus = getCorpus(500).map(corpusPaper);
    // The bibliography holds every other paper; some without their DOI (title+year must then find them).
    const inBib = corpus.filter((_, i) => i % 2 === 0);
    const text = inBib.map((p, i) => toBibtex(i % 3 === 0 ? { ...p, doi: null } : p, `k${i}`)).join('\n');
    const file = parseBibFile(text);
    const index = new EntryIndex(entriesOf(file));
    const queries: CitePaper[] = [
      ...corpus,
      // A DOI in another form (resolver URL, upper case) and a title in other capitals and punctuation.
      ...inBib.slice(0, 30).map((p) => ({ ...p, doi: p.doi ? `https://doi.org/${p.doi.toUpperCase()}` : null })),
      ...inBib.slice(30, 60).map((p) => ({ ...p, doi: null, title: `${(p.title ?? '').toUpperCase()}!` })),
      // Same title and year but a different DOI than the entry's: not the same paper.
      ...inBib.slice(60, 90).map((p) => ({ ...p, doi: '10.9999/other' })),
    ];
    let found = 0;
    for (const q of queries) {
      const expected = findEntry(file, q);
      const got = index.find(q);
      assert.equal(got?.entry, expected, `${q.title} (${q.doi ?? 'no DOI'})`);
      if (got) found++;
    }
    assert.ok(found > 280, `only ${found} found`);
  });
});
