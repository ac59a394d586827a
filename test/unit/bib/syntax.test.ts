import * as assert from 'node:assert/strict';
import { applyEdits } from '../../../src/bib/edit';
import {
  citationAt,
  citedKeys,
  completionContext,
  findCitations,
  flavourOf,
  formatCitation,
  insertCitation,
  keyAt,
  type CiteFlavour,
  type CiteOptions,
} from '../../../src/bib/syntax';

/**
 * Cite `keys` at the `|` one after the other, each joining the citation the previous one wrote (as Insert Citation
 * does).
 */
function citeAll(doc: string, flavour: CiteFlavour, keys: string[], options: CiteOptions = {}): string {
  let text = doc.replace('|', '');
  let at = doc.indexOf('|');
  for (const key of keys) {
    const r = insertCitation(text, at, flavour, key, options);
    text = applyEdits(text, [r.edit]);
    at = r.end;
  }
  return text;
}

/** Insert `key` at the `|` in `doc`; returns the new text. */
function cite(
  doc: string,
  flavour: CiteFlavour,
  key: string,
  options: CiteOptions & { reference?: string } = {},
): string {
  const offset = doc.indexOf('|');
  const text = doc.replace('|', '');
  return applyEdits(text, [insertCitation(text, offset, flavour, key, options).edit]);
}

