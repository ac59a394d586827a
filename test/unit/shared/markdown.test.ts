// Service text in the results view's tooltips (markdownWithSafeLinks): a URL is a link only when the one link rule
// allows it; any other is text that no Markdown autolink can pick up again. The oracle for "no autolink": VS Code's
// Markdown (marked, GitHub's autolinks) starts one only at a literal `scheme://` or `www.`; markdown-it with linkify
// is asked too, for the links it would render.
import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import {
  escapeInlineMarkdown,
  escapeMarkdown,
  markdownLink,
  markdownWithSafeLinks,
} from '../../../src/shared/markdown';
import { safeHttpsUrl } from '../../../src/shared/url';
import { fill, linearTimeSuite, type Scanner } from '../adversarial/linearTime';

/** Our link destinations (`](<…>)`) taken out: what is left must hold no `scheme://` an autolink could start at. */
const outsideLinks = (md: string): string => md.replace(/\]\(<[^>\n]*>\)/g, '](…)');
const autolinkStart = /[a-z0-9]:\/\/|www\./i;

/** The hrefs markdown-it (linkify on, fuzzy links too) renders for `md`. */
function renderedLinks(md: string): string[] {
  const out: string[] = [];
  const walk = (tokens: MarkdownIt.Token[]): void => {
    for (const t of tokens) {
      if (t.type === 'link_open') out.push(String(t.attrGet('href') ?? ''));
      if (t.children) walk(t.children);
    }
  };
  walk(new MarkdownIt({ linkify: true }).parseInline(md, {}));
  return out;
}

describe('shared: escapeMarkdown (untrusted text as inline Markdown)', () => {
  it('escapes every character that can start Markdown syntax and keeps the text on one line', () => {
    assert.equal(
      escapeMarkdown('a*b_c[d](e)<f>|g~h&i!j#k`l\\m\nn+o-p.q{r}'),
      'a\\*b\\_c\\[d\\]\\(e\\)&lt;f\\>\\|g\\~h&amp;i\\!j\\#k\\`l\\\\m n\\+o\\-p\\.q\\{r\\}',
    );
  });

  // A `scheme://` is left for a linkifying renderer to find; markdownWithSafeLinks is for that (below).
  it('renders as the text itself: no element, no link, the words intact', () => {
    const md = new MarkdownIt({ linkify: true });
    for (const text of [
      '# Title',
      '- item',
      '1. item',
      '> quote',
      '**bold** _em_ `code`',
      '[x](e.org)',
      '<b>x</b> &amp;',
      '| a | b |',
      'www.example.org a@b.org',
    ]) {
      const html = md.render(escapeMarkdown(text));
      assert.match(html, /^<p>[^<]*<\/p>\n$/, `${text} → ${html}`);
      const shown = html
        .slice(3, -5)
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
      assert.equal(shown, text);
    }
  });
});

describe('shared: escapeInlineMarkdown (an exported file, readable as it is)', () => {
  it('escapes inline syntax only, and keeps the text on one line', () => {
    assert.equal(
      escapeInlineMarkdown('a*b_c[d](e)<f>|g~h&i!j#k`l\\m\nn. 1-2'),
      'a\\*b\\_c\\[d\\](e)\\<f\\>\\|g\\~h\\&i\\!j\\#k\\`l\\\\m n. 1-2',
    );
    assert.equal(escapeInlineMarkdown(' - a'), '\\- a');
    assert.equal(escapeInlineMarkdown('12. a'), '12\\. a');
  });

  it('after a block marker, renders as the text itself', () => {
    const md = new MarkdownIt();
    for (const text of [
      '**bold** _em_ `code`',
      '[x](e.org) ![i](e.png)',
      '<b>x</b> &amp;',
      '| a | b |',
      '# not a heading',
      '- not an item',
      '+ item',
      ' -  spaced item',
      '2. item',
      '3) item',
      '=== underline',
      '---',
      '> quote',
    ])
      for (const marker of ['# ', '1. ', '> ']) {
        const html = md.render(`${marker}${escapeInlineMarkdown(text)}`);
        assert.doesNotMatch(
          html.replace(/^<(h1|ol|blockquote)>\n?(<li>|<p>)?/, ''),
          /<(?!\/)/,
          `${marker}${text} → ${html}`,
        );
      }
  });
});

describe('shared: markdownLink', () => {
  it('links a label to an allowed URL, and leaves the label as text otherwise', () => {
    assert.deepEqual(renderedLinks(markdownLink('Paper [1]', 'https://doi.org/10.1/x(y)')), [
      'https://doi.org/10.1/x%28y%29',
    ]);
    for (const url of ['javascript:alert(1)', 'http://example.org', 'https://u:p@example.org', undefined])
      assert.deepEqual(renderedLinks(markdownLink('Paper https://evil.example', url)), [], String(url));
  });
});

