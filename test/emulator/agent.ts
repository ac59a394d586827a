// The deterministic research agent behind Threads: searches the corpus under the thread's
// filters (and attachments), "reads" the top papers and writes a Markdown answer whose
// [n.m] / [n] markers match its citations; every quote is copied verbatim from the cited
// paper's abstract or a full-text section.
import { type Paper } from './corpus';
import { type Filters, type SearchEngine, tokenize } from './engine';
import { type ThreadBody } from './validation';

export interface Snippet {
  marker: string;
  quote: string;
  section: string;
}
export interface Citation {
  n: number;
  paper_id: string;
  title: string;
  year: number;
  journal: string;
  url: string;
  snippets: Snippet[];
}
export interface Stats {
  retrieved: number;
  screened: number;
  included: number;
}
export interface TraceStep {
  /** Fraction of the run (0..1) at which the step happens. */
  at: number;
  text: string;
}
export interface AgentOutput {
  response: string;
  citations: Citation[];
  stats: Stats;
  steps: TraceStep[];
}
export interface EarlierTurn {
  input_message: string;
  citations: Citation[];
}

const READ = { pro: 20, deep: 50 } as const;
const SCREEN = { pro: 60, deep: 150 } as const;
const CITE = { pro: 8, deep: 15 } as const;

const QUESTION_WORDS =
  /^(?:(?:does|do|did|is|are|was|were|can|could|should|would|will|has|have|what|which|how|why|when|where|who|whether|to what extent|in what ways?|please|tell me|find|review|summari[sz]e|compare|explain)\b[\s,:]*)+/i;

/** FNV-1a over UTF-16 units: picks a title frame per message, deterministically. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The subject of a message: its first sentence without the leading question words or the final punctuation. */
export function topicOf(message: string): string {
  const first = (message.trim().split(/(?<=[.?!])\s+|\n/)[0] ?? message).replace(/\s+/g, ' ').trim();
  return (
    first
      .replace(QUESTION_WORDS, '')
      .replace(/[\s.?!:;,]+$/, '')
      .trim() || first
  );
}

const clip = (s: string, max: number): string =>
  s.length > max ? `${s.slice(0, max - 1).replace(/\s+\S*$/, '')}…` : s;
const TITLE_FRAMES: ((topic: string) => string)[] = [
  (t) => `Evidence on ${t}`,
  (t) => `Research review — ${t}`,
  (t) => `${t.charAt(0).toUpperCase()}${t.slice(1)}: what the studies show`,
  (t) => `Studies of ${t}`,
];

/**
 * Thread title generated from the first message, as the service's own summary would be: the
 * message's subject in one of a few frames ("Evidence on …", "Research review — …"), at most
 * 80 characters, so it rarely starts like the brief; null when the message has no word of three
 * or more letters (the list then shows a substitute).
 */
export function titleFrom(message: string): string | null {
  if (!/\p{L}{3,}/u.test(message)) return null;
  return clip(TITLE_FRAMES[hash(message) % TITLE_FRAMES.length]!(clip(topicOf(message), 60)), 80);
}

/**
 * List preview of a thread's latest interaction: a rephrasing of the question while it runs,
 * the answer's first sentence (without Markdown or citation markers) once it is idle, a notice
 * when it failed; at most 160 characters. Never the brief as sent.
 */
