import * as assert from 'node:assert/strict';
import { displayLatex } from '../../../src/citations/display';
import { TEX_TABLES } from '../../../src/bib/texTables';
import { texText } from '../../../src/bib/texText';

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
});
