import * as assert from 'node:assert/strict';
import { displayLatex } from '../../../src/citations/display';
import { TEX_TABLES } from '../../../src/bib/texTables';
import { texText } from '../../../src/bib/texText';
import { oneLine } from '../../../src/shared/plainText';
import { mulberry32 } from '../../emulator/corpus';
import { displayLatexReference, oneLineReference, randomLatex } from './displayReference';

describe('citations/display', () => {
  it('accents, letter macros, escapes, braces, dashes and math as readable text', () => {
    assert.equal(displayLatex('Sandk{\\"u}hler and M\\"uller'), 'Sandkühler and Müller');
    assert.equal(displayLatex("{\\TH}{\\'o}rsson, {\\'O}lafur"), 'Þórsson, Ólafur');
    assert.equal(displayLatex('Na{\\"\\i}ve {\\o}l \\c{c}a \\v{s}ko'), 'Naïve øl ça ško');
    assert.equal(displayLatex('The {\\TeX}book'), 'The TeXbook');
    assert.equal(displayLatex('Sleep \\& memory\\_a 50\\% \\{set\\} \\~{}x'), 'Sleep & memory_a 50% {set} ~x');
    assert.equal(displayLatex('{DNA} in {mRNA}: 1--2, a---b'), 'DNA in mRNA: 1–2, a—b');
    assert.equal(displayLatex('Effect of $\\alpha$-synuclein\n   on   \\emph{mice}'), 'Effect of α-synuclein on mice');
    assert.equal(displayLatex('Hello~world'), 'Hello world');
    // Unknown macros read as nothing, those named like an object's properties too.
    assert.equal(displayLatex('a \\relax{}b \\constructor c\\toString{}'), 'a b c');
    // A tilde or circumflex accent is not the escaped character: only `\~{}` / `\^{}` are.
    assert.equal(
      displayLatex('Espa\\~na, Espa{\\~n}a, Espa\\~{n}a, Cr\\^ete, 2\\^{}3'),
      'España, España, España, Crête, 2^3',
    );
  });

  it('reads back every character as texText writes it, in text and in names (what the Quick Pick shows of our own entries)', () => {
    const chars: string[] = [];
    for (const [a, b] of [
      [0x21, 0x7e],
      [0xa1, 0x17f],
      [0x1e00, 0x1eff],
      [0x2010, 0x203a],
    ] as const) {
      for (let c = a; c <= b; c++)
        if (/^[\p{L}\p{N}\p{P}\p{S}]$/u.test(String.fromCodePoint(c))) chars.push(String.fromCodePoint(c));
    }
    chars.push(...Object.keys(TEX_TABLES.math), 'Иван', '李伟', 'Ελένη');
    const wrong = chars.filter((c) => {
      const s = `x${c} ${c} y${c}${c}z`;
      return (
        displayLatex(texText(s)) !== s.normalize('NFC') ||
        displayLatex(texText(s, 'tex', 'name')) !== s.normalize('NFC')
      );
    });
    assert.deepEqual(wrong, []);
  });
  it('skips only steps that cannot change the text: the same as running every step (random LaTeX, hostile pieces)', () => {
    const rnd = mulberry32(20260611);
    for (let i = 0; i < 20_000; i++) {
      const raw = randomLatex(rnd, 1 + Math.floor(rnd() * 12));
      assert.equal(displayLatex(raw), displayLatexReference(raw), JSON.stringify(raw));
      assert.equal(oneLine(raw), oneLineReference(raw), JSON.stringify(raw));
    }
  });

  it('a text of characters below U+0300 is in NFC already (every character and every pair)', () => {
    for (let a = 0; a < 0x300; a++) {
      const x = String.fromCharCode(a);
      assert.equal(x.normalize('NFC'), x);
      for (let b = 0; b < 0x300; b++) {
        const xy = x + String.fromCharCode(b);
        if (xy.normalize('NFC') !== xy) assert.fail(`U+${a.toString(16)} U+${b.toString(16)} is not NFC`);
      }
    }
  });
});