describe('shared: markdownWithSafeLinks (tooltip text)', () => {
  it('makes an allowed https URL a link to its canonical form, with its text escaped', () => {
    const md = markdownWithSafeLinks('Full text at https://Example.ORG/papers/a_b*c today');
    assert.equal(
      md,
      'Full text at [https\\://Example\\.ORG/papers/a\\_b\\*c](<https://example.org/papers/a_b*c>) today',
    );
    assert.deepEqual(renderedLinks(md), ['https://example.org/papers/a_b*c']);
  });

  it('leaves no link for a URL the rule refuses, and no scheme an autolink could start at', () => {
    const hostile = [
      'https://user:pass@evil.example/x',
      'https://consensus.app@evil.example/papers/x',
      'http://evil.example/',
      'HTTPS://user@evil.example',
      'ftp://evil.example/f',
      'javascript://%0Aalert(1)',
      'vscode://evil.extension/x',
      'file:///etc/passwd',
      'https://intranet/x',
      'https://evil.example/\u202etxt.exe',
      'https://evil.example/a\u200bb',
      'xhttps://evil.example/',
      `https://example.org/${'a'.repeat(2100)}`,
    ];
    for (const url of hostile) {
      for (const text of [url, `See ${url} now.`, `(${url})`, `**${url}**`, `[x](${url})`, `<${url}>`]) {
        const md = markdownWithSafeLinks(text);
        assert.doesNotMatch(outsideLinks(md), autolinkStart, `${text} → ${md}`);
        assert.deepEqual(renderedLinks(md), [], `${text} → ${md}`);
        assert.ok(!md.includes('](<'), `${text} → ${md}`);
      }
    }
  });

  it('keeps trailing punctuation and an unbalanced ) outside the link, as GitHub does', () => {
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('See https://example.org/a.')), ['https://example.org/a']);
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('(see https://example.org/a)')), ['https://example.org/a']);
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('https://en.example.org/wiki/A_(b)), and')), [
      'https://en.example.org/wiki/A_%28b%29',
    ]);
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('"https://example.org/q?x=1";')), [
      'https://example.org/q?x=1',
    ]);
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('<https://example.org/a>')), ['https://example.org/a']);
  });

  it('encodes what could end a destination early; nothing of the URL becomes Markdown', () => {
    const md = markdownWithSafeLinks('https://example.org/>](command:workbench.action.quit)');
    assert.doesNotMatch(md, /(^|[^\\])\]\(command:/);
    assert.deepEqual(renderedLinks(md), ['https://example.org/%3E%5D%28command:workbench.action.quit%29']);
    const md2 = markdownWithSafeLinks('https://example.org/[x](y)<b>');
    assert.ok(!md2.includes('<b>'), md2);
    assert.equal(renderedLinks(md2).length, 1);
  });

  it('is escapeMarkdown where there is no URL', () => {
    for (const text of [
      'plain words',
      '**bold** `code` <img src=x> [x](y)',
      'a: b // c',
      'ratio 1:2, www\u200b.example.org',
      'mailto:a@b.org',
    ])
      assert.equal(markdownWithSafeLinks(text), escapeMarkdown(text));
    assert.deepEqual(renderedLinks(markdownWithSafeLinks('write to a@example.org or see www.example.org')), []);
  });

  it('agrees with the link rule on every URL it links', () => {
    const text = 'a https://example.org/x b https://user@x.org c https://bücher.example/y d https://1.2.3.4:8443/z e';
    const links = renderedLinks(markdownWithSafeLinks(text));
    assert.deepEqual(links, ['https://example.org/x', 'https://xn--bcher-kva.example/y', 'https://1.2.3.4:8443/z']);
    for (const href of links) assert.equal(safeHttpsUrl(href), href);
  });
});

const OWN_INPUTS = (n: number): { name: string; text: string }[] => [
  { name: 'a word as long as the input (a scheme never ended)', text: fill('a', n) },
  { name: 'schemes without a host, repeated', text: fill('ab://', n) },
  { name: 'one URL closed by parentheses', text: `https://example.org/${fill(')', n - 20)}` },
  { name: 'one URL of opened parentheses and punctuation', text: `https://example.org/${fill('(.,', n - 20)}` },
  { name: 'many allowed URLs', text: fill('https://example.org/a ', n) },
  { name: 'many refused URLs', text: fill('https://u:p@e.org/ ', n) },
];

const SCANNERS: Scanner[] = [
  {
    name: 'shared: markdownWithSafeLinks (tooltip text)',
    families: ['markdown'],
    extra: OWN_INPUTS,
    run: (s) => markdownWithSafeLinks(s),
  },
];

linearTimeSuite('shared: markdownWithSafeLinks in linear time', SCANNERS);
