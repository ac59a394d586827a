/**
 * Pure helpers for queries and how a paper is summarised (no vscode): the selection that
 * becomes a query, the recent-query list, a paper's one-line description and icon, and its DOI link.
 */
import type { Paper } from '../api/index';
import { safeHttpsUrl } from '../shared/url';

/** Longest query taken from a selection; longer selections are cut at a word boundary. */
export const MAX_SELECTION_QUERY = 300;
export const MAX_RECENT_QUERIES = 20;

/** Collapses whitespace and trims; cuts an over-long text at the last word boundary before `max`. */
export function selectionToQuery(text: string, max = MAX_SELECTION_QUERY): { query: string; truncated: boolean } {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return { query: flat, truncated: false };
  const cut = flat.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  const query = (space > max / 2 ? cut.slice(0, space) : flat.slice(0, max)).replace(/[\s,;:.-]+$/, '');
  return { query, truncated: true };
}

/** The recent list with `query` first, no duplicates (case-insensitive), at most `cap`. */
export function pushRecent(list: readonly string[], query: string, cap = MAX_RECENT_QUERIES): string[] {
  const q = query.trim();
  if (!q) return [...list].slice(0, cap);
  const lower = q.toLowerCase();
  return [q, ...list.filter((x) => x.toLowerCase() !== lower)].slice(0, cap);
}

/** "First Author et al. · 2021 · Journal", skipping what is missing. */
export function paperDescription(p: Pick<Paper, 'authors' | 'publish_year' | 'journal_name'>): string {
  const authors = (p.authors ?? []).filter((a) => a.trim());
  const first = authors[0]?.trim();
  const who = first ? (authors.length > 1 ? `${first} et al.` : first) : undefined;
  return [who, p.publish_year ?? undefined, p.journal_name?.trim() || undefined]
    .filter((x) => x !== undefined && x !== '')
    .join(' · ');
}

/**
 * The name a writer knows a paper by, before its title: the first author's family name, "et al." for more, and the
 * year ("Štěpánková et al. 2021"). "Family, Given" gives its family part; a name of four words or more (an
 * organisation, most likely) stays whole, clipped.
 */
export function paperLead(p: Pick<Paper, 'authors' | 'publish_year'>): string {
  const authors = (p.authors ?? []).map((a) => a.trim()).filter(Boolean);
  const first = authors[0];
  let who = '';
  if (first) {
    const words = first.split(/\s+/);
    const family = first.includes(',')
      ? first.slice(0, first.indexOf(',')).trim()
      : words.length >= 4
        ? first
        : words.at(-1)!;
    who = family.length > 40 ? `${family.slice(0, 39)}…` : family;
    if (authors.length > 1) who += ' et al.';
  }
  return [who, p.publish_year ?? ''].filter((x) => x !== '').join(' ');
}

/** Codicon id for a study type, by family; unknown or absent (free plan) → file-text. */
export function studyTypeIcon(studyType: string | null | undefined): string {
  const t = (studyType ?? '').toLowerCase().trim();
  if (!t) return 'file-text';
  if (t === 'rct') return 'beaker';
  if (t === 'meta-analysis' || t === 'systematic review') return 'layers';
  if (t === 'literature review' || t === 'commentary or perspective') return 'book';
  if (
    t.includes('cohort') ||
    t.includes('longitudinal') ||
    t.includes('case-control') ||
    t.includes('cross-sectional') ||
    t.includes('observational')
  )
    return 'organization';
  if (t.startsWith('case ')) return 'person';
  if (t.includes('in vitro') || t.includes('bench') || t === 'animal' || t.includes('experimental'))
    return 'microscope';
  if (t.includes('theoretical') || t.includes('simulation')) return 'symbol-function';
  if (t.includes('interview') || t.includes('field') || t.includes('mixed') || t.includes('historical'))
    return 'comment-discussion';
  return 'file-text';
}

/** The paper's service id: the last path segment of its url (`…/papers/<slug>/<id>/`). */
export function paperId(p: Pick<Paper, 'url' | 'doi' | 'title'>): string {
  const seg = (p.url ?? '').split(/[?#]/)[0]!.split('/').filter(Boolean).pop();
  return seg || p.doi || p.title || '';
}

/** https://doi.org/<doi> for a DOI that looks like one (10.x/…), else undefined; the link passes the one link rule. */
export function doiUrl(doi: string | null | undefined): string | undefined {
  const d = (doi ?? '')
    .trim()
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '');
  if (!/^10\.\d{4,9}\/\S+$/.test(d)) return undefined;
  return safeHttpsUrl(
    `https://doi.org/${d
      .split('/')
      .map((part, i) => (i === 0 ? part : encodeURIComponent(part)))
      .join('/')}`,
  );
}

/**
 * What Search Papers makes of its argument: a query string, or `{ query, filters? }` where `filters` replaces the
 * active filters for that one search. Anything else (no argument, a menu's tree element) means: ask for the query.
 */
export function queryArg(arg: unknown): { query: string; filters?: object } | undefined {
  if (typeof arg === 'string') return { query: arg };
  if (!arg || typeof arg !== 'object' || typeof (arg as { query?: unknown }).query !== 'string') return undefined;
  const { query, filters } = arg as { query: string; filters?: unknown };
  return filters && typeof filters === 'object' ? { query, filters } : { query };
}
