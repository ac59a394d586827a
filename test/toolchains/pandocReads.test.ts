/**
 * What pandoc itself reads in the Markdown we write: every citation we insert or convert is a Cite of the keys we
 * meant, not a link, a span or a reference-link label, and keys the short form cannot hold come back whole. The
 * rules are asserted without pandoc in syntax.test.ts and answer.test.ts; this holds them to the real reader (skipped,
 * and said so, where pandoc is not installed; CI installs it and requires it).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Citation } from '../../src/api/schemas';
import { convertAnswer } from '../../src/bib/answer';
import { applyEdits } from '../../src/bib/edit';
import { insertCitation } from '../../src/bib/syntax';
import { needs } from './toolchains';

const pandocVersion = ((): string | undefined => {
  const r = spawnSync('pandoc', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n')[0] : undefined;
})();

interface Node {
  t: string;
  c?: unknown;
}

/** Per top-level paragraph: the cited keys, `inside:key` for a citation pandoc put inside a link or a span. */
function citationsByParagraph(markdown: string): string[][] {
  const r = spawnSync('pandoc', ['-f', 'markdown', '-t', 'json'], { input: markdown, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { blocks: Node[] };
  const walk = (value: unknown, inside: boolean, out: string[]): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, inside, out);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const node = value as Node;
    if (node.t === 'Cite') {
      const [citations, text] = node.c as [{ citationId: string }[], unknown];
      for (const c of citations) out.push(inside ? `inside:${c.citationId}` : c.citationId);
      walk(text, inside, out);
      return;
    }
    walk(node.c, inside || node.t === 'Link' || node.t === 'Span', out);
  };
  return doc.blocks
    .filter((b) => b.t === 'Para')
    .map((b) => {
      const out: string[] = [];
      walk(b.c, false, out);
      return out;
    });
}

/** Cite `key` at the `|` of `doc` with insertCitation. */
function cite(doc: string, key: string): string {
  const text = doc.replace('|', '');
  return applyEdits(text, [insertCitation(text, doc.indexOf('|'), 'pandoc', key).edit]);
}

describe(`cite: what pandoc reads in our Markdown (${pandocVersion ?? 'pandoc not installed'})`, function () {
  before(function () {
    needs(this, 'pandoc');
  });

  it('a citation inserted next to brackets, braces, words and quotes is a citation of its key', () => {
    const contexts = [
      'See |(1999).',
      'See |[the notes].',
      'See |{.smallcaps} text.',
      '|memory',
      'shown|memory',
      '[see the docs]|',
      'He said "|',
      'results,|',
      'Text|',
    ];
    const paragraphs = citationsByParagraph(contexts.map((c) => cite(c, 'b')).join('\n\n'));
    assert.deepEqual(
      paragraphs,
      contexts.map(() => ['b']),
    );
  });

  it('joining still joins: into a bracketed citation, and after an in-text one', () => {
    assert.deepEqual(citationsByParagraph([cite('As shown [@a]| here.', 'b'), cite('@a| says', 'b')].join('\n\n')), [
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('keys the short form cannot hold come back whole', () => {
    const keys = ['DBLP:journals/corr/abs-1', 'smith.', "o'brien", 'a--b', 'müller2020', 'x:', 'k_1'];
    assert.deepEqual(
      citationsByParagraph(keys.map((k) => cite('See |.', k)).join('\n\n')),
      keys.map((k) => [k]),
    );
  });

  it("an answer's adjacent markers, glued markers and footnotes are citations and notes", () => {
    const citations: Citation[] = [
      {
        n: 1,
        paper_id: 'p1',
        title: 'One',
        year: 2020,
        journal: 'J',
        url: 'https://x.org/1',
        snippets: [{ marker: '1.1', quote: 'Helped.', section: null }],
      },
      { n: 2, paper_id: 'p2', title: 'Two', year: 2021, journal: 'J', url: 'https://x.org/2', snippets: [] },
    ];
    const keys = new Map([
      ['p1', 'one2020'],
      ['p2', 'two2021'],
    ]);
    const answer = 'Adjacent [1][2].\n\nGlued[2] and [2](#x) then [2]{.c}.\n\nQuoted [1.1, 2].';
    const plain = convertAnswer(answer, citations, { flavour: 'pandoc', keys }).text;
    assert.deepEqual(citationsByParagraph(plain), [
      ['one2020', 'two2021'],
      ['two2021', 'two2021'],
      ['one2020', 'two2021'],
    ]);
    const notes = convertAnswer(answer, citations, { flavour: 'pandoc', keys, footnotes: true }).text;
    // The third paragraph: the note (its quote cites one2020) and the citation of two2021.
    assert.deepEqual(citationsByParagraph(notes)[2], ['one2020', 'two2021']);
  });
});
