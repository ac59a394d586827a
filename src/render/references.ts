/**
 * Citations (untrusted service objects) → a checked index of papers and quotes that the marker
 * plugin resolves `[n]` / `[n.m]` against, and the references list that follows the answer.
 */
import { type Citation } from '../api/schemas';
import { cleanText, escapeHtml } from './escape';
import { safeHttpsUrl } from '../shared/url';

export interface ReferenceQuote {
  /**
   * `n.m` without brackets, e.g. "1.2"; undefined when the snippet's marker did not parse or belongs to another paper.
   */
  marker: string | undefined;
  /** Element id of the quote's list item (anchor target of its markers); undefined without a marker. */
  id: string | undefined;
  quote: string;
  section: string | undefined;
}

export interface ReferenceEntry {
  n: number;
  /** Element id of the reference's list item (anchor target of `[n]`). */
  id: string;
  paperId: string | undefined;
  title: string | undefined;
  year: number | undefined;
  journal: string | undefined;
  /** Only an allowed `https:` URL (canonical form); undefined otherwise. */
  url: string | undefined;
  authors: string[];
  quotes: ReferenceQuote[];
}

export interface RenderLabels {
  references: string;
  /** Prefix of a marker's accessible name: "Citation 1.2: <title>". */
  citation: string;
  openPaper: string;
  copyQuote: string;
  section: string;
  /** Shown instead of a Markdown image: "[Image: alt]". */
  image: string;
  untitled: string;
  /** Citation actions (rendered only with `citeActions`). */
  insertCitation: string;
  copyBibtex: string;
  copyReference: string;
}

export const DEFAULT_LABELS: RenderLabels = {
  references: 'References',
  citation: 'Citation',
  openPaper: 'Open Paper',
  copyQuote: 'Copy Quote',
  section: 'Section',
  image: 'Image',
  untitled: 'Untitled paper',
  insertCitation: 'Insert Citation',
  copyBibtex: 'Copy BibTeX',
  copyReference: 'Copy Reference',
};

/** The citation actions of a reference, in button order: `data-action` value → label field. */
const CITE_ACTION_LABELS = [
  ['insertCitation', 'insertCitation'],
  ['copyBibtex', 'copyBibtex'],
  ['copyReference', 'copyReference'],
] as const;

export interface CitationIndex {
  references: ReferenceEntry[];
  /** "1" → the paper's reference; "1.2" → the quote and its paper. */
  byKey: Map<string, { ref: ReferenceEntry; quote?: ReferenceQuote }>;
  warnings: string[];
}

/** A snippet's marker, trimmed first (`\s*` on both sides of an optional part made the pattern cubic on a long one). */
const SNIPPET_MARKER = /^\[?\s*(\d{1,4})\s*\.\s*(\d{1,4})\s*\]?$/;

function authorsOf(c: Citation, extra: readonly string[] | null | undefined): string[] {
  const raw: unknown = extra ?? (c as Record<string, unknown>).authors;
  // A string splits at `;` (cleanText trims each name; a pattern with spaces around `;` rereads every run of spaces).
  const list = Array.isArray(raw) ? (raw as unknown[]) : typeof raw === 'string' ? raw.split(';') : [];
  const out: string[] = [];
  for (const a of list) {
    const t = cleanText(a, 200);
    if (t) out.push(t);
    if (out.length >= 50) break;
  }
  return out;
}

/** Build the index; `idPrefix` is already sanitised ([A-Za-z0-9_-]*). */
export function indexCitations(
  citations: readonly Citation[] | null | undefined,
  idPrefix: string,
  paperInfo?: (paperId: string) => { authors?: readonly string[] | null } | undefined,
): CitationIndex {
  const references: ReferenceEntry[] = [];
  const byKey: CitationIndex['byKey'] = new Map();
  const warnings: string[] = [];
  for (const c of citations ?? []) {
    if (typeof c !== 'object' || c === null) continue;
    const n = c.n;
    if (!Number.isSafeInteger(n) || n < 1 || n > 9999) {
      warnings.push(`citation with an invalid number (${String(n)}) skipped`);
      continue;
    }
    if (byKey.has(String(n))) {
      warnings.push(`duplicate citation ${n} skipped`);
      continue;
    }
    const paperId = cleanText(c.paper_id, 200);
    const year = typeof c.year === 'number' && Number.isSafeInteger(c.year) ? c.year : undefined;
    const ref: ReferenceEntry = {
      n,
      id: `${idPrefix}cite-${n}`,
      paperId,
      title: cleanText(c.title, 1000),
      year,
      journal: cleanText(c.journal, 500),
      url: safeHttpsUrl(typeof c.url === 'string' ? c.url.trim() : c.url),
      authors: authorsOf(c, paperId ? paperInfo?.(paperId)?.authors : undefined),
      quotes: [],
    };
    references.push(ref);
    byKey.set(String(n), { ref });
    for (const s of c.snippets ?? []) {
      if (typeof s !== 'object' || s === null) continue;
      const quote = cleanText(s.quote, 10_000);
      if (!quote) continue;
      const m = SNIPPET_MARKER.exec(typeof s.marker === 'string' ? s.marker.trim() : '');
      let marker: string | undefined;
      if (m && Number(m[1]) === n) {
        const key = `${n}.${Number(m[2])}`;
        if (byKey.has(key)) warnings.push(`duplicate snippet marker [${key}]`);
        else marker = key;
      } else
        warnings.push(
          `snippet marker ${JSON.stringify(String(s.marker).slice(0, 20))} of citation ${n} does not name it`,
        );
      const q: ReferenceQuote = {
        marker,
        id: marker ? `${idPrefix}cite-${marker.replace('.', '-')}` : undefined,
        quote,
        section: cleanText(s.section, 200),
      };
      ref.quotes.push(q);
      if (marker) byKey.set(marker, { ref, quote: q });
    }
  }
  references.sort((a, b) => a.n - b.n);
  return { references, byKey, warnings };
}

