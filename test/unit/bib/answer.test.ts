import * as assert from 'node:assert/strict';
import type { Citation } from '../../../src/api/schemas';
import {
  answerForDocument,
  convertAnswer,
  escapeStrayCitations,
  footnoteLabelsIn,
  headingsAsParagraphs,
} from '../../../src/bib/answer';

const citations: Citation[] = [
  {
    n: 1,
    paper_id: 'p1',
    title: 'One',
    year: 2020,
    journal: 'J',
    url: 'https://x/1',
    snippets: [
      { marker: '1.1', quote: 'Creatine helped.', section: 'Results' },
      { marker: '[1.2]', quote: 'Effects  were\nsmall.', section: null },
    ],
  },
  { n: 2, paper_id: 'p2', title: 'Two', year: 2021, journal: 'J', url: 'https://x/2', snippets: [] },
  { n: 3, paper_id: 'p3', title: 'Three (no key)', year: 2022, journal: 'J', url: 'https://x/3', snippets: null },
];
const keys = new Map([
  ['p1', 'smith2020one'],
  ['p2', 'li2021two'],
]);

describe('bib/answer', () => {
  const answer =
    'Creatine helps [1.1]. It is small [1.2, 2]; see also [2] and [3].\n\n`code [1]`\n\n```\n[2]\n```\nEscaped \\[1] and a link [1](https://x).';

  it('turns marker groups into one citation per group, papers de-duplicated, in each flavour', () => {
    const md = convertAnswer(answer, citations, { flavour: 'pandoc', keys });
    assert.equal(
      md.text,
      'Creatine helps [@smith2020one]. It is small [@smith2020one; @li2021two]; see also [@li2021two] and [3].\n\n`code [1]`\n\n```\n[2]\n```\nEscaped \\[1] and a link [1](https://x).',
    );
    assert.deepEqual(md.keys, ['smith2020one', 'li2021two']);
    assert.deepEqual(md.unresolved, ['3']);
    const tex = convertAnswer('A [1.1; 2] B [2]', citations, { flavour: 'latex', keys, latexCommand: 'citep' });
    assert.equal(tex.text, 'A~\\citep{smith2020one,li2021two} B~\\citep{li2021two}');
    const typ = convertAnswer('A [1.1, 2].', citations, { flavour: 'typst', keys });
    assert.equal(typ.text, 'A @smith2020one @li2021two.');
  });

  it('footnotes: quoted markers become footnotes holding the quote and the citation (Pandoc only)', () => {
    const r = convertAnswer('Helps [1.1]. Small [1.2, 2]. Again [1.1].', citations, {
      flavour: 'pandoc',
      keys,
      footnotes: true,
    });
    assert.equal(
      r.text,
      'Helps [^1.1]. Small [^1.2] [@li2021two]. Again [^1.1].\n\n[^1.1]: “Creatine helped.” [@smith2020one].\n[^1.2]: “Effects were small.” [@smith2020one].\n',
    );
    assert.deepEqual(r.keys, ['smith2020one', 'li2021two']);
    assert.equal(
      convertAnswer('Helps [1.1].', citations, { flavour: 'latex', keys, footnotes: true }).text,
      'Helps~\\cite{smith2020one}.',
      'LaTeX: no footnotes',
    );
  });

  it('footnotes: labels no footnote of the document uses, the same prefix for the whole answer', () => {
    const answer = 'Helps [1.1]. Small [1.2, 2].';
    const first = answerForDocument(answer, citations, {
      flavour: 'pandoc',
      keys,
      footnotes: true,
      documentText: 'Mine[^note].\n\n[^note]: Mine.\n',
    }).text;
    assert.match(
      first,
      /^Helps \[\^1\.1\]\. Small \[\^1\.2\] \[@li2021two\]\./u,
      'labels as the markers while they are free',
    );
    const doc = `Mine[^note].\n\n${first}`;
    assert.deepEqual([...footnoteLabelsIn(doc)].sort(), ['1.1', '1.2', 'note']);
    const second = answerForDocument(answer, citations, {
      flavour: 'pandoc',
      keys,
      footnotes: true,
      documentText: doc,
    }).text;
    assert.equal(
      second,
      'Helps [^a2-1.1]. Small [^a2-1.2] [@li2021two].\n\n[^a2-1.1]: “Creatine helped.” [@smith2020one].\n[^a2-1.2]: “Effects were small.” [@smith2020one].\n',
    );
    const third = convertAnswer(answer, citations, {
      flavour: 'pandoc',
      keys,
      footnotes: true,
      footnoteLabelsInUse: footnoteLabelsIn(`${doc}\n${second}\n[^A4-1.2]: x`),
    }).text;
    assert.match(third, /^Helps \[\^a3-1\.1\]/u, 'a3 is free; a4 is not (labels compare without case)');
    const all = `${doc}\n${second}\n${third}`;
    const definitions = [...all.matchAll(/^\[\^([^\]]+)\]:/gmu)].map((m) => m[1]!);
    assert.equal(new Set(definitions).size, definitions.length, `one definition per label: ${definitions.join(' ')}`);
  });

  it("an @ pandoc would read as a citation is escaped in the service's text and quotes; e-mail addresses, code and our own citations are not", () => {
    assert.equal(
      escapeStrayCitations('the @WHO guidance, (@smith) and [@a] mail a@b.org `@code` \\@done'),
      'the \\@WHO guidance, (\\@smith) and [\\@a] mail a@b.org `@code` \\@done',
    );
    const citations: Citation[] = [
      {
        n: 1,
        paper_id: 'p',
        title: 'T',
        year: 2020,
        journal: 'J',
        url: 'https://x.org/p',
        snippets: [{ marker: '[1.1]', quote: 'as @WHO says', section: null }],
      },
    ];
    const md = answerForDocument('Per the @WHO [1.1] and [1].', citations, {
      flavour: 'pandoc',
      keys: new Map([['p', 'k']]),
      footnotes: true,
    }).text;
    assert.ok(md.includes('Per the \\@WHO'), md);
    assert.ok(md.includes('[@k]'), md);
    assert.ok(md.includes('“as \\@WHO says”'), md);
  });

  it('Insert Answer into LaTeX and Typst adds no sections either: headings are bold paragraphs', () => {
    const citations: Citation[] = [
      { n: 1, paper_id: 'p', title: 'T', year: 2020, journal: 'J', url: 'https://x.org/p', snippets: [] },
    ];
    const response = '## Short answer\n\nIt helps [1].\n\nEvidence\n---\n\nMore [1].';
    const latex = answerForDocument(response, citations, { flavour: 'latex', keys: new Map([['p', 'k']]) }).text;
    assert.ok(!/\\(sub)*section/u.test(latex), latex);
    assert.match(latex, /^\\textbf\{Short answer\}$/mu);
    const typst = answerForDocument(response, citations, { flavour: 'typst', keys: new Map([['p', 'k']]) }).text;
    assert.ok(!/^=/mu.test(typst), typst);
    assert.match(typst, /^#strong\[Evidence\]$/mu);
  });

  it('headings become bold paragraphs, in any container; code, and lines that only look like headings, stay', () => {
    assert.equal(
      headingsAsParagraphs('## Short answer\n\nText [1].\n## Next ##\nMore'),
      '**Short answer**\n\nText [1].\n\n**Next**\n\nMore',
    );
    assert.equal(
      headingsAsParagraphs('Title\n===\nText\n\nTwo\nlines\n---\n'),
      '**Title**\n\nText\n\n**Two\nlines**\n',
    );
    assert.equal(
      headingsAsParagraphs('> ## Quoted\n> text\n\n- ## Item\n- b'),
      '> **Quoted**\n>\n> text\n\n- **Item**\n\n- b',
    );
    assert.equal(
      headingsAsParagraphs('```\n## code\n```\n\n    ## indented code\n\n#hashtag and C# ## too'),
      '```\n## code\n```\n\n    ## indented code\n\n#hashtag and C# ## too',
    );
    assert.equal(headingsAsParagraphs('## What **matters** now'), '__What **matters** now__', 'bold that holds bold');
    assert.equal(headingsAsParagraphs('# A\r\nB\r\n'), '**A**\r\n\r\nB\r\n', 'CRLF kept');
    assert.equal(
      headingsAsParagraphs('- a\n---\n\n| x |\n---'),
      '- a\n---\n\n| x |\n---',
      'a rule after a list item or a table row',
    );
  });

  it("plain documents use the caller's in-text form", () => {
    const r = convertAnswer('X [1.1, 2].', citations, {
      flavour: 'plain',
      keys,
      plain: (cs) => `(${cs.map((c) => c.title).join('; ')})`,
    });
    assert.equal(r.text, 'X (One; Two).');
  });

  it('leaves unknown markers and non-marker brackets alone', () => {
    const r = convertAnswer('[9] [1-3] [ 1 ] [a] [1.1.1] [1.9]', citations, { flavour: 'pandoc', keys });
    assert.equal(r.text, '[9] [1-3] [ 1 ] [a] [1.1.1] [@smith2020one]');
    assert.deepEqual(r.unresolved, ['9']);
  });

  it('sets each citation apart from the words around it as the format reads it', () => {
    const md = (answer: string) => convertAnswer(answer, citations, { flavour: 'pandoc', keys }).text;
    assert.equal(
      md('Adjacent [1][2].'),
      'Adjacent [@smith2020one] [@li2021two].',
      '[@a][@b] would be a reference link',
    );
    assert.equal(md('Glued[1] and [2]{.x} and [2](#x).'), 'Glued [@smith2020one] and [@li2021two] {.x} and [2](#x).');
    assert.equal(md('[1]\n\nAt the start.'), '[@smith2020one]\n\nAt the start.');
    const typ = (answer: string) => convertAnswer(answer, citations, { flavour: 'typst', keys }).text;
    assert.equal(
      typ('A [1]-based view, [2]memory, [1][2].'),
      'A @smith2020one -based view, @li2021two memory, @smith2020one @li2021two.',
    );
    const tex = (answer: string) => convertAnswer(answer, citations, { flavour: 'latex', keys }).text;
    assert.equal(
      tex('Results[1], shown  [2]\n[1] first'),
      'Results~\\cite{smith2020one}, shown~\\cite{li2021two}\n\\cite{smith2020one} first',
    );
    assert.equal(
      convertAnswer('x[1]y', citations, { flavour: 'plain', keys }).text,
      'xsmith2020oney',
      'plain text: the caller decides',
    );
  });

  it('finds code as CommonMark does: fences, indented blocks after an empty line, spans of equal backtick runs', () => {
    const md = (answer: string) => convertAnswer(answer, citations, { flavour: 'pandoc', keys }).text;
    assert.equal(md('`[1]` ``a ` [1]`` ```[1]``` [2]'), '`[1]` ``a ` [1]`` ```[1]``` [@li2021two]');
    assert.equal(md('an unclosed ` then [1]'), 'an unclosed ` then [@smith2020one]');
    assert.equal(md('``x` [1]'), '``x` [@smith2020one]', 'runs of different lengths do not pair');
    assert.equal(md('~~~\n[1]\n~~~\n[2]'), '~~~\n[1]\n~~~\n[@li2021two]');
    assert.equal(md('```\n[1]\n'), '```\n[1]\n', 'an unclosed fence runs to the end');
    assert.equal(
      md('text\n\n    [1] code\n\tand [2]\n[1] text'),
      'text\n\n    [1] code\n\tand [2]\n[@smith2020one] text',
    );
    assert.equal(
      md('text\n    [1] continued'),
      'text\n    [@smith2020one] continued',
      'an indented line in a paragraph is text',
    );
    assert.equal(
      md('`a\n```\n[1]\n```\n` [2]'),
      '`a\n```\n[1]\n```\n` [@li2021two]',
      'a span does not reach over a block',
    );
  });

  it('reports each unknown marker once, in order', () => {
    const r = convertAnswer(`[7] [8.1] ${'[9] '.repeat(50)}[7]`, citations, { flavour: 'pandoc', keys });
    assert.deepEqual(r.unresolved, ['7', '8.1', '9']);
  });
});
