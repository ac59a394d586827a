import * as assert from 'node:assert/strict';
import { citingFlavourOf } from '../../../src/shared/citeFlavour';

describe('citeFlavour (the language and extension table both bundles read)', () => {
  it('maps every listed language id, in any case', () => {
    for (const id of ['latex', 'tex', 'context', 'latex-expl3', 'doctex', 'rsweave', 'LaTeX'])
      assert.equal(citingFlavourOf(id), 'latex', id);
    for (const id of ['markdown', 'quarto', 'rmd', 'rmarkdown', 'pandoc', 'mdx', 'RMarkdown'])
      assert.equal(citingFlavourOf(id), 'pandoc', id);
    assert.equal(citingFlavourOf('typst'), 'typst');
  });

  it('reads the file extension only for a language id it does not list', () => {
    for (const file of ['a.tex', 'b.ltx', 'c.sty', 'd.Rnw'])
      assert.equal(citingFlavourOf('plaintext', file), 'latex', file);
    for (const file of ['a.md', 'b.markdown', 'c.qmd', 'd.Rmd'])
      assert.equal(citingFlavourOf('plaintext', file), 'pandoc', file);
    assert.equal(citingFlavourOf('plaintext', '/x/paper.TYP'), 'typst');
    assert.equal(citingFlavourOf('latex', 'notes.md'), 'latex');
    assert.equal(citingFlavourOf('markdown', 'paper.typ'), 'pandoc');
  });

  it('has no flavour for other documents, nor for names an object would answer', () => {
    for (const [id, file] of [
      ['plaintext', 'c.txt'],
      ['json', ''],
      ['bibtex', 'refs.bib'],
      ['', 'tex'],
      ['', 'a.tex.txt'],
      ['', 'a.'],
      ['constructor', ''],
      ['__proto__', 'x.toString'],
      ['', 'x.hasOwnProperty'],
    ] as const) {
      assert.equal(citingFlavourOf(id, file), undefined, `${id} ${file}`);
    }
  });
});
