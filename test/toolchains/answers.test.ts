/**
 * Insert Answer's output as the writers' programs read it: the emulator agent's real answers (pro and deep, a
 * follow-up), two in one document, each paper given its entry and key as the editor does (ensureEntry into one
 * growing .bib written by toBibtex), then
 *   - Markdown with quotes as footnotes through pandoc --citeproc: every quoted marker of each answer, in document
 *     order, is a footnote holding that marker's own quote and citing that marker's own paper (the expectation is
 *     read from the answers' `citations[].snippets`); no "Duplicate note reference"; no Header block from an answer;
 *   - LaTeX through pdflatex + BibTeX (natbib) and pdflatex + biblatex/Biber: no error, no unresolved citation, no
 *     overfull box in a table, no page overfull;
 *   - Typst: no error, no unresolved citation.
 * Each suite is skipped, and says so, when its program is not installed (CI requires them all).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createClient, type Client } from '../../src/api';
import type { Citation, Interaction } from '../../src/api/schemas';
import type { CitePaper } from '../../src/citations/types';
import { answerForDocument } from '../../src/bib/answer';
import { ensureEntry } from '../../src/bib/bibAppend';
import { parseBibFile } from '../../src/bib/bibFile';
import { applyEdits } from '../../src/bib/edit';
import { loadBibtexLibrary } from '../../src/bib/library';
import { DEMO_KEYS, startEmulator, type RunningEmulator } from '../emulator';
import { sameText } from './documents';
import {
  compileBiber,
  compileBibtex,
  compilePandoc,
  compileTypst,
  needs,
  tools,
  typstBibliography,
  type CompileResult,
} from './toolchains';

interface Answer {
  label: string;
  response: string;
  citations: Citation[];
}

/** Each paper of the answers gets an entry and a key, as Insert Answer gives them: one .bib, entries reused. */
function bibliographyFor(
  answers: readonly Answer[],
  target: 'tex' | 'unicode' = 'tex',
): { bib: string; keys: Map<string, string> } {
  let bib = '';
  const keys = new Map<string, string>();
  for (const a of answers)
    for (const c of a.citations) {
      const paper: CitePaper = {
        id: c.paper_id!,
        title: c.title ?? null,
        publish_year: c.year ?? null,
        journal_name: c.journal ?? null,
        url: c.url ?? null,
      };
      const r = ensureEntry(parseBibFile(bib), paper, { target });
      if (r.edit) bib = applyEdits(bib, [r.edit]);
      keys.set(c.paper_id!, r.key);
    }
  return { bib, keys };
}

/** The answers inserted one after the other at the end of `document`, each seeing the text before it. */
function insertAll(
  document: string,
  answers: readonly Answer[],
  options: Omit<Parameters<typeof answerForDocument>[2], 'documentText'>,
  after = '',
): string {
  let text = document;
  for (const a of answers)
    text = `${text}${answerForDocument(a.response, a.citations, { ...options, documentText: text + after }).text}\n`;
  return text + after;
}

/** Every quote marker written in an answer, in order (groups `[1.1, 2]` read item by item): its quote and its paper. */
function quotedMarkers(a: Answer): { marker: string; quote: string; paperId: string }[] {
  const out: { marker: string; quote: string; paperId: string }[] = [];
  for (const group of a.response.matchAll(/\[(\d+(?:\.\d+)?(?:\s*[,;]\s*\d+(?:\.\d+)?)*)\]/g))
    for (const item of group[1]!.split(/\s*[,;]\s*/)) {
      if (!item.includes('.')) continue;
      const c = a.citations.find((x) => x.n === Number(item.split('.')[0]));
      const quote = c?.snippets?.find((s) => s.marker === `[${item}]`)?.quote;
      assert.ok(c && quote, `${a.label}: marker [${item}] has its quote`);
      out.push({ marker: item, quote, paperId: c.paper_id! });
    }
  return out;
}

/** Quotes and spaces as pandoc's plain text and our footnotes write them, for comparing text. */
const plain = (s: string): string => s.replace(/[“”]/g, '"').replace(/[‘’]/g, "'").replace(/\s+/g, ' ').trim();

/** Header blocks anywhere in pandoc's reading of a Markdown text, with their text. */
function headers(markdown: string): string[] {
  const r = spawnSync('pandoc', ['-f', 'markdown', '-t', 'json'], { input: markdown, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const node = v as { t?: string; c?: unknown };
      if (node.t === 'Header') out.push(JSON.stringify(node.c).replace(/.*"Str","c":"([^"]*)".*/, '$1'));
      walk(node.c);
    }
  };
  walk((JSON.parse(r.stdout) as { blocks: unknown }).blocks);
  return out;
}