describe('bib/syntax', () => {
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
    assert.equal(
      formatCitation('typst', ['a'], { typstForm: 'function', locator: '4' }),
      '#cite(<a>, supplement: [p. 4])',
    );
  });

  it('LaTeX: extends \\cite{a} from inside or right after; keeps optional arguments; new citation elsewhere', () => {
    assert.equal(cite('See \\cite{a|}.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\cite{a}|.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\cite{|a}.', 'latex', 'b'), 'See \\cite{a,b}.');
    assert.equal(cite('See \\citep[see][p. 4]{a, c}|', 'latex', 'b'), 'See \\citep[see][p. 4]{a, c,b}');
    assert.equal(cite('See \\autocite{}|', 'latex', 'b'), 'See \\autocite{b}');
    assert.equal(cite('See \\cite{a,\n  b}| and', 'latex', 'c'), 'See \\cite{a,\n  b,c} and', 'multi-line');
    assert.equal(
      cite('See \\cite{a} |', 'latex', 'b', { latexCommand: 'citet' }),
      'See \\cite{a}~\\citet{b}',
      'after a space: a new citation (tied)',
    );
    assert.equal(
      cite('See \\cite{a}|', 'latex', 'b', { locator: '4' }),
      'See \\cite{a}~\\cite[p.~4]{b}',
      'a locator needs its own citation',
    );
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
    assert.equal(cite('[a link](https://x.org)|', 'pandoc', 'b'), '[a link](https://x.org) [@b]');
    assert.equal(
      cite('[mail me@example.org]|', 'pandoc', 'b'),
      '[mail me@example.org] [@b]',
      'e-mail in brackets is no citation (and [x][@b] would be a reference link)',
    );
    assert.deepEqual(
      findCitations('write to a@b.org or [@k1; -@k2, p. 3]', 'pandoc').map((c) => c.keys.map((k) => k.key)),
      [['k1', 'k2']],
    );
  });

  it('Typst: @a → @a @b, #cite(<a>) forms, no citation inside an e-mail', () => {
    assert.equal(cite('As shown @a|.', 'typst', 'b'), 'As shown @a @b.');
    assert.equal(
      cite('As shown #cite(<a>)|.', 'typst', 'b', { typstForm: 'function' }),
      'As shown #cite(<a>) #cite(<b>).',
    );
    assert.equal(cite('Mail a@b.org|', 'typst', 'c'), 'Mail a@b.org @c');
    assert.deepEqual(
      findCitations('Mail a@b.org, see @smith2020. And @k[p. 4]', 'typst').map((c) => c.keys[0]!.key),
      ['smith2020', 'k'],
    );
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
    assert.deepEqual(
      c.keys.map((k) => t.slice(k.start, k.end)),
      ['alpha', 'beta', 'gamma'],
    );
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

  describe('a new citation is set apart from the text around it as each format reads it', () => {
    it('Typst: never glued to a following word, label character or supplement (Typst would read another key)', () => {
      assert.equal(
        cite('As shown by |memory research', 'typst', 'smith2020'),
        'As shown by @smith2020 memory research',
      );
      assert.deepEqual(citedKeys(cite('As shown by |memory research', 'typst', 'smith2020'), 'typst'), ['smith2020']);
      assert.equal(cite('|memory', 'typst', 'k'), '@k memory', 'start of a line');
      assert.equal(cite('vor |Müller', 'typst', 'k'), 'vor @k Müller', 'any letter continues a label');
      assert.equal(cite('the |-based view', 'typst', 'k'), 'the @k -based view', '`-` continues a label');
      assert.equal(cite('the |_x', 'typst', 'k'), 'the @k _x', '`_` continues a label');
      assert.equal(cite('the |.NET way', 'typst', 'k'), 'the @k .NET way', '`.` then a letter continues a label');
      assert.equal(cite('see |:x', 'typst', 'k'), 'see @k :x', '`:` then a letter continues a label');
      assert.equal(
        cite('see |[the appendix]', 'typst', 'k'),
        'see @k [the appendix]',
        'a bracket right after `@k` is its supplement',
      );
      assert.equal(cite('Shown|.', 'typst', 'k'), 'Shown @k.', 'a trailing `.` is not part of a label');
      assert.equal(cite('Shown|: so', 'typst', 'k'), 'Shown @k: so', 'nor a trailing `:`');
      assert.equal(cite('Shown|, so', 'typst', 'k'), 'Shown @k, so');
      assert.equal(cite('(|)', 'typst', 'k'), '(@k)', 'nothing after an opening bracket');
      assert.equal(cite('done,|', 'typst', 'k'), 'done, @k', 'a space after punctuation');
      assert.equal(
        cite('see |memory', 'typst', 'k', { locator: '4' }),
        'see @k[p. 4] memory',
        'a supplement ends the reference; a space before the word',
      );
    });

    it('Typst #cite(): a space before what would be a call, an argument or a field; `;` before a `;`', () => {
      const fn = { typstForm: 'function' } as const;
      assert.equal(cite('as |(see above)', 'typst', 'k', fn), 'as #cite(<k>) (see above)');
      assert.equal(cite('as |[more]', 'typst', 'k', fn), 'as #cite(<k>) [more]');
      assert.equal(cite('as |.field', 'typst', 'k', fn), 'as #cite(<k>) .field');
      assert.equal(
        cite('as |; then', 'typst', 'k', fn),
        'as #cite(<k>);; then',
        'Typst takes one `;` as the end of the expression',
      );
      assert.equal(cite('as |. Next', 'typst', 'k', fn), 'as #cite(<k>). Next');
      assert.equal(cite('as |memory', 'typst', 'k', fn), 'as #cite(<k>) memory');
    });

    it('Pandoc: a space before it after a word or punctuation, and after it where [@k] would become a link or span', () => {
      assert.equal(cite('results,|', 'pandoc', 'b'), 'results, [@b]');
      assert.equal(cite('|memory', 'pandoc', 'b'), '[@b] memory', 'start of a line: no space before');
      assert.equal(cite('shown |memory', 'pandoc', 'b'), 'shown [@b] memory');
      assert.equal(cite('shown|memory', 'pandoc', 'b'), 'shown [@b] memory', 'inside a word');
      assert.equal(cite('see |(1999)', 'pandoc', 'b'), 'see [@b] (1999)', '[@b](1999) is a link');
      assert.equal(cite('see |[the notes]', 'pandoc', 'b'), 'see [@b] [the notes]', '[@b][x] is a reference link');
      assert.equal(cite('see |{.smallcaps}', 'pandoc', 'b'), 'see [@b] {.smallcaps}', '[@b]{.c} is a span');
      assert.equal(cite('|: a note', 'pandoc', 'b'), '[@b]: a note', 'a citation never starts a link definition');
      assert.equal(cite('Shown|.', 'pandoc', 'b'), 'Shown [@b].');
      assert.equal(cite('(|)', 'pandoc', 'b'), '([@b])');
      assert.equal(cite('He said "|', 'pandoc', 'b'), 'He said "[@b]', 'an opening quote');
      assert.equal(cite('"Quoted"|', 'pandoc', 'b'), '"Quoted" [@b]', 'a closing quote');
      assert.equal(
        cite('As shown [@a]| here', 'pandoc', 'b'),
        'As shown [@a; @b] here',
        'joining a citation still works',
      );
    });

    it('LaTeX: a tie before \\cite after a word or punctuation (spaces become the tie), none at a line start or after an opening bracket', () => {
      assert.equal(cite('results|', 'latex', 'b'), 'results~\\cite{b}');
      assert.equal(cite('results |', 'latex', 'b'), 'results~\\cite{b}');
      assert.equal(cite('results \t |', 'latex', 'b'), 'results~\\cite{b}');
      assert.equal(cite('results|.', 'latex', 'b'), 'results~\\cite{b}.');
      assert.equal(cite('shown |memory', 'latex', 'b'), 'shown~\\cite{b} memory', 'a space before the word after it');
      assert.equal(cite('|memory', 'latex', 'b'), '\\cite{b} memory');
      assert.equal(cite('line\n|', 'latex', 'b'), 'line\n\\cite{b}', 'start of a line');
      assert.equal(cite('line\n  |', 'latex', 'b'), 'line\n  \\cite{b}', 'indentation stays');
      assert.equal(cite('line\r\n|', 'latex', 'b'), 'line\r\n\\cite{b}');
      assert.equal(cite('(|)', 'latex', 'b'), '(\\cite{b})');
      assert.equal(cite('\\footnote{|}', 'latex', 'b'), '\\footnote{\\cite{b}}');
      assert.equal(cite('as~|', 'latex', 'b'), 'as~\\cite{b}', 'already tied');
      assert.equal(cite('end\\\\ |', 'latex', 'b'), 'end\\\\ \\cite{b}', 'no tie after a line break command');
      assert.equal(cite('\\item |', 'latex', 'b'), '\\item \\cite{b}', 'an item starts with the citation');
      assert.equal(cite('a & |', 'latex', 'b'), 'a & \\cite{b}', 'a table cell starts with the citation');
      assert.equal(cite('\\raggedright |', 'latex', 'b'), '\\raggedright \\cite{b}');
      assert.equal(cite('A \\& |', 'latex', 'b'), 'A \\&~\\cite{b}', 'an escaped & is text');
      assert.equal(
        cite('\\ldots |', 'latex', 'b'),
        '\\ldots~\\cite{b}',
        'TeX eats the space after a command that writes text',
      );
      assert.equal(cite('\\\\item |', 'latex', 'b'), '\\\\item~\\cite{b}', 'the word item after a line break');
    });

    it('several keys join one citation, set apart once', () => {
      assert.equal(citeAll('shown |memory', 'typst', ['a', 'b']), 'shown @a @b memory');
      assert.equal(citeAll('shown |memory', 'pandoc', ['a', 'b']), 'shown [@a; @b] memory');
      assert.equal(citeAll('shown |memory', 'latex', ['a', 'b']), 'shown~\\cite{a,b} memory');
      assert.equal(citeAll('shown|.', 'latex', ['a', 'b', 'c']), 'shown~\\cite{a,b,c}.');
    });
  });
  it('writes any key in a form each syntax reads back as that key (Typst label(), Pandoc @{…})', () => {
    assert.equal(
      formatCitation('typst', ['DBLP:journals/corr/abs-1']),
      '#cite(label("DBLP:journals/corr/abs-1"))',
      '`/` ends a Typst reference',
    );
    assert.equal(formatCitation('typst', ['a+b'], { locator: '4' }), '#cite(label("a+b"), supplement: [p. 4])');
    assert.equal(
      formatCitation('typst', ['smith.']),
      '#cite(<smith.>)',
      'a trailing `.` is given back by `@`, kept by `<…>`',
    );
    assert.equal(formatCitation('typst', ['q"x\\y'], { typstForm: 'function' }), '#cite(label("q\\"x\\\\y"))');
    assert.equal(formatCitation('typst', ['smith_2020-a.b']), '@smith_2020-a.b');
    assert.equal(formatCitation('typst', ['müller2020']), '#cite(<müller2020>)');
    assert.equal(
      formatCitation('pandoc', ['DBLP:journals/corr/abs-1', 'smith.', "o'brien", 'a--b', 'müller']),
      "[@DBLP:journals/corr/abs-1; @{smith.}; @{o'brien}; @{a--b}; @{müller}]",
    );
    const keys = ['DBLP:journals/corr/abs-1', 'smith.', 'a+b', "o'brien", 'a--b', 'x:', 'müller2020', 'k_1', 'q"x'];
    for (const flavour of ['latex', 'pandoc', 'typst'] as const) {
      for (const key of keys) {
        if (flavour === 'latex' && key.includes('"')) continue;
        const doc = cite('See |.', flavour, key);
        assert.deepEqual(citedKeys(doc, flavour), [key], `${flavour}: ${doc}`);
        assert.equal(
          insertCitation(doc, doc.length - 1, flavour, key).already,
          true,
          `${flavour}: ${key} is found again`,
        );
      }
    }
    assert.equal(cite('See [@{smith.}]|.', 'pandoc', 'o.k.'), 'See [@{smith.}; @{o.k.}].');
    assert.equal(keyAt('See [@{a/b.}] and @{c.}', 8, 'pandoc')?.key, 'a/b.');
    assert.equal(keyAt('See #cite(label("a/b")) x', 18, 'typst')?.key, 'a/b');
  });
});
