import * as assert from 'node:assert/strict';
import { applyEdits } from '../../../src/cite/edit';
import { citationAt, citedKeys, completionContext, findCitations, flavourOf, formatCitation, insertCitation, keyAt, type CiteFlavour, type CiteOptions } from '../../../src/cite/syntax';

/** Insert `key` at the `|` in `doc`; returns the new text. */
function cite(doc: string, flavour: CiteFlavour, key: string, options: CiteOptions & { reference?: string } = {}): string {
  const offset = doc.indexOf('|');
  const text = doc.replace('|', '');
  return applyEdits(text, [insertCitation(text, offset, flavour, key, options).edit]);
}

describe('cite/syntax', () => {
  it('maps language ids (and file names) to a flavour', () => {
    assert.equal(flavourOf('latex'), 'latex');
    assert.equal(flavourOf('markdown'), 'pandoc');
    assert.equal(flavourOf('quarto'), 'pandoc');
    assert.equal(flavourOf('rmd'), 'pandoc');
    assert.equal(flavourOf('typst'), 'typst');
    assert.equal(flavourOf('plaintext'), 'plain');
    assert.equal(flavourOf('unknown', '/a/paper.qmd'), 'pandoc');
    assert.equal(flavourOf('unknown', 'x.typ'), 'typst');
    assert.equal(flavourOf('unknown', 'x.tex'), 'latex');
  });

  it('formats new citations with the configured command and a locator', () => {
    assert.equal(formatCitation('latex', ['a']), '\\cite{a}');
    assert.equal(formatCitation('latex', ['a', 'b'], { latexCommand: 'parencite' }), '\\parencite{a,b}');
    assert.equal(formatCitation('latex', ['a'], { latexCommand: 'citep', locator: '4' }), '\\citep[p.~4]{a}');
    assert.equal(formatCitation('latex', ['a'], { locator: '4-7' }), '\\cite[pp.~4--7]{a}');
    assert.equal(formatCitation('pandoc', ['a', 'b']), '[@a; @b]');
    assert.equal(formatCitation('pandoc', ['a'], { locator: '4' }), '[@a, p. 4]');
    assert.equal(formatCitation('pandoc', ['a'], { locator: 'chap. 2' }), '[@a, chap. 2]');
    assert.equal(formatCitation('typst', ['a', 'b']), '@a @b');
    assert.equal(formatCitation('typst', ['a'], { locator: '4' }), '@a[p. 4]');
    assert.equal(formatCitation('typst', ['a'], { typstForm: 'function', locator: '4' }), '#cite(<a>, supplement: [p. 4])');
  });

  it('LaTeX: extends \\cite{a} from inside or right after; keeps optional arguments; new citation elsewhere', () => {
    assert.equal(cite('See \\cite{a|}.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\cite{a}|.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\cite{|a}.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\citep[see][p. 4]{a, c}|', 'latex', 'b'), 'See \\citep[see][p. 4]{a, c,b}');
    assert.equal(cite('See \\autocite{}|', 'latex', 'b'), 'See \\autocite{b}');
    assert.equal(cite('See \\cite{a,\n  b}| and', 'latex', 'c'), 'See \\cite{a,\n  b,c} and', 'multi-line');
    assert.equal(cite('See \\cite{a} |', 'latex', 'b', { latexCommand: 'citet' }), 'See \\cite{a} \\citet{b}', 'after a space: a new citation');
    assert.equal(cite('See \\cite{a}|', 'latex', 'b', { locator: '4' }), 'See \\cite{a}\\cite[p.~4]{b}', 'a locator needs its own citation');
    assert.equal(cite('|', 'latex', 'b'), '\\cite{b}');
  });

  it('reports a key already in the citation with an empty edit', () => {
    const r = insertCitation('\\cite{a,b}', 7, 'latex', 'b');
    assert.equal(r.already, true);
    assert.equal(r.edit.text, '');
  });

  it('Pandoc: [@a] → [@a; @b], locators kept and added, links and e-mails are not citations', () => {
    assert.equal(cite('As shown [@a]|.', 'pandoc', 'b'), 'As shown [@a; @b].');
    assert.equal(cite('As shown [@a, p. 4|].', 'pandoc', 'b', { locator: '7' }), 'As shown [@a, p. 4; @b, p. 7].');
    assert.equal(cite('As shown [see @a;\n@c]|', 'pandoc', 'b'), 'As shown [see @a;\n@c; @b]');
    assert.equal(cite('Text |', 'pandoc', 'b'), 'Text [@b]');
    assert.equal(cite('@a| says', 'pandoc', 'b'), '@a [@b] says', 'an in-text citation is not extended');
    assert.equal(keyAt('As @smith2020 says', 6, 'pandoc')?.key, 'smith2020');
    assert.equal(cite('Text|', 'pandoc', 'b'), 'Text [@b]', 'never glued to a word');
    assert.equal(cite('[a link](https://x.org)|', 'pandoc', 'b'), '[a link](https://x.org)[@b]');
    assert.equal(cite('[mail me@example.org]|', 'pandoc', 'b'), '[mail me@example.org][@b]', 'e-mail in brackets is no citation');
    assert.deepEqual(findCitations('write to a@b.org or [@k1; -@k2, p. 3]', 'pandoc').map((c) => c.keys.map((k) => k.key)), [['k1', 'k2']]);
  });

  it('Typst: @a → @a @b, #cite(<a>) forms, no citation inside an e-mail', () => {
    assert.equal(cite('As shown @a|.', 'typst', 'b'), 'As shown @a @b.');
    assert.equal(cite('As shown #cite(<a>)|.', 'typst', 'b', { typstForm: 'function' }), 'As shown #cite(<a>) #cite(<b>).');
    assert.equal(cite('Mail a@b.org|', 'typst', 'c'), 'Mail a@b.org @c');
    assert.deepEqual(findCitations('Mail a@b.org, see @smith2020. And @k[p. 4]', 'typst').map((c) => c.keys[0]!.key), ['smith2020', 'k']);
  });

  it('plain: inserts the formatted reference given by the caller', () => {
    assert.equal(cite('Text |end', 'plain', 'k', { reference: '(Smith, 2020)' }), 'Text (Smith, 2020)end');
  });

  it('finds the key under the cursor in multi-key and multi-line citations', () => {
    const t = 'See \\citep[p. 2]{alpha,\n   beta , gamma} and [@x]';
    assert.equal(keyAt(t, t.indexOf('beta') + 2, 'latex')?.key, 'beta');
    assert.equal(keyAt(t, t.indexOf('gamma'), 'latex')?.key, 'gamma');
    assert.equal(keyAt(t, 2, 'latex'), undefined);
    const c = citationAt(t, t.indexOf('alpha'), 'latex')!;
    assert.deepEqual(c.keys.map((k) => t.slice(k.start, k.end)), ['alpha', 'beta', 'gamma']);
    const p = 'Known [@a; @bee, p. 3] result';
    assert.equal(keyAt(p, p.indexOf('bee') + 1, 'pandoc')?.key, 'bee');
  });

  it('lists the keys a document cites, once each', () => {
    assert.deepEqual(citedKeys('\\cite{a,b} x \\citep[p. 2]{b, c} \\nocite{d}', 'latex'), ['a', 'b', 'c', 'd']);
    assert.deepEqual(citedKeys('[@a; @b] mail x@y.org @c says', 'pandoc'), ['a', 'b', 'c']);
    assert.deepEqual(citedKeys('@a and #cite(<b>) mail x@y.org', 'typst'), ['a', 'b']);
  });

  it('offers completion inside \\cite{ and after [@ / @, not after a word (e-mail)', () => {
    const at = (doc: string, fl: CiteFlavour) => completionContext(doc.replace('|', ''), doc.indexOf('|'), fl);
    assert.deepEqual(at('\\cite{ab|', 'latex'), { prefix: 'ab', start: 6 });
    assert.deepEqual(at('\\citep[p. 4]{a, sm|', 'latex'), { prefix: 'sm', start: 16 });
    assert.equal(at('\\section{ab|', 'latex'), undefined);
    assert.deepEqual(at('text [@|', 'pandoc'), { prefix: '', start: 7 });
    assert.deepEqual(at('text [@a; @sm|', 'pandoc'), { prefix: 'sm', start: 11 });
    assert.deepEqual(at('text @sm|', 'pandoc'), { prefix: 'sm', start: 6 });
    assert.equal(at('mail me@exa|', 'pandoc'), undefined);
    assert.equal(at('mail me@exa|', 'typst'), undefined);
    assert.deepEqual(at('see @sm|', 'typst'), { prefix: 'sm', start: 5 });
    assert.deepEqual(at('#cite(<sm|', 'typst'), { prefix: 'sm', start: 7 });
    assert.equal(at('plain @x|', 'plain'), undefined);
  });
});
