import * as assert from 'node:assert/strict';
import { frontMatter, latexBibliographies, locateBibliographies, typstBibliographies, yamlBibliographies } from '../../../src/cite/locate';

describe('cite/locate', () => {
  it('LaTeX: \\bibliography{a,b} gets .bib, \\addbibresource keeps its name, comments ignored', () => {
    const tex = [
      '\\documentclass{article}',
      '% \\bibliography{old}',
      '\\addbibresource[location=local]{refs/main.bib}',
      '\\bibliography{ one , two.bib,three}',
      '50\\% done \\addbibresource{pct.bib} % \\addbibresource{commented.bib}',
      '  %\\addbibresource{indented-comment.bib}',
      '\\bibliography{one}',
    ].join('\n');
    assert.deepEqual(latexBibliographies(tex), ['refs/main.bib', 'one.bib', 'two.bib', 'three.bib', 'pct.bib']);
  });

  it('YAML: a string, a quoted string, a block list, a flow list; other keys ignored', () => {
    assert.deepEqual(yamlBibliographies('title: x\nbibliography: refs.bib\n'), ['refs.bib']);
    assert.deepEqual(yamlBibliographies('bibliography: "my refs.bib" # main\n'), ['my refs.bib']);
    assert.deepEqual(yamlBibliographies('bibliography:\n  - a.bib\n  - "b.bib"\n\n  - c.json\nauthor: me\n  - not.bib'), ['a.bib', 'b.bib', 'c.json']);
    assert.deepEqual(yamlBibliographies('bibliography: [a.bib, \'b.bib\']'), ['a.bib', 'b.bib']);
    assert.deepEqual(yamlBibliographies('# bibliography: no.bib\nnobibliography: x.bib\n'), []);
  });

  it('Markdown/Quarto: only the leading front matter counts', () => {
    const md = '---\ntitle: T\nbibliography:\n  - refs.bib\n---\n\nText\n\n---\nbibliography: late.bib\n---\n';
    assert.equal(frontMatter(md), 'title: T\nbibliography:\n  - refs.bib');
    assert.deepEqual(locateBibliographies(md, 'pandoc'), { fromDocument: ['refs.bib'], fromProject: [] });
    assert.deepEqual(locateBibliographies('No front matter\nbibliography: x.bib', 'pandoc').fromDocument, []);
    assert.deepEqual(locateBibliographies('---\r\nbibliography: crlf.bib\r\n---\r\n', 'pandoc').fromDocument, ['crlf.bib']);
  });

  it('_quarto.yml text given by the caller', () => {
    const r = locateBibliographies('# Doc\n', 'pandoc', 'project:\n  type: book\nbibliography: references.bib\n');
    assert.deepEqual(r, { fromDocument: [], fromProject: ['references.bib'] });
    assert.deepEqual(locateBibliographies('\\cite{a}', 'latex', 'bibliography: x.bib').fromProject, [], 'only for Quarto/Markdown');
  });

  it('Typst: a string or an array; line and block comments ignored', () => {
    const typ = [
      '#set page(width: 10cm)',
      '// #bibliography("old.bib")',
      '/* #bibliography("block.bib") */',
      '#bibliography("refs.bib", style: "apa")',
      '#bibliography(("a.bib", "b.yml"))',
      '#let url = "https://x.org//not-a-comment"',
    ].join('\n');
    assert.deepEqual(typstBibliographies(typ), ['refs.bib', 'a.bib', 'b.yml']);
    assert.deepEqual(locateBibliographies(typ, 'typst').fromDocument, ['refs.bib', 'a.bib', 'b.yml']);
  });
});
