import * as assert from 'node:assert/strict';
import { answerMarkup } from '../../../src/bib/markup';
import { citePlaceholder, escapeLatex, escapeTypst } from '../../../src/bib/markupText';
import { latexReadsUtf8 } from '../../../src/bib/texTables';
import { texText } from '../../../src/bib/texText';
import { MARKDOWN_LIMIT } from '../../../src/render/escape';

const latex = (md: string): string => answerMarkup(md, 'latex', { cite: (i) => `\\cite{k${i}}` });
const typst = (md: string): string => answerMarkup(md, 'typst', { cite: (i) => `@k${i}` });

describe('bib/markup (Insert Answer into LaTeX and Typst)', () => {
  it('escapes every LaTeX special character so the answer cannot break the document', () => {
    assert.equal(
      escapeLatex('15% of #1_a & $5 {x} ~ ^ \\ <b> | `'),
      '15\\% of \\#1\\_a \\& \\$5 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} \\textless{}b\\textgreater{} \\textbar{} \\textasciigrave{}',
    );
    assert.equal(latex('A 15% effect'), 'A 15\\% effect\n', 'a percent sign is not a comment');
  });

  it('escapes Typst markup characters and line starts that would open a heading or list', () => {
    assert.equal(
      escapeTypst('#x *a* _b_ $m$ @k <l> [c] ~ \\ // /*'),
      '\\#x \\*a\\* \\_b\\_ \\$m\\$ \\@k \\<l\\> \\[c\\] \\~ \\\\ \\// \\/\\*',
    );
    assert.equal(typst('one\n= two\n/ three\n12. four'), 'one\n\\= two\n\\/ three\n12\\. four\n');
  });

  it('writes headings, emphasis, lists, code, links and tables in LaTeX, citations tied to the word before', () => {
    const md = `## Short answer\n\nIt **works** *well* ${citePlaceholder(0)}.\n\n- a \`x_y\`\n- b\n\n[site](https://a.org/x#y) https://b.org/p_q\n\n| A | B |\n|---|---|\n| 1 | 2 |`;
    // The column widths are checked on their own below.
    assert.equal(
      latex(md).replace(/\*\d+\/1000/gu, '*W/1000'),
      [
        '\\subsection*{Short answer}',
        '',
        'It \\textbf{works} \\emph{well}~\\cite{k0}.',
        '',
        '\\begin{itemize}',
        '\\item a \\texttt{x\\_y}',
        '\\item b',
        '\\end{itemize}',
        '',
        '\\href{https://a.org/x\\#y}{site} \\url{https://b.org/p_q}',
        '',
        '\\noindent\\begin{tabular}{p{\\dimexpr(\\linewidth-4\\tabcolsep)*W/1000\\relax}p{\\dimexpr(\\linewidth-4\\tabcolsep)*W/1000\\relax}}',
        '\\hline',
        '\\raggedright \\hspace{0pt}\\textbf{A} & \\raggedright \\hspace{0pt}\\textbf{B} \\tabularnewline',
        '\\hline',
        '\\raggedright \\hspace{0pt}1 & \\raggedright \\hspace{0pt}2 \\tabularnewline',
        '\\hline',
        '\\end{tabular}',
        '',
      ].join('\n'),
    );
  });

  it('LaTeX: all text goes through texText (what pdflatex typesets), citation placeholders apart; no character is left that pdflatex lacks', () => {
    const prose = 'Effect (β = 0.60, p ≤ 0.01) in Zürich: 5% & $3_x {a} ~^ \\ <b> | ‘q’';
    assert.equal(latex(prose), `${texText(prose)}\n`);
    assert.equal(latex(`${prose} ${citePlaceholder(0)}`), `${texText(prose)}~\\cite{k0}\n`);
    assert.equal(latex('## α and ß'), `\\subsection*{${texText('α and ß')}}\n`);
    assert.ok(
      latex('| β | é |\n|---|---|\n| 1 | 2 |').includes(
        `\\textbf{${texText('β')}} & \\raggedright \\hspace{0pt}\\textbf{${texText('é')}}`,
      ),
      'table cells',
    );
    assert.equal(latex('`a_β`'), `\\texttt{${texText('a_β')}}\n`);
    const all = latex(`# Ωmega\n\n- ${prose}\n\n> ąčęėįšųūž ÆØÅ ñ\n\n\`\`\`\nβ ≠ γ\n\`\`\``);
    assert.deepEqual(
      [...all].filter((c) => !latexReadsUtf8(c)),
      [],
      all,
    );
  });

  it("LaTeX: paired straight double quotes become ``…'' (across emphasis, before a citation); a lone one, code and URLs keep theirs", () => {
    assert.equal(
      latex(`He said "yes" and "no" ${citePlaceholder(0)}; a 5" screen.`),
      "He said ``yes'' and ``no''~\\cite{k0}; a 5\" screen.\n",
    );
    assert.equal(latex('"**Bold** start" and ("in brackets")'), "``\\textbf{Bold} start'' and (``in brackets'')\n");
    assert.equal(
      latex('- 2017, rct: "Effects (β = 0.6)." [1]'.replace('[1]', citePlaceholder(1))),
      "\\begin{itemize}\n\\item 2017, rct: ``Effects ({$\\beta$} = 0.6).''~\\cite{k1}\n\\end{itemize}\n",
    );
    assert.equal(
      latex('`"x"` and https://a.org/?q="y" "z"'),
      '\\texttt{"x"} and \\url{https://a.org/?q=}"y" ``z\'\'\n',
      'a quote after a URL opens nothing',
    );
    assert.equal(latex('## A "quoted" heading'), "\\subsection*{A ``quoted'' heading}\n");
  });

  it('LaTeX tables: p{} columns sharing the text width, wider for longer cells; a cell may start with a citation; long tables in several tabulars', () => {
    const long = 'Does creatine supplementation improve working memory? Evidence from older adults';
    const rows = Array.from(
      { length: 15 },
      (_, i) =>
        `| ${citePlaceholder(i)} | ${long} ${i} | 2021 | longitudinal / panel data study | 263 | no clear effect |`,
    );
    const out = latex(
      ['| Ref | Study | Year | Design | Sample | Finding |', '|---|---|---|---|---|---|', ...rows].join('\n'),
    );
    const tabulars = [...out.matchAll(/\\begin\{tabular\}\{([^\n]*)\}\n([\s\S]*?)\\end\{tabular\}/gu)];
    assert.ok(tabulars.length > 1, `a long table is split so pages can break between its parts (${tabulars.length})`);
    for (const [, spec] of tabulars) {
      assert.equal(spec, tabulars[0]![1], 'the same columns in every part');
      const shares = [...spec!.matchAll(/\(\\linewidth-12\\tabcolsep\)\*(\d+)\/1000/gu)].map((m) => Number(m[1]));
      assert.equal(shares.length, 6);
      assert.ok(shares.reduce((a, b) => a + b, 0) <= 1000, `at most the text width: ${shares.join(' ')}`);
      assert.equal(Math.max(...shares), shares[1], 'the titles get the widest column');
    }
    const body = tabulars.map((t) => t[2]!).join('');
    assert.equal(body.match(/\\tabularnewline/gu)?.length, 16, 'every row once');
    assert.equal(body.match(/\\hline/gu)?.length, 3, 'rules above and below the header and at the end');
    assert.ok(body.startsWith('\\hline\n\\raggedright \\hspace{0pt}\\textbf{Ref}'), body.slice(0, 80));
    for (let i = 0; i < 15; i++)
      assert.ok(body.includes(`\n\\raggedright \\cite{k${i}} & `), `row ${i}: the citation starts its cell, no tie`);
    const short = latex('| a | b |\n|---|---|\n| 1 | 2 |');
    assert.equal(short.match(/\\begin\{tabular\}/gu)?.length, 1);
  });

  it('LaTeX: a code block with characters verbatim cannot typeset is written as typewriter lines of escaped text', () => {
    assert.equal(
      latex('```\nif x < 1:\n  y = "β"\n```'),
      '\\par\\noindent{\\ttfamily if~x~\\textless{}~1:\\\\\n~~y~=~"{$\\beta$}"\\par}\n',
    );
  });

  it('writes the same in Typst; a placeholder glued to a word gets a space; javascript: links stay text', () => {
    const md = `# Title\n\nIt **works** well${citePlaceholder(1)}.\n\n1. a\n2. b\n\n[x](javascript:alert(1)) [ok](https://a.org/"q)`;
    const out = typst(md);
    assert.equal(out.split('\n\n')[0], '= Title');
    assert.equal(out.split('\n\n')[1], 'It #strong[works] well @k1.');
    assert.equal(out.split('\n\n')[2], '+ a\n+ b');
    assert.ok(!out.includes('#link("javascript'), out);
    assert.ok(out.includes('#link("https://a.org/%22q")[ok]'), out);
  });

  it('keeps code verbatim (LaTeX cannot end the verbatim early; Typst fences are longer than any run inside)', () => {
    assert.equal(latex('```\na \\end{verbatim} b\n```'), '\\begin{verbatim}\na \\end {verbatim} b\n\\end{verbatim}\n');
    assert.equal(typst('````\n```\n````'), '````\n```\n````\n');
  });

  it('keeps the document line breaks', () => {
    assert.equal(answerMarkup('a\n\nb', 'latex', { cite: () => '', newline: '\r\n' }), 'a\r\n\r\nb\r\n');
  });

  it('sets citations apart from the words on either side; code keeps its text', () => {
    const p = citePlaceholder;
    assert.equal(latex(`Results${p(0)} and ${p(1)}${p(2)}.`), 'Results~\\cite{k0} and~\\cite{k1}~\\cite{k2}.\n');
    assert.equal(latex(`(${p(0)}) ${p(1)}memory`), '(\\cite{k0})~\\cite{k1} memory\n');
    assert.equal(latex(`${p(0)} starts`), '\\cite{k0} starts\n', 'no tie at the start of a line');
    assert.equal(
      latex('```\na \\cite{x} b\n```'),
      '\\begin{verbatim}\na \\cite{x} b\n\\end{verbatim}\n',
      'code is not tied',
    );
    assert.equal(
      typst(`A ${p(0)}-based view, ${p(1)}memory, ${p(0)}${p(1)}.`),
      'A @k0 -based view, @k1 memory, @k0 @k1.\n',
    );
    assert.equal(typst(`(${p(0)}) ${p(1)}: so`), '(@k0) @k1: so\n');
  });

  it('fences code longer than any run of backticks inside, however many runs there are', () => {
    const code = `${'` '.repeat(45_000)}\`\`\`\`\``;
    const out = typst(`\`\`\`\`\`\`\n${code}\n\`\`\`\`\`\`\n`);
    assert.ok(out.startsWith('``````\n` ` '), out.slice(0, 20));
    assert.ok(out.endsWith('`````\n``````\n'), out.slice(-20));
  });

  it('reads Markdown up to the limit; the rest is written as escaped paragraphs, citations still placed', () => {
    const head = 'Some **bold** text.\n\n'.repeat(Math.floor((MARKDOWN_LIMIT - 20) / 21));
    const tail = `# Not a heading 50% ${citePlaceholder(3)} ${'word '.repeat(40)}\n\n- not a list`;
    const tex = latex(head + tail);
    assert.ok(tex.startsWith('Some \\textbf{bold} text.\n\n'));
    assert.ok(
      tex.endsWith(`\\# Not a heading 50\\%~\\cite{k3} ${'word '.repeat(39)}word\n\n- not a list\n`),
      tex.slice(-80),
    );
    assert.ok(typst(head + tail).endsWith(`\\# Not a heading 50% @k3 ${'word '.repeat(39)}word\n\n\\- not a list\n`));
  });
});
