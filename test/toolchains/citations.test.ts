/**
 * Insert Citation as writers build it: a .bib of corpus papers covering every hostile title and name form of the
 * emulator (and the papers the service may send with no DOI, no journal or no year), written by `toBibtex` with keys
 * from `citeKey`, cited into a Markdown, a LaTeX (natbib and biblatex: every cite command, locators, joined
 * citations) and a Typst document by `insertCitation`, then compiled by pandoc, pdflatex with BibTeX and with Biber,
 * and Typst. Each must report no error and no unresolved citation, and show every paper's title and authors as the
 * service gave them. pdflatex cannot set scripts its T1 fonts lack (CJK, Cyrillic…): papers with them are compiled
 * in documents of their own and their errors counted, not hidden.
 */
import * as assert from 'node:assert/strict';
import { pdflatexCannotTypeset, toBibtex, type CitablePaper } from '../../src/bib/bibtex';
import { applyEdits } from '../../src/bib/edit';
import { citeKey } from '../../src/bib/keys';
import { loadBibtexLibrary } from '../../src/bib/library';
import { insertCitation, type CiteFlavour } from '../../src/bib/syntax';
import { corpusSample, toolchainPapers } from './papers';
import { displayOrder, latexDocument, sameText } from './documents';
import {
  compileBiber,
  compileBibtex,
  compilePandoc,
  compileTypst,
  needs,
  tools,
  typstBibliography,
  type CompileResult,
} from './toolchains';

interface Cited {
  key: string;
  paper: CitablePaper;
}

/** Cite every key into `start`, each at the end of a sentence of its own, some joined to the one before. */
function citeAll(
  start: string,
  flavour: CiteFlavour,
  cited: readonly Cited[],
  options: (i: number) => { latexCommand?: string; locator?: string; join?: boolean },
): { text: string; citations: number } {
  let text = start;
  let citations = 0;
  let joinAt: number | undefined;
  cited.forEach((c, i) => {
    const o = options(i);
    let offset: number;
    if (o.join && joinAt !== undefined) offset = joinAt;
    else {
      text += `${i % 7 === 0 ? '\n\n' : ' '}Sentence ${i} says something`;
      offset = text.length;
    }
    const r = insertCitation(text, offset, flavour, c.key, { latexCommand: o.latexCommand, locator: o.locator });
    text = applyEdits(text, [r.edit]);
    if (!r.extended) citations++;
    joinAt = r.end;
    if (!o.join) {
      text = text.slice(0, r.end) + '.' + text.slice(r.end);
    }
  });
  return { text: `${text}\n`, citations };
}

const LOCATORS = [undefined, '4', '12-19', 'chap. 3', undefined, 'p. 7'];
const NATBIB = [
  'cite',
  'citep',
  'citet',
  'citealt',
  'citealp',
  'citeauthor',
  'citeyear',
  'citeyearpar',
  'Citet',
  'Citep',
];
const BIBLATEX = [
  'cite',
  'parencite',
  'textcite',
  'autocite',
  'footcite',
  'smartcite',
  'Textcite',
  'Parencite',
  'citeauthor',
  'citeyear',
];

/** What a toolchain showed differently from the service's metadata. */
function mismatches(r: CompileResult, cited: readonly Cited[], authorsJoined = false): string[] {
  const out: string[] = [];
  for (const { key, paper } of cited) {
    const e = r.entries.get(key);
    if (!e) {
      out.push(`${key}: not in the bibliography`);
      continue;
    }
    const authors = (paper.authors ?? []).filter((a) => a.trim()).map(displayOrder);
    // plainnat starts an entry without authors with its title.
    // plainnat sets the month and year of an entry without a venue after its title.
    const title = (authorsJoined && !authors.length ? (e.authors[0] ?? '') : e.title).replace(
      authorsJoined ? /, (?:[A-Z][a-z]+ )?\d{4}[a-z]{0,2}\.?$/u : /$^/u,
      '',
    );
    if (paper.title && !sameText(title, paper.title, { title: true }))
      out.push(`${key}: title ${JSON.stringify(title)} for ${JSON.stringify(paper.title)}`);
    if (authorsJoined && !authors.length) continue;
    const expected = authorsJoined
      ? authors.length
        ? [authors.length <= 2 ? authors.join(' and ') : `${authors.slice(0, -1).join(', ')}, and ${authors.at(-1)!}`]
        : []
      : authors;
    const got = e.authors;
    const differ = got.length !== expected.length ? -1 : expected.findIndex((a, i) => !sameText(got[i]!, a));
    if (differ !== -1 || got.length !== expected.length) {
      out.push(
        differ >= 0
          ? `${key}: author ${JSON.stringify(got[differ])} for ${JSON.stringify(expected[differ])}`
          : `${key}: authors ${JSON.stringify(e.authors)} for ${JSON.stringify(authors)}`,
      );
    }
  }
  return out;
}

const assertNone = (list: readonly string[], what: string): void =>
  assert.equal(list.length, 0, `${list.length} ${what}:\n${list.slice(0, 40).join('\n')}`);
