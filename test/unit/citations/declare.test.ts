import * as assert from 'node:assert/strict';
import { declarationEdit, relativePath } from '../../../src/citations/declare';
import { applyEdits } from '../../../src/bib/edit';
import { locateBibliographies } from '../../../src/bib/locate';
import type { CiteFlavour } from '../../../src/bib/syntax';

const declare = (text: string, flavour: CiteFlavour, rel: string): string => {
  const e = declarationEdit(text, flavour, rel);
  assert.ok(e, 'no edit');
  return applyEdits(text, [e]);
};

describe('citations/declare', () => {
  it('LaTeX without biblatex: \\bibliography{name} before \\end{document}; found again by locate', () => {
    const out = declare(
      '\\documentclass{article}\n\\begin{document}\nText.\n\\end{document}\n',
      'latex',
      'refs/main.bib',
    );
    assert.equal(
      out,
      '\\documentclass{article}\n\\begin{document}\nText.\n\\bibliography{refs/main}\n\\end{document}\n',
    );
    assert.deepEqual(locateBibliographies(out, 'latex').fromDocument, ['refs/main.bib']);
    assert.equal(declare('Just text', 'latex', 'r.bib'), 'Just text\n\\bibliography{r}\n');
  });

  it('LaTeX with biblatex: \\addbibresource{file.bib} in the preamble', () => {
    const out = declare(
      '\\usepackage[style=apa]{biblatex}\r\n\\begin{document}\r\nX\r\n\\end{document}\r\n',
      'latex',
      'references.bib',
    );
    assert.equal(
      out,
      '\\usepackage[style=apa]{biblatex}\r\n\\addbibresource{references.bib}\r\n\\begin{document}\r\nX\r\n\\end{document}\r\n',
    );
  });

  it('Pandoc: into the front matter, or a new front matter; odd paths quoted', () => {
    const a = declare('---\ntitle: T\n---\n\nBody\n', 'pandoc', 'references.bib');
    assert.equal(a, '---\nbibliography: references.bib\ntitle: T\n---\n\nBody\n');
    assert.deepEqual(locateBibliographies(a, 'pandoc').fromDocument, ['references.bib']);
    const b = declare('# Title\n', 'pandoc', '../my refs.bib');
    assert.equal(b, '---\nbibliography: "../my refs.bib"\n---\n\n# Title\n');
    assert.deepEqual(locateBibliographies(b, 'pandoc').fromDocument, ['../my refs.bib']);
  });

  it('Typst: #bibliography("…") at the end; plain: nothing', () => {
    const t = declare('= Doc\nText @a', 'typst', 'refs.bib');
    assert.equal(t, '= Doc\nText @a\n#bibliography("refs.bib")\n');
    assert.deepEqual(locateBibliographies(t, 'typst').fromDocument, ['refs.bib']);
    assert.equal(declarationEdit('x', 'plain', 'r.bib'), undefined);
  });

  it('relativePath: siblings, parents, children', () => {
    assert.equal(relativePath('/w/doc', '/w/doc/refs.bib'), 'refs.bib');
    assert.equal(relativePath('/w/doc/ch', '/w/references.bib'), '../../references.bib');
    assert.equal(relativePath('/w', '/w/bib/a.bib'), 'bib/a.bib');
    assert.equal(relativePath('/w/a', '/w/b/c.bib'), '../b/c.bib');
  });
});
