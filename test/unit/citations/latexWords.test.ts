import * as assert from 'node:assert/strict';
import { parseBibFile } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { baseKey } from '../../../src/bib/keys';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { entryWords } from '../../../src/citations/citeIndex';
import { familyWords, textWords, WordBytes } from '../../../src/citations/latexWords';
import { getCorpus, mulberry32 } from '../../emulator/corpus';
import { corpusCitePaper } from '../bib/corpusPaper';
import {
  displayLatexReference,
  familiesReference,
  LATEX_PIECES,
  randomLatex,
  wordsReference,
} from './displayReference';

const joined = (words: readonly string[]): string => words.map((w) => ` ${w}`).join('');
/** The words of a title, and of an author list's family names, every step of the display run. */
const titleReference = (raw: string): string => joined(wordsReference(displayLatexReference(raw)));
const namesReference = (raw: string): string => joined(familiesReference(raw).flatMap(wordsReference));

/** What the one-pass reader writes, or undefined where it hands the field back. */
function fast(read: typeof textWords, raw: string): string | undefined {
  const out = new WordBytes();
  out.add(120); // a word before, which the field's words must not join
  const from = out.length;
  if (!read(raw, out)) {
    assert.equal(out.length, from, 'nothing written when handed back');
    return undefined;
  }
  return out.string(from);
}

/** The forms writers' files are made of (ours and Zotero's), and what looks like them but reads otherwise. */
const PIECES = [
  ...LATEX_PIECES,
  "{\\'{e}}",
  '{\\c{S}}',
  '\\c {e}',
  '\\c{e',
  '\\c c',
  '{\\c c}',
  '{\\v Z}',
  '\\v{\\i}',
  "\\'\\i ",
  "\\'\\in",
  "\\' {  e } ",
  "\\'e x",
  "\\'e\u0301",
  "\\'e\u0301 ",
  "\\'{\\o}",
  '\\={u}',
  '\\.{Z}',
  '\\~{ê}',
  '\\d{ă}',
  '\\u{\\d a}',
  '{\\cyrchar\\CYRK}{\\cyrchar\\cyro}',
  '\\acute{\\alpha}',
  '\\textbraceleft}',
  '\\textasciitilde{}',
  '\\textbackslash{}',
  '\\textless{}',
  '\\TeX{}book',
  '\\o x',
  '\\constructor',
  '\\toString{}',
  '\\&{}',
  '\\{{}',
  '\\',
  '\u037e',
  '\u2000',
  'e\u0301',
  ' and ',
  ', ',
  'Anna',
  'von',
];

describe('citations/latexWords (completion words read from raw LaTeX in one pass)', () => {
  it('gives the words of the display text, and of each family name, wherever it reads a field (random LaTeX)', () => {
    const rnd = mulberry32(20261127);
    let read = 0;
    const runs = 30_000;
    for (let i = 0; i < runs; i++) {
      const raw = randomLatex(rnd, 1 + Math.floor(rnd() * 12), PIECES);
      const title = fast(textWords, raw);
      if (title !== undefined) {
        read++;
        assert.equal(title, titleReference(raw), `title ${JSON.stringify(raw)}`);
      }
      const names = fast(familyWords, raw);
      assert.equal(names === undefined, title === undefined, 'the same forms are read in both');
      if (names !== undefined) assert.equal(names, namesReference(raw), `names ${JSON.stringify(raw)}`);
    }
    // Most random values hold a form handed back (a lone backslash, a nested accent); enough are read to tell.
    assert.ok(read > runs / 4, `read ${read} of ${runs}`);
  });

  it("reads every title and name of Research Desk's own entries (the hostile corpus) in one pass, with the same words", async () => {
    await loadBibtexLibrary();
    const papers = getCorpus().map(corpusCitePaper);
    const file = parseBibFile(papers.map((p, i) => toBibtex(p, `${baseKey(p)}${i}`)).join('\n\n'));
    assert.equal(file.entries.length, papers.length);
    for (const e of file.entries) {
      const title = e.raw['title'] ?? '';
      const names = e.raw['author'] ?? '';
      assert.equal(fast(textWords, title), titleReference(title), title);
      assert.equal(fast(familyWords, names), namesReference(names), names);
      assert.equal(entryWords(e), namesReference(names) + titleReference(title));
    }
  });

  it('an entry with a form read the long way has the same words (editors when there are no authors)', () => {
    const [e] = parseBibFile(
      String.raw`@book{k, editor = {Nguy{\~{\^e}}n, V{\u{a}}n and Smith, A}, title = {A \'{\o} b \\ c}}`,
    ).entries;
    assert.equal(fast(familyWords, e!.raw['editor']!), undefined);
    assert.equal(fast(textWords, e!.raw['title']!), undefined);
    assert.equal(entryWords(e!), ' nguyen smith a o b c');
  });

  it('NFC changes no separator, white space or comma but for U+037E (why the reader need not compose accents)', () => {
    const separator = /[\s\-‐–—/:;,.!?()[\]{}"“”'’]/u;
    const kind = (c: string): string => `${separator.test(c)} ${/\s/u.test(c)} ${c === ','}`;
    const plain = kind('a');
    const changed: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCharCode(c);
      const nfc = s.normalize('NFC');
      // A separator must stay the same kind of separator, anything else must hold none.
      if (
        nfc !== s &&
        !(separator.test(s) ? nfc.length === 1 && kind(nfc) === kind(s) : [...nfc].every((x) => kind(x) === plain))
      )
        changed.push(c);
      // Nor may NFC compose a separator with the mark after it.
      const nfd = s.normalize('NFD');
      if (nfd.length > 1 && separator.test(nfd[0]!) && nfd.normalize('NFC') === s) changed.push(c);
    }
    assert.deepEqual(changed, [0x37e]);
  });
});