const LATEX_PREAMBLE = '\\documentclass{article}\n\\usepackage[T1]{fontenc}\n';

/** The line ranges (1-based, inclusive) of the tabulars of a LaTeX text. */
function tabularLines(tex: string): [number, number][] {
  const lines = tex.split('\n');
  const out: [number, number][] = [];
  let open = -1;
  lines.forEach((l, i) => {
    if (l.includes('\\begin{tabular}')) open = i + 1;
    if (l.includes('\\end{tabular}') && open > 0) {
      out.push([open, i + 1]);
      open = -1;
    }
  });
  return out;
}

/** Overfull boxes a log reports inside the given line ranges, and every overfull \vbox (a page too tall). */
function overfull(log: string, ranges: readonly [number, number][]): string[] {
  const out: string[] = [];
  for (const m of log.matchAll(
    /^Overfull \\([hv])box \(([\d.]+)pt too \w+\)(?: in (?:paragraph|alignment) at lines (\d+)--(\d+))?.*$/gm,
  )) {
    if (m[1] === 'v') out.push(m[0]);
    else if (m[3] && ranges.some(([a, b]) => Number(m[3]) >= a && Number(m[4]) <= b)) out.push(m[0]);
  }
  return out;
}

/** Papers whose rendered title differs from the service's (the answers' citations give no authors to compare). */
function titleMismatches(r: CompileResult, list: readonly Answer[], keys: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const c of list.flatMap((a) => a.citations)) {
    const e = r.entries.get(keys.get(c.paper_id!)!);
    if (!e) out.push(`${c.title ?? ''}: not in the bibliography`);
    else if (c.title && !sameText(e.title, c.title, { title: true }))
      out.push(`${JSON.stringify(e.title)} for ${JSON.stringify(c.title)}`);
  }
  return out;
}

