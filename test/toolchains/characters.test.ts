/**
 * Every character the BibTeX writer may meet, written by `toBibtex` and read back by the programs writers compile
 * with: pandoc (citeproc), pdflatex with BibTeX (natbib) and with Biber (biblatex), and Typst. One entry per
 * character, in a title (after the first word, so no style's sentence-casing touches it) and, for letters, in both
 * parts of a name. Each program must show the character itself; pdflatex must typeset every character `texText` does
 * not declare beyond its T1 fonts (`pdflatexCannot`), and those it does declare are compiled apart and counted, so a
 * character wrongly declared typesettable fails here and one wrongly declared impossible shows in the count.
 */
import * as assert from 'node:assert/strict';
import { pdflatexCannotTypeset, toBibtex, type CitablePaper } from '../../src/bib/bibtex';
import { loadBibtexLibrary } from '../../src/bib/library';
import { TEX_TABLES } from '../../src/bib/texTables';
import {
  compileBiber,
  compileBibtex,
  compilePandoc,
  compileTypst,
  needs,
  norm,
  tools,
  typstBibliography,
  type CompileResult,
} from './toolchains';
import { latexDocument, sameText } from './documents';

/**
 * The characters: ASCII, the Latin blocks, Greek, punctuation and symbols, the math table, and samples of other
 * scripts.
 */
function characters(): string[] {
  const out = new Set<string>();
  const range = (a: number, b: number): void => {
    for (let c = a; c <= b; c++) {
      const ch = String.fromCodePoint(c);
      // Assigned, visible characters only (no controls, format characters, unassigned or combining-only points).
      if (/^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch)) out.add(ch);
    }
  };
  range(0x21, 0x7e);
  range(0xa1, 0x24f);
  range(0x370, 0x3ff);
  range(0x1e00, 0x1eff);
  range(0x2010, 0x203a);
  range(0x20a0, 0x20bf);
  range(0x2100, 0x214f);
  range(0x2190, 0x2199);
  for (const c of Object.keys(TEX_TABLES.math)) out.add(c);
  out.add('−');
  for (const s of ['Ж', 'я', 'Ї', '李', 'ひ', 'カ', '한', 'ب', 'ש', 'क', 'ก', 'Ա', 'ა']) out.add(s);
  return [...out];
}

const isLetter = (c: string): boolean => /^\p{L}$/u.test(c);

interface Case {
  key: string;
  char: string;
  paper: CitablePaper;
}

/** A different family name per entry (BibTeX styles give 2020a, 2020b… to one author's papers, and run out). */
const family = (i: number): string =>
  `Bob${i.toString(26).replace(/./gu, (d) => String.fromCharCode(97 + parseInt(d, 26)))}`;

function cases(): Case[] {
  return characters().map((char, i) => {
    const key = `c${i}x${char.codePointAt(0)!.toString(16)}`;
    const paper: CitablePaper = {
      title: `word x${char} ${char} y${char}${char}z`,
      journal_name: 'Journal',
      publish_year: 2020,
    };
    paper.authors = [isLetter(char) ? `Ann${char}e ${family(i)}${char}` : `Ann ${family(i)}`];
    return { key, char, paper };
  });
}

/** What a toolchain got wrong: entries missing or whose title or authors differ. */
function mismatches(r: CompileResult, all: readonly Case[], authorsJoined = false): string[] {
  const out: string[] = [];
  for (const c of all) {
    const e = r.entries.get(c.key);
    if (!e) {
      out.push(`${c.char} (U+${c.char.codePointAt(0)!.toString(16)}): no entry`);
      continue;
    }
    if (!sameText(e.title, c.paper.title!, { title: true })) out.push(`${c.char}: title ${JSON.stringify(e.title)}`);
    const authors = authorsJoined ? [c.paper.authors!.join(' and ')] : c.paper.authors!;
    const got = e.authors.map((a) => norm(a));
    if (got.length !== authors.length || authors.some((a, i) => !sameText(got[i]!, a)))
      out.push(`${c.char}: authors ${JSON.stringify(e.authors)}`);
  }
  return out;
}

/** No differences, or all of them in the message. */
const assertNone = (list: readonly string[], what = 'differences'): void =>
  assert.equal(list.length, 0, `${list.length} ${what}:\n${list.join('\n')}`);

const missing = Object.entries(tools)
  .filter(([, v]) => !v)
  .map(([k]) => k);

describe(`toolchains: every character through pandoc, BibTeX, Biber and Typst (${missing.length ? `missing: ${missing.join(', ')}` : 'all installed'})`, function () {
  this.timeout(300_000);
  let all: Case[] = [];
  let texBib = '';
  let unicodeBib = '';

  before(async function () {
    if (missing.length) {
      console.log(`      not installed: ${missing.join(', ')} — their checks are skipped`);
    }
    await loadBibtexLibrary();
    all = cases();
    texBib = `${all.map((c) => toBibtex(c.paper, c.key)).join('\n\n')}\n`;
    unicodeBib = `${all.map((c) => toBibtex(c.paper, c.key, { target: 'unicode' })).join('\n\n')}\n`;
  });

  it('pandoc shows every character as itself', function () {
    needs(this, 'pandoc');
    const r = compilePandoc({ document: `---\nnocite: '@*'\n---\n\nText.\n`, bib: texBib });
    assert.deepEqual(r.errors, []);
    assertNone(mismatches(r, all));
    console.log(
      `      pandoc: ${all.length} characters, ${r.entries.size} entries, 0 mismatches, ${Math.round(r.ms)} ms`,
    );
  });

  it('Typst shows every character as itself (the form written for Typst)', function () {
    needs(this, 'typst');
    const r = compileTypst({
      document: `${all.map((c) => `#cite(<${c.key}>, form: none)`).join('\n')}${typstBibliography()}`,
      bib: unicodeBib,
    });
    assert.deepEqual(r.errors, []);
    assertNone(mismatches(r, all));
    console.log(`      Typst: ${all.length} characters, 0 mismatches, ${Math.round(r.ms)} ms`);
  });

  for (const via of ['bibtex', 'biber'] as const) {
    it(`pdflatex with ${via === 'bibtex' ? 'BibTeX (natbib)' : 'Biber (biblatex)'} typesets every character not declared beyond T1, and its .bbl reads back as itself`, function () {
      needs(this, 'pdflatex', via, 'pandoc');
      const compile = via === 'bibtex' ? compileBibtex : compileBiber;
      const cannot = all.filter((c) => pdflatexCannotTypeset(c.paper, via).length);
      const can = all.filter((c) => !cannot.includes(c));
      const ok = compile({
        document: latexDocument(
          via,
          can.map((c) => c.key),
        ),
        bib: texBib,
      });
      assertNone(ok.errors, 'characters declared typesettable did not typeset');
      assert.deepEqual(ok.unresolved, []);
      assertNone(mismatches(ok, can, via === 'bibtex'));
      const rest = compile({
        document: latexDocument(
          via,
          cannot.map((c) => c.key),
        ),
        bib: texBib,
      });
      const restText = via === 'biber' ? mismatches(rest, cannot) : [];
      assertNone(restText, 'Biber must still read them right');
      console.log(
        `      ${via}: ${can.length} characters typeset with 0 errors; ${cannot.length} beyond T1 fonts (${cannot.map((c) => c.char).join('')}), ${rest.errors.length} pdflatex errors there; ${Math.round(ok.ms + rest.ms)} ms`,
      );
    });
  }
});
