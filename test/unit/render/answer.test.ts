// renderAnswer: Markdown features, heading shift, citation markers and the references list.
import { strict as assert } from 'node:assert';
import { renderAnswer, renderAnswerDetailed } from '../../../src/render/answer';
import { assertSafe, citation, elements, links, textContent } from './html';

const cites = [citation(1, 2), citation(2, 1), citation(3, 0)];

describe('render: renderAnswer', () => {
  it('renders headings, lists, tables, emphasis and code; every element allowed', () => {
    const md = [
      '## Short answer',
      '',
      'Some **bold** and *it* and `code`.',
      '',
      '- one',
      '- two',
      '',
      '1. first',
      '2. second',
      '',
      '| A | B |',
      '|:--|--:|',
      '| x | y |',
      '',
      '```',
      'block',
      '```',
      '',
      '> quoted',
    ].join('\n');
    const html = renderAnswer(md, []);
    const els = assertSafe(html);
    const tags = els.map((e) => e.tag);
    for (const t of ['h2', 'strong', 'em', 'code', 'ul', 'ol', 'li', 'table', 'th', 'td', 'pre', 'blockquote'])
      assert.ok(tags.includes(t), `has <${t}>`);
    assert.deepEqual(
      els.filter((e) => e.tag === 'th').map((e) => e.attrs.class),
      ['align-left', 'align-right'],
      'alignment as classes, never style=',
    );
    assert.equal(els[0]!.tag, 'div');
    assert.equal(els[0]!.attrs.class, 'answer-body');
    assert.ok(!tags.includes('section'), 'no references section without citations');
  });

  it('shifts headings so the answer top level is h2 (the view owns h1), capped at h6', () => {
    const deep = elements(renderAnswer('# Title\n\n## Part\n\n### Sub\n\n###### Deepest', [])).filter((e) =>
      /^h\d$/.test(e.tag),
    );
    assert.deepEqual(
      deep.map((e) => e.tag),
      ['h2', 'h3', 'h4', 'h6'],
    );
    const pro = elements(renderAnswer('## Short answer\n\n### Detail', [])).filter((e) => /^h\d$/.test(e.tag));
    assert.deepEqual(
      pro.map((e) => e.tag),
      ['h2', 'h3'],
      'a pro answer starting at ## keeps h2 as its top',
    );
    const top3 = elements(renderAnswer('# A\n\n## B', [], { topHeadingLevel: 3 })).filter((e) => /^h\d$/.test(e.tag));
    assert.deepEqual(
      top3.map((e) => e.tag),
      ['h3', 'h4'],
    );
  });

  it('links [n.m] to its quote and [n] to its paper, with accessible names', () => {
    const r = renderAnswerDetailed('Finding [1.2] and paper [2].', cites);
    const els = assertSafe(r.html);
    const cs = els.filter((e) => e.attrs.class === 'cite');
    assert.equal(cs.length, 2);
    assert.deepEqual(cs[0]!.attrs, {
      class: 'cite',
      href: '#cite-1-2',
      'data-marker': '1.2',
      'data-n': '1',
      role: 'doc-noteref',
      'aria-label': 'Citation 1.2: Paper 1 title',
      'aria-describedby': 'cite-1-2-text',
    });
    assert.equal(cs[0]!.text, '[1.2]');
    assert.equal(cs[1]!.attrs.href, '#cite-2');
    assert.equal(cs[1]!.attrs['aria-label'], 'Citation 2: Paper 2 title');
    assert.equal(cs[1]!.attrs['aria-describedby'], undefined);
    const quote = els.find((e) => e.attrs.id === 'cite-1-2')!;
    assert.equal(quote.attrs['data-marker'], '1.2');
    assert.equal(quote.attrs['data-section'], 'Results');
    assert.match(quote.text, /Quote 2 of paper 1\./);
    assert.equal(els.find((e) => e.attrs.id === 'cite-1-2-text')!.text, 'Quote 2 of paper 1.');
    assert.deepEqual(r.markers, ['1.2', '2']);
    assert.deepEqual(r.unresolvedMarkers, []);
  });

  it('handles adjacent [1.1][2.1] and grouped [1.1, 2.1] / [1.1; 2] markers', () => {
    const r = renderAnswerDetailed('A [1.1][2.1]. B [1.1, 2.1]. C [1.1;2]. D [1, 3].', cites);
    const cs = links(r.html).filter((e) => e.attrs.class === 'cite');
    assert.deepEqual(
      cs.map((e) => e.text),
      ['[1.1]', '[2.1]', '1.1', '2.1', '1.1', '2', '1', '3'],
    );
    assert.deepEqual(
      cs.map((e) => e.attrs.href),
      ['#cite-1-1', '#cite-2-1', '#cite-1-1', '#cite-2-1', '#cite-1-1', '#cite-2', '#cite-1', '#cite-3'],
    );
    assert.match(textContent(r.html), /B \[1\.1, 2\.1\]\. C \[1\.1;2\]\. D \[1, 3\]\./, 'group text kept as written');
  });

  it('leaves unresolved markers as plain text and reports them once, in order', () => {
    const r = renderAnswerDetailed('See [9.9], [1.7], [4] and [9.9] again; group [1.1, 8].', cites);
    assertSafe(r.html);
    assert.deepEqual(r.unresolvedMarkers, ['9.9', '1.7', '4', '8']);
    assert.deepEqual(r.markers, ['1.1']);
    const cs = links(r.html).filter((e) => e.attrs.class === 'cite');
    assert.deepEqual(
      cs.map((e) => e.text),
      ['1.1'],
    );
    assert.match(textContent(r.html), /See \[9\.9\], \[1\.7\], \[4\] and \[9\.9\] again; group \[1\.1, 8\]\./);
  });

  it('leaves markers in code spans, code blocks, escaped brackets and link text alone', () => {
    const r = renderAnswerDetailed(
      'Code `[1.1]` and \\[1.1] and [see [1.1]](https://example.org/x)\n\n```\n[1.1]\n```\n\n    [2]\n',
      cites,
    );
    assertSafe(r.html);
    assert.equal(links(r.html).filter((e) => e.attrs.class === 'cite').length, 0);
    assert.deepEqual(r.markers, []);
    assert.deepEqual(r.unresolvedMarkers, []);
    const a = links(r.bodyHtml).filter((e) => e.attrs.href?.startsWith('https:'));
    assert.equal(a.length, 1);
    assert.equal(a[0]!.text, 'see [1.1]', 'no anchor nested in an anchor');
  });

  it('does not take [1-3], [ 1 ], [a] or [1.1.1] as markers', () => {
    const r = renderAnswerDetailed('[1-3] [ 1 ] [a] [1.1.1] [] [,]', cites);
    assert.deepEqual(r.markers, []);
    assert.deepEqual(r.unresolvedMarkers, []);
  });

  it('markers win over link reference definitions with the same label', () => {
    const r = renderAnswerDetailed(
      'Paper [1] and [2.1].\n\n[1]: https://evil.example/one\n[2.1]: https://evil.example/two\n',
      cites,
    );
    assertSafe(r.html);
    assert.ok(!r.html.includes('evil.example'));
    assert.deepEqual(
      links(r.bodyHtml).map((e) => e.attrs.href),
      ['#cite-1', '#cite-2-1'],
    );
  });

  it('lists references in order of n with title, authors, journal, year, https link and quotes', () => {
    const cs = [
      citation(2, 1),
      citation(1, 2, { authors: ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra'] }),
    ];
    const r = renderAnswerDetailed('x [1.1] [2]', cs);
    const els = assertSafe(r.html);
    const refs = els.filter((e) => e.attrs.class === 'reference');
    assert.deepEqual(
      refs.map((e) => [e.tag, e.attrs.id, e.attrs.value]),
      [
        ['li', 'cite-1', '1'],
        ['li', 'cite-2', '2'],
      ],
    );
    assert.equal(els.find((e) => e.attrs.class === 'reference-list')!.tag, 'ol');
    const entry = els.filter((e) => e.attrs.class === 'reference-entry')[0]!.text;
    assert.equal(
      entry,
      'Paper 1 title. Ada Lovelace, Alan Turing, Grace Hopper et al. Journal 1, 2001. https://consensus.app/papers/p1',
    );
    const section = els.find((e) => e.tag === 'section')!;
    assert.equal(section.attrs['aria-labelledby'], 'references-heading');
    assert.equal(els.find((e) => e.attrs.id === 'references-heading')!.tag, 'h2');
    assert.deepEqual(
      r.references.map((x) => [x.n, x.quotes.map((q) => q.marker)]),
      [
        [1, ['1.1', '1.2']],
        [2, ['2.1']],
      ],
    );
    const actions = els
      .filter((e) => e.tag === 'button')
      .map((e) => `${e.attrs['data-action']}:${e.attrs['data-marker'] ?? e.attrs['data-n']}`);
    assert.deepEqual(actions, ['copyQuote:1.1', 'copyQuote:1.2', 'openPaper:1', 'copyQuote:2.1', 'openPaper:2']);
  });

  it('takes authors from paperInfo, ids from idPrefix, labels from options; actions can be turned off', () => {
    const c = citation(1, 1);
    const html = renderAnswer('[1.1]', [c], {
      idPrefix: 'i2-"x',
      paperInfo: (id) => (id === c.paper_id ? { authors: ['Marie Curie'] } : undefined),
      labels: { references: 'Références', citation: 'Citation n°' },
      actions: false,
    });
    const els = assertSafe(html);
    assert.equal(els.find((e) => e.attrs.class === 'cite')!.attrs.href, '#i2-xcite-1-1');
    assert.equal(els.find((e) => e.attrs.class === 'cite')!.attrs['aria-label'], 'Citation n° 1.1: Paper 1 title');
    assert.equal(els.find((e) => e.attrs.class === 'reference-authors')!.text, 'Marie Curie');
    assert.equal(els.find((e) => e.attrs.class === 'references-heading')!.text, 'Références');
    assert.equal(els.filter((e) => e.tag === 'button').length, 0);
  });

  it('reports bad citations: duplicate n, invalid n, snippet markers naming another paper', () => {
    const r = renderAnswerDetailed('[1.1] [2.1] [0]', [
      citation(1, 1),
      citation(1, 1, { title: 'dup' }),
      citation(2, 0, { snippets: [{ marker: '[3.1]', quote: 'misfiled', section: 'Abstract' }] }),
      { ...citation(5, 0), n: -1 },
      { ...citation(6, 0), n: 1.5 },
    ]);
    assertSafe(r.html);
    assert.equal(r.references.length, 2);
    assert.equal(r.warnings.length, 4);
    assert.deepEqual(r.unresolvedMarkers, ['2.1', '0']);
    assert.ok(textContent(r.referencesHtml).includes('misfiled'), 'an unmarked quote is still listed');
  });

  it('accepts a missing response and missing citations', () => {
    assert.equal(renderAnswer(undefined, undefined), '<div class="answer-body">\n</div>\n');
    assert.equal(renderAnswer(null, null), renderAnswer('', []));
  });
});
