/**
 * The evidence table's exports as a real reader reads them: pandoc with citeproc renders a document whose
 * bibliography is the CSL-JSON export, and one whose bibliography is the BibTeX export, of the toolchain suite's papers
 * (every hostile title and name form of the emulator's corpus, and the papers the service may send with no DOI,
 * journal, year or authors). Every entry must be there, with no error or warning, showing the service's title,
 * authors, journal, year and DOI. pandoc reads CSL-JSON as CSL rich text: `<i>`, `<sup>`, `<sub>` are formatting and
 * straight quotes typographic quotes, so those two are compared as such and nothing else is forgiven. (RIS has no
 * reader packaged for Debian: test/unit/bib/exports.test.ts holds it to the specification and citation.js's reader.)
 */
import * as assert from 'node:assert/strict';
import { exportKeys, exportPapers, type ExportablePaper } from '../../src/bib/exportPapers';
import { normaliseDoi, yearOf } from '../../src/bib/bibtex';
import { displayOrder, sameText } from './documents';
import { corpusSample, toolchainPapers } from './papers';
import { compilePandoc, needs, tools, type CompileResult } from './toolchains';
import { corpusCitePaper } from '../unit/bib/corpusPaper';

const SUPERSCRIPTS: Record<string, string> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁺': '+',
  '⁻': '−',
  '₀': '0',
  '₁': '1',
  '₂': '2',
  '₃': '3',
  '₄': '4',
  '₅': '5',
  '₆': '6',
  '₇': '7',
  '₈': '8',
  '₉': '9',
};

/**
 * Text as CSL rich text reads it: formatting tags gone (pandoc's plain text sets `<sup>2</sup>` as ², which maps back),
 * every quotation mark one character (CSL turns straight quotes into typographic ones and alternates nested ones).
 */
const richText = (s: string): string =>
  s
    .replace(/<\/?(?:i|b|sup|sub|span)\b[^>]*>/gu, '')
    .replace(/[⁰¹²³⁴-⁹⁺⁻₀-₉]/gu, (c) => SUPERSCRIPTS[c] ?? c)
    .replace(/[“”‘’"']/gu, "'");

function papers(): ExportablePaper[] {
  return [
    ...corpusSample().papers.map((p) => ({ ...corpusCitePaper(p), abstract: p.abstract })),
    ...toolchainPapers().map((t) => t.paper),
  ];
}

/** What pandoc rendered differently from the service's metadata. */
function mismatches(
  r: CompileResult,
  list: readonly ExportablePaper[],
  keys: readonly string[],
  csl: boolean,
): string[] {
  const text = csl ? richText : (s: string): string => s;
  const out: string[] = [];
  list.forEach((p, i) => {
    const key = keys[i]!;
    const e = r.entries.get(key);
    if (!e) return void out.push(`${key}: not in the bibliography`);
    if (p.title?.trim() && !sameText(text(e.title), text(p.title), { title: true }))
      out.push(`${key}: title ${JSON.stringify(e.title)} for ${JSON.stringify(p.title)}`);
    const authors = (p.authors ?? []).filter((a) => a.trim()).map(displayOrder);
    if (authors.length !== e.authors.length || authors.some((a, j) => !sameText(text(e.authors[j]!), text(a))))
      out.push(`${key}: authors ${JSON.stringify(e.authors)} for ${JSON.stringify(authors)}`);
    const journal = p.is_preprint ? undefined : p.journal_name?.trim() || undefined;
    if (journal !== undefined && !sameText(text(e.journal ?? ''), text(journal)))
      out.push(`${key}: journal ${JSON.stringify(e.journal)} for ${JSON.stringify(journal)}`);
    const year = yearOf(p);
    if ((year === undefined ? undefined : String(year)) !== e.year) out.push(`${key}: year ${e.year} for ${year}`);
    const doi = normaliseDoi(p.doi);
    if (doi !== undefined && e.doi?.toLowerCase() !== doi) out.push(`${key}: DOI ${e.doi} for ${doi}`);
  });
  return out;
}

const DOCUMENT = '---\nnocite: "@*"\n---\n\nEvery entry of the bibliography.\n';

describe(`toolchains: the evidence table's exports read by pandoc (${tools.pandoc ?? 'pandoc not installed'})`, function () {
  this.timeout(300_000);
  const list = papers();
  const keys = exportKeys(list);

  it('CSL-JSON: pandoc --citeproc renders every entry with its title, authors, journal, year and DOI', function () {
    needs(this, 'pandoc');
    const r = compilePandoc({ document: DOCUMENT, bib: exportPapers(list, 'csl-json'), bibExtension: 'json' });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.entries.size, list.length);
    const bad = mismatches(r, list, keys, true);
    assert.deepEqual(bad.slice(0, 20), [], `${bad.length} differences`);
    console.log(`      pandoc read ${r.entries.size} CSL-JSON items, 0 differences (${Math.round(r.ms)} ms)`);
  });

  it('BibTeX: pandoc --citeproc renders every entry with its title, authors, journal, year and DOI', function () {
    needs(this, 'pandoc');
    const r = compilePandoc({ document: DOCUMENT, bib: exportPapers(list, 'bibtex') });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.entries.size, list.length);
    const bad = mismatches(r, list, keys, false);
    assert.deepEqual(bad.slice(0, 20), [], `${bad.length} differences`);
    console.log(`      pandoc read ${r.entries.size} BibTeX entries, 0 differences (${Math.round(r.ms)} ms)`);
  });
});