export function previewOf(message: string, status: 'running' | 'idle' | 'failed', response: string): string {
  if (status === 'failed') return 'The research agent could not complete this run.';
  if (status === 'running') return clip(`Looking into ${topicOf(message)}`, 160);
  const prose = response.split('\n').find((l) => l.trim() !== '' && !/^\s*(#|\||-|>)/.test(l)) ?? '';
  const sentence = prose.replace(/\s*\[\d+(?:\.\d+)?\]/g, '').split(/(?<=[.!?])\s/)[0] ?? '';
  return clip(sentence.trim() || 'Answer ready.', 160);
}

/** Markdown table cell: no pipes or line breaks can escape the cell. */
const cell = (s: string): string =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');

function describeFilters(f: Filters | null): string {
  if (!f) return 'none';
  const parts = Object.entries(f)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : String(v)}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

interface Candidate {
  section: string;
  quote: string;
  score: number;
  order: number;
}

function bestQuotes(engine: SearchEngine, p: Paper, terms: string[], max: number): Candidate[] {
  const idf = new Map(terms.map((t) => [t, engine.idf(t)]));
  const cands: Candidate[] = [];
  let order = 0;
  const consider = (section: string, sentence: string): void => {
    const toks = new Set(tokenize(sentence));
    let s = 0;
    for (const t of terms) if (toks.has(t)) s += idf.get(t)!;
    // Prefer findings over restated aims: results sections and sentences with numbers.
    if (s > 0 && (section === 'Results' || /\d/.test(sentence))) s += 3;
    if (/^(This|These findings|In this perspective)\b/.test(sentence)) s -= 2;
    cands.push({ section, quote: sentence, score: s, order: order++ });
  };
  for (const s of p.abstractSentences) consider('Abstract', s);
  for (const sec of p.fullText ?? []) for (const s of sec.sentences) consider(sec.heading, s);
  cands.sort((a, b) => b.score - a.score || a.order - b.order);
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const c of cands) {
    if (seen.has(c.quote)) continue;
    seen.add(c.quote);
    out.push(c);
    if (out.length >= max) break;
  }
  return out;
}

const EFFECT_WORD = { pos: 'a benefit', null: 'no clear effect', neg: 'harm' } as const;

export function runAgent(engine: SearchEngine, body: ThreadBody, earlier: EarlierTurn[]): AgentOutput {
  const mode = body.mode;
  const steps: TraceStep[] = [];
  const step = (at: number, text: string): void => {
    steps.push({ at, text });
  };
  const filters = body.filters ?? {};
  const isFollowUp = earlier.length > 0;
  const firstQuestion = earlier[0]?.input_message;
  step(
    0,
    `Planning: ${isFollowUp ? 'follow-up to an earlier turn; ' : ''}${mode} mode, filters: ${describeFilters(body.filters)}.`,
  );

  // Scope: attached papers only, when given.
  let restrict: Set<number> | undefined;
  const missing: string[] = [];
  if (body.attachments && body.attachments.paper_ids.length > 0) {
    restrict = new Set();
    for (const id of body.attachments.paper_ids) {
      const p = engine.byId.get(id);
      if (p) restrict.add(p.index);
      else missing.push(id);
    }
    step(
      0.02,
      `Attachments: ${restrict.size} of ${body.attachments.paper_ids.length} attached papers found${missing.length > 0 ? `; not found: ${missing.slice(0, 5).join(', ')}` : ''}.`,
    );
  }
  if (body.attachments && body.attachments.collection_ids.length > 0) {
    step(
      0.03,
      `Searching attached collections: ${body.attachments.collection_ids.map(String).join(', ')} (no papers in these collections are visible to the agent).`,
    );
  }

  // Searches: the question itself, then the question with earlier context (follow-ups).
  // Follow-ups search the new question together with the earlier ones first.
  const query = body.input_message.slice(0, 2000);
  let hits = engine.search(query, filters, { restrict });
  step(0.08, `search: "${query.slice(0, 120)}" → ${hits.length} results`);
  if (isFollowUp) {
    const ctx = `${query} ${earlier.map((e) => e.input_message.slice(0, 500)).join(' ')}`;
    const withContext = engine.search(ctx, filters, { restrict });
    step(0.14, `search with earlier context: "${ctx.slice(0, 120)}" → ${withContext.length} results`);
    const seen = new Set(withContext.map((h) => h.paper.index));
    hits = withContext.concat(hits.filter((h) => !seen.has(h.paper.index)));
  }
  if (restrict && hits.length < restrict.size) {
    // Attached papers are always read, even when the question shares no words with them.
    const seen = new Set(hits.map((h) => h.paper.index));
    for (const i of restrict) if (!seen.has(i)) hits.push({ paper: engine.papers[i]!, score: 0 });
  }
  step(0.2, `citation crawl: followed references of the top ${Math.min(5, hits.length)} papers.`);

  const retrieved = Math.min(hits.length, 1000);
  const screened = Math.min(retrieved, SCREEN[mode]);
  const included = Math.min(screened, READ[mode]);
  const read = hits.slice(0, included).map((h) => h.paper);
  step(0.3, `screening: ${screened} of ${retrieved} records screened.`);
  read.forEach((p, i) =>
    step(
      0.35 + (0.45 * i) / Math.max(1, read.length),
      `reading: "${p.title.slice(0, 100)}" (${p.year}, ${p.journal}).`,
    ),
  );

  // Citations: earlier citations that are still in scope come first (follow-ups), then new papers.
  const prevPaperIds = new Set<string>();
  const ordered: Paper[] = [];
  if (isFollowUp) {
    const last = earlier[earlier.length - 1]!;
    for (const c of last.citations.slice(0, 3)) {
      const p = engine.byId.get(c.paper_id);
      if (p && (!restrict || restrict.has(p.index))) {
        ordered.push(p);
        prevPaperIds.add(p.id);
      }
    }
  }
  for (const p of read) {
    if (ordered.length >= CITE[mode]) break;
    if (!ordered.includes(p)) ordered.push(p);
  }
  const terms = [...new Set(tokenize(`${query} ${isFollowUp ? (firstQuestion ?? '') : ''}`))];
  const citations: Citation[] = ordered.map((p, i) => {
    const n = i + 1;
    const quotes = bestQuotes(engine, p, terms, i < 3 || mode === 'deep' ? 2 : 1);
    return {
      n,
      paper_id: p.id,
      title: p.title,
      year: p.year,
      journal: p.journal,
      url: p.url,
      snippets: quotes.map((q, m) => ({ marker: `[${n}.${m + 1}]`, quote: q.quote, section: q.section })),
    };
  });
  step(
    0.85,
    `writing: ${citations.length} papers cited with ${citations.reduce((a, c) => a + c.snippets.length, 0)} quotes.`,
  );

  const response =
    mode === 'deep'
      ? writeDeep(body, citations, ordered, { retrieved, screened, included }, earlier, missing)
      : writePro(body, citations, ordered, { retrieved, screened, included }, earlier, missing);
  step(1, 'done.');
  return { response, citations, stats: { retrieved, screened, included }, steps };
}

function snippetLine(c: Citation, p: Paper, m: number): string {
  const s = c.snippets[m];
  if (!s) return `- ${p.takeaway ?? p.title} [${c.n}]`;
  return `- ${p.year}, ${p.studyType ?? 'study'}: "${s.quote}" ${s.marker}`;
}

function table(citations: Citation[], papers: Paper[]): string[] {
  const rows = ['| Ref | Study | Year | Design | Sample | Finding |', '|---|---|---|---|---|---|'];
  citations.forEach((c, i) => {
    const p = papers[i]!;
    const sample =
      p.sampleSize !== null ? String(p.sampleSize) : p.studyCount !== null ? `${p.studyCount} studies` : '—';
    rows.push(
      `| [${c.n}] | ${cell(p.title)} | ${p.year} | ${cell(p.studyType ?? 'unknown')} | ${sample} | ${EFFECT_WORD[p.effect]} |`,
    );
  });
  return rows;
}

function tally(papers: Paper[]): { pos: number; null: number; neg: number } {
  const t = { pos: 0, null: 0, neg: 0 };
  for (const p of papers) t[p.effect]++;
  return t;
}

function verdict(t: { pos: number; null: number; neg: number }): string {
  const total = t.pos + t.null + t.neg;
  if (total === 0) return 'no studies in scope';
  if (t.pos >= 0.6 * total) return 'mostly a benefit';
  if (t.null + t.neg >= 0.6 * total) return 'little or no benefit';
  return 'mixed results';
}

function intro(body: ThreadBody, earlier: EarlierTurn[]): string[] {
  if (earlier.length === 0) return [];
  const prev = earlier[earlier.length - 1]!.input_message.replace(/\s+/g, ' ').slice(0, 160);
  return [
    `Building on your earlier question ("${prev}"), this answer reuses the papers cited before where they still apply and adds new ones.`,
    '',
  ];
}

function noEvidence(body: ThreadBody, missing: string[]): string {
  const lines = [
    '## Answer',
    '',
    'I could not find studies in scope that address this question with the filters and attachments given.',
  ];
  if (missing.length > 0)
    lines.push(
      '',
      `The following attached paper ids were not found: ${missing.map((m) => `\`${m.replace(/`/g, '')}\``).join(', ')}.`,
    );
  lines.push(
    '',
    '## Suggestions',
    '',
    '- Broaden the filters (years, study types, domains).',
    '- Rephrase the question with the key terms of the field.',
  );
  void body;
  return lines.join('\n');
}

function writePro(
  body: ThreadBody,
  citations: Citation[],
  papers: Paper[],
  stats: Stats,
  earlier: EarlierTurn[],
  missing: string[],
): string {
  if (citations.length === 0) return noEvidence(body, missing);
  const t = tally(papers);
  const first = citations[0]!;
  const second = citations[1];
  const lines: string[] = [];
  lines.push(earlier.length > 0 ? '## Follow-up answer' : '## Short answer', '');
  lines.push(...intro(body, earlier));
  lines.push(
    `Across the ${stats.included} papers read, the evidence shows ${verdict(t)}: ${t.pos} of ${papers.length} cited studies report a benefit, ` +
      `${t.null} no clear effect and ${t.neg} harm. The strongest match is ${first.snippets[0]?.marker ?? `[${first.n}]`}` +
      (second ? `, supported by ${second.snippets[0]?.marker ?? `[${second.n}]`}.` : '.'),
    '',
  );
  lines.push('## What the studies found', '');
  citations.forEach((c, i) => {
    const p = papers[i]!;
    if (c.snippets.length === 0) lines.push(`- ${p.takeaway ?? p.title} [${c.n}]`);
    c.snippets.forEach((_, m) => lines.push(snippetLine(c, p, m)));
  });
  lines.push('', '## Evidence table', '', ...table(citations, papers), '');
  lines.push('## Bottom line', '', `${papers[0]!.takeaway ?? 'See the cited studies.'} [${first.n}]`);
  return lines.join('\n');
}

function writeDeep(
  body: ThreadBody,
  citations: Citation[],
  papers: Paper[],
  stats: Stats,
  earlier: EarlierTurn[],
  missing: string[],
): string {
  if (citations.length === 0) return `# Research report\n\n${noEvidence(body, missing)}`;
  const t = tally(papers);
  const lines: string[] = [];
  const title = titleFrom(body.input_message) ?? 'Research report';
  lines.push(`# ${title}`, '');
  lines.push(...intro(body, earlier));
  lines.push('## Executive summary', '');
  const c1 = citations[0]!;
  lines.push(
    `The evidence shows ${verdict(t)}. Of ${papers.length} cited studies, ${t.pos} report a benefit, ${t.null} no clear effect and ${t.neg} harm. ` +
      `The most relevant finding: "${c1.snippets[0]?.quote ?? papers[0]!.title}" ${c1.snippets[0]?.marker ?? `[${c1.n}]`}.`,
    '',
  );
  lines.push('## Methods', '');
  lines.push(
    `- Searches: the question${earlier.length > 0 ? ' and the earlier turns' : ''}, followed by a citation crawl.`,
    `- Filters: ${describeFilters(body.filters)}.`,
    `- Records: ${stats.retrieved} retrieved, ${stats.screened} screened, ${stats.included} read in full or in abstract.`,
    '',
  );
  lines.push('## Findings', '');
  const groups: [string, Paper['effect'][]][] = [
    ['Studies reporting a benefit', ['pos']],
    ['Studies reporting no clear effect or harm', ['null', 'neg']],
  ];
  for (const [heading, effects] of groups) {
    const idx = papers.map((p, i) => (effects.includes(p.effect) ? i : -1)).filter((i) => i >= 0);
    if (idx.length === 0) continue;
    lines.push(`### ${heading}`, '');
    for (const i of idx) {
      const c = citations[i]!;
      if (c.snippets.length === 0) lines.push(`- ${papers[i]!.takeaway ?? papers[i]!.title} [${c.n}]`);
      c.snippets.forEach((_, m) => lines.push(snippetLine(c, papers[i]!, m)));
    }
    lines.push('');
  }
  lines.push('### Evidence table', '', ...table(citations, papers), '');
  lines.push('## Limitations', '');
  const reviews = papers.filter((p) => p.studyType === 'meta-analysis' || p.studyType === 'systematic review').length;
  const rcts = papers.filter((p) => p.studyType === 'rct').length;
  lines.push(
    `- Designs vary: ${rcts} randomized trials and ${reviews} systematic reviews or meta-analyses among the cited studies.`,
    `- Populations and measures differ between studies, so effect sizes are not directly comparable [${c1.n}].`,
    '- Papers behind paywalls were read from their abstracts only.',
    '',
  );
  lines.push('## Conclusion', '', `${papers[0]!.takeaway ?? 'See the cited studies.'} [${c1.n}]`);
  return lines.join('\n');
}
