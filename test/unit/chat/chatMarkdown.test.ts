// What the @research participant writes into the chat view is Markdown VS Code renders, with command links to our
// own commands enabled: service text (an answer, titles, quotes) must stay text, links only https by the link rule,
// no image fetched, no HTML, and no command link but the ones the participant built. Checked with markdown-it, a
// CommonMark renderer, as the chat's renderer would read the text.
import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { safeChatMarkdown } from '../../../src/chat/answerMarkdown';
import { answerMarkdown, CHAT_COMMANDS, commandUri, paperListMarkdown } from '../../../src/chat/chatMarkdown';
import { answerRecord } from '../../../src/chat/threadToolInput';
import { paperRecords } from '../../../src/chat/toolInput';
import { SeenPapers } from '../../../src/chat/seenPapers';
import { Commands } from '../../../src/platform/ids';

const md = new MarkdownIt('default', { html: true, linkify: true });

/** Every link and image a CommonMark renderer (with linkify, as VS Code's) finds, and whether HTML got through. */
function rendered(markdown: string): { links: string[]; images: string[]; html: boolean } {
  const links: string[] = [];
  const images: string[] = [];
  let html = false;
  const walk = (tokens: MarkdownIt.Token[]): void => {
    for (const t of tokens) {
      if (t.type === 'link_open') links.push(String(t.attrGet('href') ?? ''));
      if (t.type === 'image') images.push(String(t.attrGet('src') ?? ''));
      if (t.type === 'html_inline' || t.type === 'html_block') html = true;
      if (t.children) walk(t.children);
    }
  };
  walk(md.parse(markdown, {}));
  return { links, images, html };
}

const HOSTILE = [
  '[Renew key](command:researchDesk.clearApiKey)',
  '[x](vscode://file/etc/passwd) and [y](file:///etc/passwd) and <command:researchDesk.setApiKey>',
  '![tracker](https://evil.example/pixel.png) ![b][r]\n\n[r]: https://evil.example/ref.png',
  '<img src=x onerror=alert(1)> <script>alert(1)</script> <a href="command:x">a</a>',
  '[ok](https://consensus.app/papers/1) and https://user:pw@evil.example/ and http://plain.example/',
  '`code [x](command:y)` **bold [z](command:z)** _em_',
  '# Heading [h](command:h)\n\n> quote [q](command:q)\n\n1. one [o](command:o)\n   - nested ![i](https://e/i.png)',
  '| a | [t](command:t) |\n|---|---|\n| <b>x</b> | y |',
  '```\n[fenced](command:f)\n```',
  '[a\\](command:x)b](https://e.example/)',
  'Auto www.evil.example and evil@example.org',
];

