// Hostile answers and citations: nothing executes, no dangerous link, no remote image, no style,
// no markup escapes from text. Checked on the tree a browser builds (parse5) and on the string.
import { strict as assert } from 'node:assert';
import { type Citation } from '../../../src/api/schemas';
import { renderAnswer, renderAnswerDetailed } from '../../../src/render/answer';
import { MARKDOWN_LIMIT, splitForMarkdown } from '../../../src/render/escape';
import { isSafeHttpsUrl, safeHttpsUrl } from '../../../src/shared/url';
import { assertSafe, citation, elements, links, textContent } from './html';

const cites = [citation(1, 1), citation(2, 1)];
const bodyLinks = (md: string) =>
  links(renderAnswerDetailed(md, cites).bodyHtml).filter((e) => e.attrs.class !== 'cite');

describe('render: hostile input', () => {
  it('raw HTML (script, img onerror, event handlers, iframes, style, forms) shows as text', () => {
    const attacks = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)" onclick="alert(2)">x</a>',
      '<div onmouseover="alert(1)" style="position:fixed;inset:0">cover</div>',
      '<iframe src="https://evil.example"></iframe>',
      '<style>body{display:none}</style>',
      '<svg><script>alert(1)</script></svg>',
      '<form action="https://evil.example"><input name=a></form>',
      '<meta http-equiv="refresh" content="0;url=https://evil.example">',
      '<base href="https://evil.example/">',
      '<template><script>alert(1)</script></template>',
      '<!-- comment --><p>para</p>',
    ];
    for (const a of attacks) {
      for (const md of [a, `text ${a} inline`, `<div>\n\n${a}\n\n</div>`, `- item ${a}`, `| h |\n|---|\n| ${a} |`]) {
        const html = renderAnswer(md, cites);
        const els = assertSafe(html);
        assert.ok(els.length > 0);
        // Only linkify's https links from the text (e.g. the iframe's https URL) may appear.
        assert.ok(
          bodyLinks(md).every((l) => l.attrs.href === 'https://evil.example/'),
          `no other link from ${md}`,
        );
        assert.ok(textContent(html).includes(a.replace(/\n/g, '')), `${a} visible as text`);
      }
    }
  });

  it('links with dangerous schemes render as text, however they are spelled', () => {
    const urls = [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      '&#106;avascript:alert(1)',
      '&#x6A;avascript:alert(1)',
      'javascript&colon;alert(1)',
      'java&#9;script:alert(1)',
      'java&NewLine;script:alert(1)',
      '%6Aavascript:alert(1)',
      'jav&#x09;ascript:alert(1)',
      ' javascript:alert(1)',
      '\u0000javascript:alert(1)',
      'vbscript:msgbox(1)',
      'vscode:extension/evil.ext',
      'vscode://evil.ext/run',
      'command:workbench.action.terminal.new',
      'command:_workbench.downloadResource?%5B%22x%22%5D',
      'data:text/html,<script>alert(1)</script>',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:image/png;base64,iVBOR',
      'file:///etc/passwd',
      'file://C:/Windows/win.ini',
      'http://example.org/',
      'mailto:a@example.org',
      'ftp://example.org/x',
      '//evil.example/x',
      '/relative/path',
      '#fragment',
      '?q=1',
      'https:evil.example',
      'https:/evil.example',
      'https:\\\\evil.example',
      'https://user:pass@evil.example/',
      'https://bank.example@evil.example/',
      'vscode-webview://x/index.html',
      'blob:https://x/1',
    ];
    for (const u of urls) {
      for (const md of [
        `[click](${u})`,
        `[click](<${u}>)`,
        `[click][r]\n\n[r]: ${u}`,
        `<${u}>`,
        `[click](${u} "title")`,
      ]) {
        const html = renderAnswer(md, cites);
        assertSafe(html);
        // At most linkify's link of an https URL visible in the leftover text: it goes where it says.
        for (const l of bodyLinks(md))
          assert.equal(new URL(l.text).href, l.attrs.href, `no hidden destination from ${JSON.stringify(md)}`);
        assert.ok(
          !/evil\.example/.test(
            bodyLinks(md)
              .map((l) => l.attrs.href)
              .join(' '),
          ),
          `no link to the attacker from ${JSON.stringify(md)}`,
        );
      }
    }
  });

  it('bare URLs: only https ones are linked (no www. → http:, no e-mail → mailto:)', () => {
    const md =
      'See https://example.org/a, http://example.org/b, www.example.org, user@example.org, mailto:user@example.org and ftp://example.org/c.';
    const html = renderAnswer(md, cites);
    assertSafe(html);
    assert.deepEqual(
      bodyLinks(md).map((e) => e.attrs.href),
      ['https://example.org/a'],
    );
    assert.match(
      textContent(html),
      /http:\/\/example\.org\/b, www\.example\.org, user@example\.org, mailto:user@example\.org and ftp:\/\/example\.org\/c\./,
    );
  });

  it('https links keep their text and get rel="noopener noreferrer"; titles are escaped', () => {
    const md = '[ok](https://example.org/x?a=1&b="2" "t\\"itle <b>") and <https://example.org/y>';
    const html = renderAnswer(md, cites);
    assertSafe(html);
    const ls = bodyLinks(md);
    assert.equal(ls.length, 2);
    assert.equal(ls[0]!.attrs.href, 'https://example.org/x?a=1&b=%222%22');
    assert.equal(ls[0]!.attrs.rel, 'noopener noreferrer');
    assert.equal(ls[0]!.attrs.title, 't"itle <b>');
    assert.equal(ls[0]!.text, 'ok');
  });

  it('markdown images never load: https, http, data and javascript images become their alt text', () => {
    for (const u of [
      'https://evil.example/track.png',
      'http://evil.example/x.png',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'javascript:alert(1)',
      'file:///x.png',
    ]) {
      for (const md of [
        `![alt text](${u})`,
        `![alt text][i]\n\n[i]: ${u}`,
        `[![alt text](${u})](https://example.org/)`,
      ]) {
        const html = renderAnswer(md, cites);
        assertSafe(html);
        assert.ok(!html.includes('evil.example/track'), 'no image URL in the output');
        assert.match(textContent(html), /alt text/);
      }
    }
    const els = elements(renderAnswer('![<img src=x onerror=alert(1)>](https://evil.example/i.png)', cites));
    assert.equal(els.find((e) => e.attrs.class === 'image-omitted')!.text, '[Image: <img src=x onerror=alert(1)>]');
  });

  it('fenced code: the info string cannot add attributes or classes', () => {
    const html = renderAnswer('```js" onclick="alert(1)\nx\n```\n\n```cite\ny\n```\n\n```python\nz\n```', cites);
    const els = assertSafe(html);
    assert.deepEqual(
      els.filter((e) => e.tag === 'code').map((e) => e.attrs.class),
      [undefined, 'language-cite', 'language-python'],
    );
  });

  it('citation fields with HTML and quotes stay text, in elements and attributes', () => {
    const evil = '"><script>alert(1)</script><img src=x onerror=alert(2)>\'';
    const c: Citation = {
      n: 1,
      paper_id: evil,
      title: evil,
      year: 2020,
      journal: evil,
      url: 'javascript:alert(1)',
      snippets: [
        { marker: '[1.1]', quote: evil, section: evil },
        { marker: `[1.2]${evil}`, quote: 'q2', section: null },
      ],
    };
    const r = renderAnswerDetailed(`Claim [1.1] and [1] and [1.2].`, [
      c,
      { ...citation(2, 0), url: 'https://ok.example/p"onmouseover="x' },
    ]);
    const els = assertSafe(r.html);
    const cite = els.find((e) => e.attrs.class === 'cite')!;
    assert.equal(cite.attrs['aria-label'], `Citation 1.1: ${evil}`);
    assert.equal(els.find((e) => e.attrs.class === 'reference-title')!.text, evil);
    assert.equal(els.find((e) => e.attrs.id === 'cite-1')!.attrs['data-paper-id'], evil);
    assert.equal(els.find((e) => e.attrs.id === 'cite-1-1')!.attrs['data-section'], evil);
    assert.equal(els.find((e) => e.attrs.id === 'cite-1-1-text')!.text, evil);
    assert.equal(r.references[0]!.url, undefined, 'a javascript: paper URL is dropped');
    assert.equal(
      els.filter((e) => e.attrs['data-action'] === 'openPaper').length,
      1,
      'no Open Paper without an https URL',
    );
    assert.deepEqual(r.unresolvedMarkers, ['1.2'], 'a malformed snippet marker does not resolve');
    const paper2 = els.find((e) => e.attrs.id === 'cite-2')!;
    assert.equal(paper2.attrs['data-url'], 'https://ok.example/p%22onmouseover=%22x');
  });

  it('duplicate snippet markers keep ids unique (the first quote owns the marker)', () => {
    const c = citation(1, 0, {
      snippets: [
        { marker: '[1.1]', quote: 'first', section: 'A' },
        { marker: '[1.1]', quote: 'second', section: 'B' },
      ],
    });
    const r = renderAnswerDetailed('[1.1]', [c]);
    const els = assertSafe(r.html);
    assert.equal(els.find((e) => e.attrs.id === 'cite-1-1-text')!.text, 'first');
    assert.deepEqual(r.warnings, ['duplicate snippet marker [1.1]']);
  });

  it('control characters and lone surrogates are removed from citation text', () => {
    const r = renderAnswerDetailed('[1]', [citation(1, 0, { title: 'A\u0000B\u0007C\u009b\ud800D' })]);
    assert.equal(r.references[0]!.title, 'ABCD');
  });

  it('pathological input stays linear enough and safe (deep nesting, many brackets)', () => {
    const md = `${'> '.repeat(200)}x\n\n${'['.repeat(5000)}1${']'.repeat(5000)}\n\n${'[1'.repeat(3000)}\n\n${'*'.repeat(3000)}`;
    assertSafe(renderAnswer(md, cites));
  });
});

