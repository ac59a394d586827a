import * as assert from 'node:assert/strict';
import { completionContext, findCitations, flavourOf, keyAt } from '../../../src/bib/syntax';
import {
  cheapFlavour,
  citationsPlausible,
  mayBeOnCiteKey,
  mayCompleteCitation,
  mayCite,
  mayHaveCitations,
  type CheapFlavour,
} from '../../../src/shared/citeTrigger';
import { mulberry32 } from '../../emulator/corpus';

const FLAVOURS: CheapFlavour[] = ['latex', 'pandoc', 'typst'];

/** Pieces random documents are built from: every character the citation rules care about. */
const PIECES = [
  '\\cite{',
  '\\citep[p.~4]{',
  '\\textcite[see][12]{',
  '\\nocite{',
  '\\cite',
  '}',
  '{',
  ',',
  ', ',
  ';',
  '; ',
  '[',
  ']',
  '[@',
  '@',
  '-@',
  '#cite(<',
  '>)',
  '<',
  '>',
  '(',
  ')',
  'smith2020',
  'doe_2021',
  'a',
  'Ké',
  ':',
  '.',
  '\n',
  '\n\n',
  ' ',
  'me@example.com',
  'x',
  '\\',
  '#',
  'p. 4',
  '---\nbibliography: refs.bib\n---\n',
  '\\citecite{',
  '\\cite[',
  '@a[p. [4]]',
  '#cite(<a>, supplement: [(x)])',
  '\r\n\r\n',
  '---\n',
  '@{DBLP:a/b}',
  '@{',
  '#cite(label("x/y"))',
  '#cite(label("q\\"r"), supplement: [p])',
  'label("',
];

function randomDoc(rand: () => number, pieces: number): string {
  let s = '';
  for (let i = 0; i < pieces; i++) s += PIECES[Math.floor(rand() * PIECES.length)]!;
  return s;
}

