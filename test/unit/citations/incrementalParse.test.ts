import * as assert from 'node:assert/strict';
import { canAppendTo, canExtend, extendParse, takenKeys, textEnd } from '../../../src/citations/incrementalParse';
import { parseBibFile } from '../../../src/bib/bibFile';
import { plainFile } from '../bib/plainParse';

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
      assert.deepEqual(plainFile(extendParse(old, text)), plainFile(parseBibFile(text)), JSON.stringify(tail));
      // Twice in a row (the second extension starts from an extended parse).
      if (text.endsWith('\n') && !parseBibFile(text).diagnostics.some((d) => d.severity === 'error')) {
        const more = `${text}@misc{z, title = {Z}}\n@misc{a2020, title = {dup}}\n`;
        assert.deepEqual(plainFile(extendParse(extendParse(old, text), more)), plainFile(parseBibFile(more)));
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

  it('appends carried from parse to parse (the end of the text, the keys taken) give what a whole parse gives', () => {
    let file = parseBibFile(A);
    let text = A;
    for (let i = 0; i < 5; i++) {
      const appended = `\n@misc{k${i}, title = {T${i}}}\n@misc{${i % 2 ? 'A2020' : `n${i}`}, title = {again}}\n`;
      text += appended;
      file = extendParse(file, text, appended);
      assert.deepEqual(plainFile(file), plainFile(parseBibFile(text)), `append ${i}`);
      assert.equal(textEnd(file), text.slice(-1024));
      const first = new Map<string, number>();
      for (const e of file.entries) if (!first.has(e.key.toLowerCase())) first.set(e.key.toLowerCase(), e.start);
      assert.deepEqual(new Map(takenKeys(file)), first, `keys after append ${i}`);
    }
    // A parse extended a second time, another way: its duplicates are its own, not those of the first extension.
    const base = parseBibFile(A);
    const one = `${A}@misc{x1, title = {X}}\n`;
    const two = `${A}@misc{x2, title = {X}}\n@misc{x1, title = {Y}}\n`;
    extendParse(base, one, one.slice(A.length));
    assert.deepEqual(plainFile(extendParse(base, two, two.slice(A.length))), plainFile(parseBibFile(two)));
    assert.deepEqual(plainFile(extendParse(base, one, one.slice(A.length))), plainFile(parseBibFile(one)));
  });

  it('an `@` after the last entry is found however far from the end it is', () => {
    for (const gap of [0, 10, 1500, 5000]) {
      const text = `${A}% @ note${' '.repeat(gap)}\n`;
      assert.equal(canAppendTo(parseBibFile(text)), false, `gap ${gap}`);
      const clean = `${A}% note${' '.repeat(gap)}\n`;
      assert.equal(canAppendTo(parseBibFile(clean)), true, `gap ${gap}`);
    }
  });
});