describe('render: safeHttpsUrl (the host re-checks with it before opening)', () => {
  it('accepts https URLs with a host and returns the canonical form', () => {
    assert.equal(safeHttpsUrl('https://consensus.app/papers/x'), 'https://consensus.app/papers/x');
    assert.equal(safeHttpsUrl('HTTPS://Example.ORG/a b'), undefined, 'a space is refused');
    assert.equal(safeHttpsUrl('HTTPS://Example.ORG/A'), 'https://example.org/A');
    assert.equal(safeHttpsUrl('https://bücher.example/'), 'https://xn--bcher-kva.example/');
  });
  it('refuses everything else', () => {
    for (const u of [
      undefined,
      null,
      42,
      '',
      'http://x.org',
      'https:x.org',
      'https://',
      'https://a:b@x.org',
      'https://x.org\n',
      '\thttps://x.org',
      `https://x.org/${'a'.repeat(2100)}`,
      'javascript:https://x.org',
    ])
      assert.equal(isSafeHttpsUrl(u), false, String(u));
  });
});

describe('render: answers of any size', () => {
  it('reads an answer as Markdown up to the limit and shows the rest as plain text, nothing left out', () => {
    const unit = 'Some **bold** text [1.1].\n\n';
    const head = unit.repeat(Math.floor((MARKDOWN_LIMIT - 20) / unit.length));
    const tail = 'Tail **not bold** <script>alert(1)</script>\r\nsecond line\n\n\n  Last [1.1] paragraph.  ';
    const r = renderAnswerDetailed(head + tail, cites);
    const els = assertSafe(r.html);
    assert.ok(els.filter((e) => e.tag === 'strong').length > 1000, 'the head is Markdown');
    const plain = els.filter((e) => e.attrs.class === 'answer-plain');
    assert.deepEqual(
      plain.map((e) => e.text),
      ['Tail **not bold** <script>alert(1)</script>\nsecond line', 'Last [1.1] paragraph.'],
    );
    assert.ok(textContent(r.bodyHtml).includes('Tail **not bold**'));
  });

  it('cuts at a blank line before the limit, never inside a surrogate pair', () => {
    assert.deepEqual(splitForMarkdown('short'), ['short', '']);
    const [md, rest] = splitForMarkdown(`${'a'.repeat(70)}\n\n${'b'.repeat(40)}`, 100);
    assert.equal(md, 'a'.repeat(70));
    assert.equal(rest, `\n\n${'b'.repeat(40)}`);
    const [md2, rest2] = splitForMarkdown(`${'a'.repeat(99)}😀${'b'.repeat(10)}`, 100);
    assert.equal(md2.length, 99);
    assert.equal(rest2.codePointAt(0), 0x1f600);
  });

  it('finds snippet markers with spaces around them and authors split at semicolons', () => {
    const c = {
      ...citation(1, 0),
      authors: ' Ann Smith ;Bo Li;  ;Cy Doe ',
      snippets: [{ marker: '  [ 1 . 2 ]  ', quote: 'q', section: null }],
    } as Citation;
    const r = renderAnswerDetailed('See [1.2].', [c]);
    assert.deepEqual(r.markers, ['1.2']);
    assert.deepEqual(r.references[0]!.authors, ['Ann Smith', 'Bo Li', 'Cy Doe']);
  });
});
