// exportAnswerMarkdown: the answer as written, then references whose untrusted fields cannot
// become Markdown structure, links, images or HTML in the exported file.
import { strict as assert } from 'node:assert';
import MarkdownIt from 'markdown-it';
import { exportAnswerMarkdown } from '../../../src/render/exportMarkdown';
import { citation, elements, textContent } from './html';

describe('render: exportAnswerMarkdown', () => {
  it('writes title, the answer unchanged, and numbered references with quotes', () => {
    const md = exportAnswerMarkdown('## Short answer\n\nYes [1.1].\n', [citation(2, 1), citation(1, 2)], {
      title: 'Does it work?',
    });
    assert.equal(
      md,
      [
        '# Does it work?',
        '',
        '## Short answer',
        '',
        'Yes [1.1].',
        '',
        '## References',
        '',
        '1. Paper 1 title. Journal 1, 2001. <https://consensus.app/papers/p1>',
        '   > \\[1.1\\] Quote 1 of paper 1. (Section: Abstract)',
        '   > \\[1.2\\] Quote 2 of paper 1. (Section: Results)',
        '2. Paper 2 title. Journal 2, 2002. <https://consensus.app/papers/p2>',
        '   > \\[2.1\\] Quote 1 of paper 2. (Section: Abstract)',
        '',
      ].join('\n'),
    );
  });

  it('hostile citation fields stay text when the exported file is rendered by a Markdown renderer', () => {
    const evil =
      '# H\n[x](javascript:alert(1)) ![i](https://evil.example/i.png) <img src=x onerror=alert(1)> *e* `c` | &amp; [1]: https://evil.example';
    const out = exportAnswerMarkdown(
      '',
      [
        citation(1, 1, {
          title: evil,
          journal: evil,
          url: 'javascript:alert(1)',
          snippets: [{ marker: '[1.1]', quote: evil, section: evil }],
        }),
      ],
      { title: evil },
    );
    // Render with markdown-it's permissive defaults (raw HTML on), as another tool might.
    const html = new MarkdownIt({ html: true, linkify: true }).render(out);
    const els = elements(html);
    assert.deepEqual(
      els.filter((e) => ['img', 'em', 'code', 'script', 'table'].includes(e.tag)).map((e) => e.tag),
      [],
    );
    // Only the renderer's own linkify of URLs visible in the text: each goes where its text says.
    for (const a of els.filter((e) => e.tag === 'a')) assert.equal(decodeURI(a.attrs.href!), a.text);
    assert.deepEqual(
      els.filter((e) => /^h\d$/.test(e.tag)).map((e) => e.tag),
      ['h1', 'h2'],
      'only the title and References headings',
    );
    assert.ok(textContent(html).includes(evil.replace(/\s+/g, ' ')), 'the text survives verbatim');
    assert.ok(!out.includes('javascript:alert(1)>'), 'no non-https autolink');
  });
});
