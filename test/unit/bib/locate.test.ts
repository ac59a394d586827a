import * as assert from 'node:assert/strict';
import {
  frontMatter,
  latexBibliographies,
  locateBibliographies,
  texRoot,
  typstBibliographies,
  yamlBibliographies,
} from '../../../src/bib/locate';

describe('bib/locate', () => {
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

  it('LaTeX parts: the main file from a magic comment in the first 30 lines, else the subfiles class option', () => {
    assert.equal(texRoot('% !TEX root = main.tex\n\\section{A}'), 'main.tex');
    assert.equal(texRoot('%!TeX root=../main\n'), '../main.tex', '.tex added');
    assert.equal(texRoot('  % !TeX root =   chapters/main.tex   \r\nx'), 'chapters/main.tex', 'spaces and CRLF');
    assert.equal(texRoot(`${'line\n'.repeat(29)}% !TEX root = late.tex`), 'late.tex', 'line 30');
    assert.equal(texRoot(`${'line\n'.repeat(30)}% !TEX root = late.tex`), undefined, 'line 31');
    assert.equal(texRoot('% !TEX root =\n'), undefined, 'no value');
    assert.equal(texRoot('\\documentclass[../thesis.tex]{subfiles}'), '../thesis.tex');
    assert.equal(texRoot('\\documentclass [ ../thesis ] {subfiles}'), '../thesis.tex');
    assert.equal(texRoot('\\documentclass[a4paper]{article}'), undefined);
  });

  it('YAML: a string, a quoted string, a block list, a flow list; other keys ignored', () => {
    assert.deepEqual(yamlBibliographies('title: x\nbibliography: refs.bib\n'), ['refs.bib']);
    assert.deepEqual(yamlBibliographies('bibliography: "my refs.bib" # main\n'), ['my refs.bib']);
    assert.deepEqual(
      yamlBibliographies('bibliography:\n  - a.bib\n  - "b.bib"\n\n  - c.json\nauthor: me\n  - not.bib'),
      ['a.bib', 'b.bib', 'c.json'],
    );
    assert.deepEqual(yamlBibliographies("bibliography: [a.bib, 'b.bib']"), ['a.bib', 'b.bib']);
    assert.deepEqual(yamlBibliographies('# bibliography: no.bib\nnobibliography: x.bib\n'), []);
  });

  it('Markdown/Quarto: only the leading front matter counts', () => {
    const md = '---\ntitle: T\nbibliography:\n  - refs.bib\n---\n\nText\n\n---\nbibliography: late.bib\n---\n';
    assert.equal(frontMatter(md), 'title: T\nbibliography:\n  - refs.bib');
    assert.deepEqual(locateBibliographies(md, 'pandoc'), { fromDocument: ['refs.bib'], fromProject: [] });
    assert.deepEqual(locateBibliographies('No front matter\nbibliography: x.bib', 'pandoc').fromDocument, []);
    assert.deepEqual(locateBibliographies('---\r\nbibliography: crlf.bib\r\n---\r\n', 'pandoc').fromDocument, [
      'crlf.bib',
    ]);
  });

  it('_quarto.yml text given by the caller', () => {
    const r = locateBibliographies('# Doc\n', 'pandoc', 'project:\n  type: book\nbibliography: references.bib\n');
    assert.deepEqual(r, { fromDocument: [], fromProject: ['references.bib'] });
    assert.deepEqual(
      locateBibliographies('\\cite{a}', 'latex', 'bibliography: x.bib').fromProject,
      [],
      'only for Quarto/Markdown',
    );
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

describe('bib/locate on random documents: the same answers as the patterns it replaced', () => {
  // The patterns these functions used before they were made linear (each rescanned the text on hostile input):
  // kept here as the reference for what they find.
  const oldStripTypst = (text: string): string =>
    text.replace(/"(?:[^"\\]|\\.)*"|\/\*[\s\S]*?\*\/|\/\/.*$/gmu, (m) => (m.startsWith('"') ? m : ''));
  const oldTypst = (text: string): string[] => {
    const out: string[] = [];
    for (const m of oldStripTypst(text).matchAll(/#bibliography\(\s*(\([^()]*\)|"(?:[^"\\]|\\.)*")/gu)) {
      for (const s of m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/gu)) out.push(s[1]!.replace(/\\(.)/gu, '$1'));
    }
    return [...new Set(out.filter((x) => x.length > 0))];
  };
  const oldLatex = (text: string): string[] => {
    const t = text.replace(/(^|[^\\])((?:\\\\)*)%.*$/gmu, '$1$2');
    const out: string[] = [];
    for (const m of t.matchAll(
      /\\(bibliography|addbibresource|addglobalbib|addsectionbib)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}/gu,
    )) {
      for (const raw of m[1] === 'bibliography' ? m[2]!.split(',') : [m[2]!]) {
        const n = raw.trim();
        if (n) out.push(m[1] === 'bibliography' && !/\.bib$/iu.test(n) ? `${n}.bib` : n);
      }
    }
    return [...new Set(out)];
  };
  const random = (pieces: readonly string[], seed: number, n: number): string => {
    let x = seed;
    let s = '';
    for (let i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      s += pieces[x % pieces.length]!;
    }
    return s;
  };

  it('Typst: strings, line and block comments, escapes, unclosed ones', () => {
    const pieces = [
      '"',
      '\\',
      '/',
      '*',
      '\n',
      '\r',
      'a',
      ' ',
      '#bibliography("x.bib")',
      '#bibliography(("y.bib", "z.yml"))',
      '// ',
      '/* ',
      ' */',
      '"q"',
      '\\"',
    ];
    for (let seed = 1; seed <= 3000; seed++) {
      const doc = random(pieces, seed, 3 + (seed % 25));
      assert.deepEqual(typstBibliographies(doc), oldTypst(doc), JSON.stringify(doc));
    }
  });

  it('LaTeX: comments after runs of backslashes, commands with and without optional arguments', () => {
    const pieces = [
      '%',
      '\\',
      '\\\\',
      '\n',
      '\r\n',
      'a',
      ' ',
      '\\bibliography{one,two}',
      '\\addbibresource[opt]{x.bib}',
      '\\addbibresource{y.bib}',
      '\\%',
      '}',
      ']',
    ];
    for (let seed = 1; seed <= 3000; seed++) {
      const doc = random(pieces, seed, 3 + (seed % 25));
      assert.deepEqual(latexBibliographies(doc), oldLatex(doc), JSON.stringify(doc));
    }
  });
});