const missing = Object.entries(tools)
  .filter(([, v]) => !v)
  .map(([k]) => k);

describe(`toolchains: Insert Citation into Markdown, LaTeX and Typst, compiled (${missing.length ? `missing: ${missing.join(', ')}` : 'all installed'})`, function () {
  this.timeout(600_000);
  let cited: Cited[] = [];
  let texBib = '';
  let unicodeBib = '';
  /** Papers pdflatex can set (through BibTeX / through Biber), and the rest. */
  const latin = { bibtex: [] as Cited[], biber: [] as Cited[] };
  const beyond = { bibtex: [] as Cited[], biber: [] as Cited[] };

  before(async function () {
    if (missing.length) console.log(`      not installed: ${missing.join(', ')} — their checks are skipped`);
    await loadBibtexLibrary();
    const keys: string[] = [];
    cited = toolchainPapers().map(({ paper, scheme }) => {
      const key = citeKey(paper, keys, scheme);
      keys.push(key);
      return { key, paper };
    });
    texBib = `${cited.map((c) => toBibtex(c.paper, c.key)).join('\n\n')}\n`;
    unicodeBib = `${cited.map((c) => toBibtex(c.paper, c.key, { target: 'unicode' })).join('\n\n')}\n`;
    for (const via of ['bibtex', 'biber'] as const)
      for (const c of cited) (pdflatexCannotTypeset(c.paper, via).length ? beyond : latin)[via].push(c);
    assert.ok(cited.length >= 300, `${cited.length} papers`);
    const sample = corpusSample();
    assert.deepEqual(sample.uncovered, [], 'the corpus sample covers every odd form of the emulator');
    console.log(
      `      ${cited.length} papers: ${sample.papers.length} from the corpus covering its ${sample.forms} odd forms, the rest made by hand`,
    );
  });

  it('pandoc (Markdown): every citation resolves, every entry shows its title and authors', function () {
    needs(this, 'pandoc');
    const doc = citeAll('# Notes\n\nText.', 'pandoc', cited, (i) => ({
      locator: LOCATORS[i % LOCATORS.length],
      join: i % 5 === 4,
    }));
    const r = compilePandoc({ document: doc.text, bib: texBib });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.unresolved, []);
    assertNone(r.warnings, 'pandoc warnings');
    assertNone(mismatches(r, cited), 'rendered differences');
    console.log(
      `      pandoc: 1 document, ${doc.citations} citations, ${cited.length} entries, 0 errors, 0 mismatches (${Math.round(r.ms)} ms)`,
    );
  });

  it('Typst: every citation resolves, every entry shows its title and authors', function () {
    needs(this, 'typst');
    const doc = citeAll('= Notes\n\nText.', 'typst', cited, (i) => ({
      locator: LOCATORS[i % LOCATORS.length],
      join: i % 5 === 4,
    }));
    const r = compileTypst({ document: doc.text + typstBibliography(), bib: unicodeBib });
    assertNone(r.errors, 'Typst errors');
    assert.deepEqual(r.unresolved, []);
    assertNone(mismatches(r, cited), 'rendered differences');
    console.log(
      `      Typst: 1 document, ${doc.citations} citations, ${cited.length} entries, 0 errors, 0 mismatches (${Math.round(r.ms)} ms)`,
    );
  });

  for (const via of ['bibtex', 'biber'] as const) {
    const name = via === 'bibtex' ? 'pdflatex + BibTeX (natbib, plainnat)' : 'pdflatex + Biber (biblatex)';
    it(`${name}: every cite command and locator, joined citations; no error, no unresolved citation, every entry as given`, function () {
      needs(this, 'pdflatex', via, 'pandoc');
      const commands = via === 'bibtex' ? NATBIB : BIBLATEX;
      const compile = via === 'bibtex' ? compileBibtex : compileBiber;
      const doc = citeAll('\\section{Notes}\nText.', 'latex', latin[via], (i) => ({
        latexCommand: commands[i % commands.length],
        locator: LOCATORS[i % LOCATORS.length],
        join: i % 5 === 4,
      }));
      const r = compile({ document: latexDocument(via, [], doc.text), bib: texBib });
      assertNone(r.errors, 'errors');
      assert.deepEqual(r.unresolved, []);
      assertNone(mismatches(r, latin[via], via === 'bibtex'), 'rendered differences');
      // Scripts pdflatex's T1 fonts lack: their own document, errors counted; BibTeX and Biber still read them right.
      const rest = compile({
        document: latexDocument(
          via,
          beyond[via].map((c) => c.key),
        ),
        bib: texBib,
      });
      assert.deepEqual(rest.unresolved, []);
      assertNone(
        mismatches(rest, beyond[via], via === 'bibtex'),
        'rendered differences in the .bbl of the other scripts',
      );
      console.log(
        `      ${via}: ${doc.citations} citations of ${latin[via].length} entries, 0 errors, 0 mismatches; ${beyond[via].length} entries with letters beyond T1 fonts compiled apart: ${rest.errors.length} pdflatex errors (${Math.round(r.ms + rest.ms)} ms)`,
      );
    });
  }
});