describe('chat: service Markdown made safe for the chat view', () => {
  it('keeps no command, file or vscode link, no image, no HTML; https links only by the link rule', () => {
    for (const text of HOSTILE) {
      const out = rendered(safeChatMarkdown(text));
      assert.deepEqual(out.images, [], text);
      assert.equal(out.html, false, text);
      for (const href of out.links) assert.match(href, /^https:\/\/[^@\s]+$/u, `${text} → ${href}`);
    }
  });

  it('keeps the structure a reader needs: bold headings, lists, quotes, code, tables, emphasis, markers', () => {
    const out = safeChatMarkdown(
      '## Findings\n\nCreatine **helps** [1.1] and *may* help [2].\n\n- one\n- two\n  1. deep\n\n> said\n\n`x`\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    assert.match(out, /^\*\*Findings\*\*/u);
    assert.match(out, /\*\*helps\*\* \\\[1\\\.1\\\]/u);
    assert.match(out, /^- one$/mu);
    assert.match(out, /^ {2}1\. deep$/mu);
    assert.match(out, /^> said$/mu);
    assert.match(out, /^\| a \| b \|$/mu);
    const text = md.render(out);
    assert.match(text, /<strong>Findings<\/strong>/u);
    assert.match(text, /\[1\.1\]/u);
    assert.match(text, /<li>deep<\/li>/u);
    assert.match(text, /<table>/u);
  });

  it('links stay links when the rule allows them, with their text', () => {
    const out = rendered(
      safeChatMarkdown('See [the paper](https://consensus.app/papers/1) and https://doi.org/10.1/x.'),
    );
    assert.deepEqual(out.links, ['https://consensus.app/papers/1', 'https://doi.org/10.1/x']);
  });
});

describe('chat: the participant’s papers and answers', () => {
  const paper = {
    title: 'Sleep [x](command:researchDesk.clearApiKey) ![i](https://e/i.png)',
    authors: ['A <b>One</b>', 'B'],
    publish_year: 2021,
    journal_name: 'J](command:x)',
    takeaway: '<script>1</script> [t](command:t)',
    study_type: 'rct',
    citation_count: 3,
    url: 'https://consensus.app/papers/sleep/abc',
    doi: '10.1/x',
  };

  it('a list of papers: its only command links are Cite links to Insert Citation, with the paper as JSON', () => {
    const records = paperRecords([paper], () => 'one2021sleep');
    const text = paperListMarkdown(records, {
      citePaper: () => ({ title: paper.title, authors: paper.authors, id: 'abc' }),
      labels: { cite: 'Cite', key: 'key' },
    });
    const out = rendered(text);
    assert.equal(out.html, false);
    assert.deepEqual(out.images, []);
    const commands = out.links.filter((l) => l.startsWith('command:'));
    assert.equal(commands.length, 1, text);
    assert.ok(commands[0]!.startsWith(`command:${Commands.insertCitation}?`));
    const args = JSON.parse(decodeURIComponent(commands[0]!.slice(commands[0]!.indexOf('?') + 1))) as unknown[];
    assert.deepEqual(args, [{ title: paper.title, authors: paper.authors, id: 'abc' }]);
    for (const l of out.links.filter((h) => !h.startsWith('command:'))) assert.match(l, /^https:\/\//u);
    assert.match(text, /`one2021sleep`/u);
  });

  it('an answer: the text safe, the references with quotes and Cite links; only our commands', () => {
    const record = answerRecord(
      {
        thread_id: 't',
        title: 'T',
        status: 'idle',
        url: 'https://consensus.app/t',
        interactions: [
          {
            interaction_id: 'i',
            status: 'idle',
            response: HOSTILE.join('\n\n'),
            citations: [
              {
                n: 1,
                paper_id: 'p1',
                title: 'P [x](command:y)',
                snippets: [{ marker: '1.1', quote: 'q ](command:z)' }],
              },
            ],
          },
        ],
      },
      () => undefined,
    );
    const text = answerMarkdown(record, {
      citePaper: (p) => ({ title: p.title, id: p.id }),
      labels: { references: 'References', cite: 'Cite', untitled: 'Untitled' },
    });
    const out = rendered(text);
    assert.deepEqual(out.images, []);
    assert.equal(out.html, false);
    for (const l of out.links)
      assert.ok(
        /^https:\/\/[^@\s]+$/u.test(l) || CHAT_COMMANDS.some((c) => l.startsWith(`command:${c}?`)),
        `an unexpected link: ${l}`,
      );
    assert.equal(out.links.filter((l) => l.startsWith('command:')).length, 1);
    assert.match(text, /\\\[1\\?\.1\\\] q/u);
  });

  it('command arguments cannot end the link early: parentheses, quotes and brackets are encoded', () => {
    const uri = commandUri(Commands.insertCitation, [{ title: 'a) [b] (c "d" \'e\' <f>' }]);
    assert.ok(!/[()<>\s"'[\]]/u.test(uri.slice('command:'.length)), uri);
    const link = rendered(`[Cite](${uri})`).links[0];
    assert.equal(link, uri);
  });
});

describe('chat: the papers the tools returned', () => {
  it('found again by id, DOI in any common form, and the cite key shown; the oldest forgotten past the cap', () => {
    const seen = new SeenPapers(3);
    const p = (i: number): { title: string; url: string; doi: string } => ({
      title: `P${i}`,
      url: `https://consensus.app/papers/p${i}`,
      doi: `10.1/P${i}`,
    });
    seen.remember([1, 2].map((i) => ({ paper: p(i), citeKey: `k${i}` })));
    assert.equal(seen.find('p1')?.title, 'P1');
    assert.equal(seen.find('https://doi.org/10.1/p2')?.title, 'P2');
    assert.equal(seen.find('doi:10.1/P2')?.title, 'P2');
    assert.equal(seen.find('k2')?.title, 'P2');
    seen.remember([3, 4].map((i) => ({ paper: p(i), citeKey: `k${i}` })));
    assert.equal(seen.size, 3);
    // The last of the earliest list goes first (a list's first paper is its best).
    assert.equal(seen.find('p2'), undefined, 'the oldest is forgotten');
    assert.equal(seen.find('p1')?.title, 'P1');
    assert.equal(seen.find('k4')?.title, 'P4');
    // Seen again: one entry, the newest record.
    seen.remember([{ paper: { ...p(3), title: 'P3 again' }, citeKey: 'k3' }]);
    assert.equal(seen.size, 3);
    assert.equal(seen.find('p3')?.title, 'P3 again');
    assert.equal(seen.find('nothing'), undefined);
  });
});
