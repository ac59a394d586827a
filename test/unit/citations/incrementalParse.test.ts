import * as assert from 'node:assert/strict';
import { canExtend, extendParse } from '../../../src/citations/incrementalParse';
import { parseBibFile } from '../../../src/bib/bibFile';

const A =
  '@string{jn = {Journal of Things}}\n\n@article{a2020,\n  title = {A},\n  journal = jn,\n  doi = {10.1/a}\n}\n\n@misc{b, title = {B}, note = oops}\n% a comment line\n';
const TAILS = [
  '\n@article{c2021,\n  title = {C}\n}\n',
  '@article{A2020,\n  title = {Same key, other case}\n}\n@misc{d,\n  title = {D}\n}\n@misc{d,\n  title = {D again}\n}\n',
  '\n@article{broken,\n  title = {never closed\n\n@misc{after, title = {After}}\n',
  '@comment{x}\n@preamble{"p"}\n@misc{e, title = "E", year = 2001}',
  '@misc{bad, title = {x} year = 2}\n',
];

describe('citations/incrementalParse', () => {
  it('extending a parse by appended text equals parsing the whole text', () => {
    for (const tail of TAILS) {
      const old = parseBibFile(A);
      const text = A + tail;
      assert.equal(canExtend(old, text), true);
      assert.deepEqual(extendParse(old, text), parseBibFile(text), JSON.stringify(tail));
      // Twice in a row (the second extension starts from an extended parse).
      if (text.endsWith('\n') && !parseBibFile(text).diagnostics.some((d) => d.severity === 'error')) {
        const more = `${text}@misc{z, title = {Z}}\n@misc{a2020, title = {dup}}\n`;
        assert.deepEqual(extendParse(extendParse(old, text), more), parseBibFile(more));
      }
    }
  });

  it('only when the old text is a prefix ending in a line break and has no error', () => {
    const old = parseBibFile(A);
    assert.equal(canExtend(old, A), false, 'nothing appended');
    assert.equal(canExtend(old, `x${A}@misc{c}\n`), false, 'not a prefix');
    assert.equal(canExtend(parseBibFile(A.trimEnd()), `${A}@misc{c}\n`), false, 'no final line break');
    const broken = parseBibFile('@article{open,\n  title = {x\n');
    assert.equal(
      canExtend(broken, `${broken.text}@misc{c, title = {C}}\n`),
      false,
      'an unclosed entry could swallow the tail',
    );
    assert.equal(canExtend(parseBibFile(''), '@misc{c}\n'), false);
  });
});