describe('toolchains: Insert Answer output through pandoc, LaTeX and Typst (emulator answers)', function () {
  this.timeout(600_000);
  let emu: RunningEmulator;
  const clients: Client[] = [];
  const answers: Record<'memoryPro' | 'memoryFollowUp' | 'cognitionDeep' | 'feedbackPro' | 'mindfulnessDeep', Answer> =
    {} as never;

  before(async () => {
    await loadBibtexLibrary();
    emu = await startEmulator({ port: 0, rateLimits: false, speed: 1000, quiet: true });
    const client = (mode: 'pro' | 'deep'): Client => {
      const c = createClient({
        baseUrl: emu.url,
        apiKey: mode === 'pro' ? DEMO_KEYS.pro : DEMO_KEYS.deep,
        rateLimits: { search: Infinity, list: Infinity, poll: Infinity },
      });
      clients.push(c);
      return c;
    };
    const take = (label: string, i: Interaction | undefined): Answer => {
      assert.ok(i?.response && i.citations?.length, `${label}: an answer with citations`);
      return { label, response: i.response, citations: i.citations };
    };
    const ask = async (mode: 'pro' | 'deep', question: string): Promise<{ id: string; answer: Answer }> => {
      const c = client(mode);
      const d = await c.createThread({ input_message: question, mode });
      const t = await c.waitForThread(d, { pollAfterSeconds: 0.01 });
      return { id: d.thread_id, answer: take(`${mode}: ${question}`, t.interactions.at(-1)) };
    };
    const memory = await ask('pro', 'Does creatine supplementation improve memory in older adults?');
    answers.memoryPro = memory.answer;
    const f = await client('pro').addInteraction(memory.id, {
      input_message: 'What about "younger adults" and doses under 5 g per day?',
      mode: 'pro',
    });
    answers.memoryFollowUp = take(
      'pro follow-up',
      (await client('pro').waitForThread(f, { pollAfterSeconds: 0.01 })).interactions.at(-1),
    );
    answers.cognitionDeep = (
      await ask('deep', 'Does creatine supplementation improve cognition in older adults?')
    ).answer;
    answers.feedbackPro = (
      await ask('pro', 'Effect of formative feedback on mathematics performance in secondary school students')
    ).answer;
    answers.mindfulnessDeep = (
      await ask('deep', 'Is mindfulness training effective for reducing anxiety in university students?')
    ).answer;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emu?.close();
  });

  it('two papers of one answer with the same title and year get two entries and their own keys', () => {
    const a = answers.memoryPro;
    const [one, two] = a.citations;
    assert.ok(
      one && two && one.title === two.title && one.year === two.year && one.journal !== two.journal,
      'the emulator answer cites such a pair',
    );
    const { bib, keys } = bibliographyFor([a]);
    assert.equal(
      parseBibFile(bib).entries.length,
      new Set(a.citations.map((c) => c.paper_id)).size,
      'one entry per distinct paper',
    );
    assert.notEqual(keys.get(one.paper_id!), keys.get(two.paper_id!));
    const tex = answerForDocument(a.response, a.citations, { flavour: 'latex', keys }).text;
    // Each list item of the answer ends with one marker: its LaTeX item ends with that paper's key.
    const items = a.response.split('\n').filter((l) => l.startsWith('- '));
    const texItems = tex.split('\n').filter((l) => l.startsWith('\\item '));
    assert.equal(texItems.length, items.length);
    let checked = 0;
    items.forEach((item, i) => {
      const n = /\[(\d+)(?:\.\d+)?\]$/.exec(item)?.[1];
      if (n === undefined) return;
      const key = keys.get(a.citations.find((c) => c.n === Number(n))!.paper_id!)!;
      assert.ok(texItems[i]!.endsWith(`~\\cite{${key}}`), `${item}\n→ ${texItems[i]}`);
      checked++;
    });
    assert.ok(checked > a.citations.length, `${checked} markers checked`);
  });

  describe(`Markdown: quotes as footnotes, two answers in one document (${tools.pandoc ?? 'pandoc not installed'})`, () => {
    const pair = (): Answer[] => [answers.memoryPro, answers.cognitionDeep];
    const documentOf = (list: readonly Answer[], keys: Map<string, string>): string =>
      insertAll(
        '---\ntitle: Draft\n---\n\n# Draft\n\nMy own point.[^mine]\n\n',
        list,
        { flavour: 'pandoc', keys, footnotes: true },
        '\n[^mine]: My own note.\n',
      );
    /** What each footnote must be, in document order: the writer's, then each answer's quoted markers. */
    const expected = (list: readonly Answer[], keys: Map<string, string>): { quote: string; keys: string[] }[] => [
      { quote: 'My own note.', keys: [] },
      ...list.flatMap((a) => quotedMarkers(a).map((m) => ({ quote: m.quote, keys: [keys.get(m.paperId)!] }))),
    ];

    it("in the text: every footnote reference has one definition, holding its marker's quote and citing its paper", () => {
      const list = pair();
      const { keys } = bibliographyFor(list);
      const doc = documentOf(list, keys);
      const definitions = new Map<string, string>();
      for (const m of doc.matchAll(/^\[\^([^\]]+)\]: (.*)$/gm)) {
        assert.ok(!definitions.has(m[1]!), `label ${m[1]} defined twice`);
        definitions.set(m[1]!, m[2]!);
      }
      const references = [...doc.matchAll(/\[\^([^\]\s]+)\](?!:)/g)].map((m) => m[1]!);
      const want = expected(list, keys);
      assert.equal(references.length, want.length, 'one footnote per quoted marker');
      references.forEach((label, i) => {
        const text = definitions.get(label);
        assert.ok(text !== undefined, `[^${label}] is defined`);
        assert.ok(
          plain(text).includes(plain(want[i]!.quote)),
          `[^${label}] (#${i}) holds its own quote: ${want[i]!.quote}`,
        );
        for (const k of want[i]!.keys) assert.ok(text.includes(`[@${k}]`), `[^${label}] cites ${k}: ${text}`);
      });
    });

    it('through pandoc --citeproc: each footnote, in document order, has its own quote and cites its own paper; no duplicate notes', function () {
      needs(this, 'pandoc');
      const list = pair();
      const { bib, keys } = bibliographyFor(list);
      const r = compilePandoc({ document: documentOf(list, keys), bib });
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.unresolved, []);
      assert.deepEqual(
        r.warnings.filter((w) => /duplicate/i.test(w)),
        [],
        'no "Duplicate note reference"',
      );
      const want = expected(list, keys);
      assert.equal(r.notes?.length, want.length);
      r.notes?.forEach((note, i) => {
        assert.ok(
          plain(note.text).includes(plain(want[i]!.quote)),
          `note ${i + 1}: "${note.text}" should hold "${want[i]!.quote}"`,
        );
        assert.deepEqual(note.keys, want[i]!.keys, `note ${i + 1} cites its own paper`);
      });
      assert.equal(
        r.entries.size,
        new Set(list.flatMap((a) => a.citations.map((c) => c.paper_id))).size,
        'one bibliography entry per distinct paper',
      );
    });

    it("without footnotes too: every citation resolves and every paper's title shows as the service gave it", function () {
      needs(this, 'pandoc');
      const list = pair();
      const { bib, keys } = bibliographyFor(list);
      const r = compilePandoc({ document: insertAll('# Draft\n\n', list, { flavour: 'pandoc', keys }), bib });
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.unresolved, []);
      assert.deepEqual(titleMismatches(r, list, keys), []);
      assert.equal(r.notes?.length, 0);
    });

    it("no answer heading becomes a Header block (pandoc -t json): the writer's document keeps its own sections", function () {
      needs(this, 'pandoc');
      const list = [answers.memoryPro, answers.memoryFollowUp, answers.cognitionDeep, answers.mindfulnessDeep];
      const { keys } = bibliographyFor(list);
      for (const footnotes of [false, true]) {
        const doc = insertAll('# Draft\n\n', list, { flavour: 'pandoc', keys, footnotes });
        assert.deepEqual(headers(doc), ['Draft'], `footnotes ${footnotes}`);
        // The headings are still there, as bold paragraphs.
        for (const a of list)
          for (const h of a.response.matchAll(/^#+ (.+)$/gm)) assert.ok(doc.includes(`**${h[1]}**`), h[1]);
      }
    });
  });

  describe(`LaTeX: two answers per document through pdflatex with BibTeX and with Biber (${[tools.pdflatex, tools.bibtex, tools.biber].every(Boolean) ? 'installed' : 'not installed'})`, () => {
    const documents = (): Answer[][] => [
      [answers.memoryPro, answers.cognitionDeep],
      [answers.feedbackPro, answers.mindfulnessDeep],
      [answers.memoryFollowUp, answers.feedbackPro],
    ];

    for (const [name, toolchain] of [
      ['natbib + BibTeX', 'bibtex'],
      ['biblatex + Biber', 'biber'],
    ] as const) {
      it(`${name}: no error, no unresolved citation, no table wider or longer than the page`, function () {
        needs(this, 'pdflatex', toolchain, 'pandoc');
        for (const list of documents()) {
          const { bib, keys } = bibliographyFor(list);
          const body = insertAll('', list, {
            flavour: 'latex',
            keys,
            latexCommand: toolchain === 'bibtex' ? 'citep' : 'autocite',
          });
          const document =
            toolchain === 'bibtex'
              ? `${LATEX_PREAMBLE}\\usepackage{natbib}\n\\begin{document}\n${body}\n\\bibliographystyle{plainnat}\n\\bibliography{refs}\n\\end{document}\n`
              : `${LATEX_PREAMBLE}\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n\\begin{document}\n${body}\n\\printbibliography\n\\end{document}\n`;
          const r = toolchain === 'bibtex' ? compileBibtex({ document, bib }) : compileBiber({ document, bib });
          const what = list.map((a) => a.label).join(' + ');
          assert.deepEqual(r.errors, [], `${what}: errors`);
          assert.deepEqual(r.unresolved, [], `${what}: unresolved`);
          if (toolchain === 'biber') assert.deepEqual(titleMismatches(r, list, keys), [], `${what}: titles`);
          assert.ok(tabularLines(document).length >= 2, 'the answers have tables');
          // BibTeX's .bbl is read (and its lines counted) at the end: what comes after it is the bibliography's.
          const log = toolchain === 'bibtex' ? r.log.split('(./doc.bbl')[0]! : r.log;
          assert.deepEqual(overfull(log, tabularLines(document)), [], `${what}: overfull boxes in tables or pages`);
        }
      });
    }
  });

  it(`Typst: two answers in one document compile with every citation resolved (${tools.typst ?? 'Typst not installed'})`, function () {
    needs(this, 'typst');
    const list = [answers.memoryPro, answers.cognitionDeep];
    const { bib, keys } = bibliographyFor(list, 'unicode');
    const r = compileTypst({
      document: insertAll('= Draft\n\n', list, { flavour: 'typst', keys }, typstBibliography()),
      bib,
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.unresolved, []);
    assert.deepEqual(titleMismatches(r, list, keys), []);
  });
});