function formatAuthors(a: readonly string[]): string {
  return a.length > 3 ? `${a.slice(0, 3).join(', ')} et al.` : a.join(', ');
}

/** Accessible name of a marker: "Citation 1.2: <title>". */
export function markerLabel(key: string, ref: ReferenceEntry, labels: RenderLabels): string {
  return `${labels.citation} ${key}: ${ref.title ?? labels.untitled}`;
}

/** The references list: an ordered list of papers (ids the markers point to), each with its quotes. */
export function renderReferences(
  index: CitationIndex,
  idPrefix: string,
  labels: RenderLabels,
  actions: boolean,
  level = 2,
  citeActions = false,
): string {
  if (index.references.length === 0) return '';
  const e = escapeHtml;
  const out: string[] = [];
  out.push(`<section class="references" role="doc-bibliography" aria-labelledby="${idPrefix}references-heading">`);
  out.push(
    `<h${level} id="${idPrefix}references-heading" class="references-heading">${e(labels.references)}</h${level}>`,
  );
  out.push('<ol class="reference-list">');
  for (const r of index.references) {
    const title = r.title ?? labels.untitled;
    const attrs = [`id="${r.id}"`, 'class="reference"', `value="${r.n}"`, `data-n="${r.n}"`];
    if (r.paperId) attrs.push(`data-paper-id="${e(r.paperId)}"`);
    if (r.url) attrs.push(`data-url="${e(r.url)}"`);
    out.push(`<li ${attrs.join(' ')}>`);
    // [html, plain text] of each part; parts are joined by ". " unless the text ends in a period.
    const parts: [string, string][] = [[`<cite class="reference-title">${e(title)}</cite>`, title]];
    if (r.authors.length > 0) {
      const a = formatAuthors(r.authors);
      parts.push([`<span class="reference-authors">${e(a)}</span>`, a]);
    }
    const where = [
      r.journal ? `<span class="reference-journal">${e(r.journal)}</span>` : '',
      r.year !== undefined ? `<span class="reference-year">${r.year}</span>` : '',
    ]
      .filter(Boolean)
      .join(', ');
    if (where) parts.push([where, 'x']);
    let entry = parts.map(([html, text]) => (/[.?!]$/.test(text) ? html : `${html}.`)).join(' ');
    if (r.url) entry += ` <a class="reference-link" href="${e(r.url)}" rel="noopener noreferrer">${e(r.url)}</a>`;
    out.push(`<p class="reference-entry">${entry}</p>`);
    if (r.quotes.length > 0) {
      out.push('<ul class="reference-quotes">');
      for (const q of r.quotes) {
        const qa = ['class="reference-quote"'];
        if (q.id) qa.unshift(`id="${q.id}"`);
        if (q.marker) qa.push(`data-marker="${q.marker}"`);
        if (q.section) qa.push(`data-section="${e(q.section)}"`);
        out.push(`<li ${qa.join(' ')}>`);
        if (q.marker) out.push(`<span class="quote-marker">[${q.marker}]</span> `);
        out.push(`<blockquote class="quote-text"${q.id ? ` id="${q.id}-text"` : ''}>${e(q.quote)}</blockquote>`);
        if (q.section) out.push(`<p class="quote-section">${e(labels.section)}: ${e(q.section)}</p>`);
        if (actions && q.marker)
          out.push(
            `<button type="button" class="reference-action" data-action="copyQuote" data-marker="${q.marker}" aria-label="${e(`${labels.copyQuote} ${q.marker}`)}">${e(labels.copyQuote)}</button>`,
          );
        out.push('</li>');
      }
      out.push('</ul>');
    }
    if (actions && r.url)
      out.push(
        `<button type="button" class="reference-action" data-action="openPaper" data-n="${r.n}" aria-label="${e(`${labels.openPaper} ${r.n}: ${title}`)}">${e(labels.openPaper)}</button>`,
      );
    if (actions && citeActions)
      for (const [action, label] of CITE_ACTION_LABELS)
        out.push(
          `<button type="button" class="reference-action cite-action" data-action="${action}" data-n="${r.n}" aria-label="${e(`${labels[label]} ${r.n}: ${title}`)}">${e(labels[label])}</button>`,
        );
    out.push('</li>');
  }
  out.push('</ol>', '</section>');
  return out.join('\n');
}