describe("citeTrigger (the entry bundle's cheap checks)", () => {
  it('maps languages and file names like flavourOf, without plain', () => {
    for (const [id, file] of [
      ['latex', ''],
      ['markdown', ''],
      ['quarto', ''],
      ['rmd', ''],
      ['typst', ''],
      ['plaintext', 'a.qmd'],
      ['plaintext', 'a.typ'],
      ['plaintext', 'b.tex'],
      ['plaintext', 'c.txt'],
      ['json', ''],
    ] as const) {
      const exact = flavourOf(id, file);
      assert.equal(cheapFlavour(id, file), exact === 'plain' ? undefined : exact, `${id} ${file}`);
    }
  });

  it('offers completion where the core would, and not in an e-mail address or plain text', () => {
    assert.equal(mayCompleteCitation('see \\cite{', 'latex'), true);
    assert.equal(mayCompleteCitation('see \\citep[p.~4]{smith,do', 'latex'), true);
    assert.equal(mayCompleteCitation('\\cite{a,\n  b', 'latex'), true);
    assert.equal(mayCompleteCitation('see \\cite{a} and', 'latex'), false);
    assert.equal(mayCompleteCitation('as shown [@', 'pandoc'), true);
    assert.equal(mayCompleteCitation('@', 'pandoc'), true);
    assert.equal(mayCompleteCitation('[@a; @sm', 'pandoc'), true);
    assert.equal(mayCompleteCitation('write to me@', 'pandoc'), false);
    assert.equal(mayCompleteCitation('write to me@exa', 'pandoc'), false);
    assert.equal(mayCompleteCitation('plain words', 'pandoc'), false);
    assert.equal(mayCompleteCitation('#cite(<', 'typst'), true);
    assert.equal(mayCompleteCitation('as @', 'typst'), true);
    assert.equal(mayCompleteCitation('mail a@b', 'typst'), false);
  });

  it("is a superset of the core's completionContext, keyAt and findCitations on random documents", () => {
    const rand = mulberry32(20261122);
    let contexts = 0;
    let keys = 0;
    let docs = 0;
    for (let n = 0; n < 400; n++) {
      const text = randomDoc(rand, 4 + Math.floor(rand() * 14));
      for (const flavour of FLAVOURS) {
        if (findCitations(text, flavour).length > 0) {
          docs++;
          // Links: the check may say yes more often, never no when there are citations (Pandoc: bracketed ones).
          const bracketed = flavour !== 'pandoc' || findCitations(text, flavour).some((c) => !c.bare);
          if (bracketed)
            assert.equal(mayHaveCitations(text, flavour), true, `${flavour} links: ${JSON.stringify(text)}`);
        }
        for (let offset = 0; offset <= text.length; offset++) {
          const before = text.slice(0, offset);
          if (completionContext(text, offset, flavour)) {
            contexts++;
            assert.equal(
              mayCompleteCitation(before, flavour),
              true,
              `${flavour} completion at ${offset}: ${JSON.stringify(text)}`,
            );
          }
          if (keyAt(text, offset, flavour)) {
            keys++;
            assert.equal(
              mayBeOnCiteKey(before, text.slice(offset), flavour),
              true,
              `${flavour} key at ${offset}: ${JSON.stringify(text)}`,
            );
          }
        }
      }
    }
    // The generator must actually reach the interesting cases.
    assert.ok(
      contexts > 500 && keys > 200 && docs > 100,
      `too few cases: ${contexts} contexts, ${keys} keys, ${docs} documents`,
    );
  });

  it('keeps hover and links away from text without citations', () => {
    assert.equal(mayBeOnCiteKey('see \\cite{a,sm', 'ith}', 'latex'), true);
    assert.equal(mayBeOnCiteKey('see \\ci', 'te{a}', 'latex'), false);
    assert.equal(mayBeOnCiteKey('[@a; @sm', 'ith]', 'pandoc'), true);
    assert.equal(mayBeOnCiteKey('me@exam', 'ple.com', 'pandoc'), false);
    assert.equal(mayHaveCitations('# Notes\n\nPing @alice about it.\n', 'pandoc'), false);
    assert.equal(mayHaveCitations('Shown before [@smith2020].', 'pandoc'), true);
    assert.equal(mayHaveCitations('---\ntitle: x\nbibliography: refs.bib\n---\nText @smith2020 says.', 'pandoc'), true);
    assert.equal(mayHaveCitations('No citations here.', 'latex'), false);
    assert.equal(mayHaveCitations('As \\citet{a} shows.', 'latex'), true);
    assert.equal(mayHaveCitations('Mail me@example.com.', 'typst'), false);
  });

  it('tells a document that cites, or declares a bibliography and cites nothing yet, from one that does not', () => {
    for (const [text, flavour] of [
      ['Intro.\n\\bibliography{refs}\n', 'latex'],
      ['\\addbibresource[label=main]{refs.bib}', 'latex'],
      ['\\addbibresource {refs.bib}', 'latex'],
      ['As \\citet{a} shows.', 'latex'],
      ['= Title\n#bibliography("refs.bib")', 'typst'],
      ['---\nbibliography: refs.bib\n---\nText.', 'pandoc'],
      ['Shown before [@smith2020].', 'pandoc'],
    ] as const)
      assert.equal(mayCite(text, flavour), true, `${flavour}: ${JSON.stringify(text)}`);
    for (const [text, flavour] of [
      ['Just text, \\emph{no} citations.', 'latex'],
      ['The bibliography{refs} of \\bibliographystyle{plain} alone.', 'latex'],
      ['= Title\nA bibliography(here).', 'typst'],
      ['# Notes\n\nPing @alice about it.\n', 'pandoc'],
      ['\\bibliography{refs}', 'pandoc'],
    ] as const)
      assert.equal(mayCite(text, flavour), false, `${flavour}: ${JSON.stringify(text)}`);
  });

  it('counts a bare Pandoc @ only where citations are plausible (before the core is loaded)', () => {
    const readme = '# Notes\n\nPing @al';
    assert.equal(
      citationsPlausible(readme, 'pandoc', '/w/README.md', () => readme),
      false,
    );
    assert.equal(
      citationsPlausible('As shown [see @al', 'pandoc', '/w/README.md', () => readme),
      true,
    );
    assert.equal(
      citationsPlausible('Ping @al', 'pandoc', '/w/ch1.qmd', () => 'Ping @al'),
      true,
    );
    const declared = '---\nbibliography: refs.bib\n---\n\n@al';
    assert.equal(
      citationsPlausible('@al', 'pandoc', '/w/notes.md', () => declared),
      true,
    );
    assert.equal(
      citationsPlausible('@al', 'pandoc', '/w/notes.md', () => 'Earlier [@smith2020].\n@al'),
      true,
    );
    assert.equal(
      citationsPlausible('@al', 'typst', '/w/a.typ', () => '@al'),
      true,
    );
    assert.equal(
      citationsPlausible('\\cite{', 'latex', '/w/a.tex', () => ''),
      true,
    );
  });
});
