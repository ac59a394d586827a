/**
 * Copy Reference: an APA 7 reference list entry for a paper, as plain text or Markdown (journal and volume in
 * italics, service text escaped so it cannot become markup), plus the APA in-text form used when citing into a
 * plain-text document. Pure.
 *
 *   Sandkühler, J., Nowak, Ł., & van der Berg, J. (2023). Title. *Journal*, *12*, 580–599. https://doi.org/10.…
 *
 * Up to 20 authors are listed; from 21 on, the first 19, an ellipsis and the last (APA 7 §9.8). Titles are kept
 * in the service's capitalisation (turning them into sentence case needs knowledge of proper nouns).
 */
import { entryType, normaliseDoi, yearOf, type CitablePaper } from './bibtex';
import { escapeMarkdown } from '../shared/markdown';
import { parseName, squash, type PersonName } from './names';

export type ReferenceFormat = 'text' | 'markdown';

/** "Jean-Pierre Marie" → "J.-P. M."; already-initialled parts kept. */
export function initials(given: string): string {
  return squash(given)
    .split(' ')
    .map((w) =>
      w
        .split('-')
        .map((p) => {
          const first = [...p.replace(/^[^\p{L}]+/u, '')][0];
          return first ? `${first.toUpperCase()}.` : '';
        })
        .filter(Boolean)
        .join('-'),
    )
    .filter(Boolean)
    .join(' ');
}

function apaName(n: PersonName): string {
  if (n.literal) return n.family;
  const fam = n.particle ? `${n.particle} ${n.family}` : n.family;
  return n.given ? `${fam}, ${initials(n.given)}` : fam;
}

/**
 * APA author list: "A, B., & C, D." (20 max, then "…" and the last). `escape` is applied to each name (the service's
 * text), not to the list's own `, &` and `. . .`.
 */
export function apaAuthors(authors: readonly string[], escape: (name: string) => string = (name) => name): string {
  const names = authors
    .map(parseName)
    .filter((n) => n.family)
    .map((n) => escape(apaName(n)));
  if (names.length === 0) return '';
  if (names.length === 1) return names[0]!;
  if (names.length <= 20) return `${names.slice(0, -1).join(', ')}, & ${names[names.length - 1]!}`;
  return `${names.slice(0, 19).join(', ')}, . . . ${names[names.length - 1]!}`;
}

const endPunct = (s: string, period = '.'): string => (/[.?!]$/u.test(s) ? s : `${s}${period}`);

/** The APA 7 reference for a paper. */
export function formatReference(paper: CitablePaper, format: ReferenceFormat = 'text'): string {
  const md = format === 'markdown';
  const esc = (s: string): string => (md ? escapeMarkdown(s) : s);
  const ital = (s: string): string => (md ? `*${s}*` : s);
  const parts: string[] = [];
  const authors = apaAuthors(paper.authors ?? [], esc);
  const year = yearOf(paper);
  const date = `(${year ?? 'n.d.'}).`;
  const title = squash(paper.title ?? '');
  const { preprint } = entryType(paper);
  // The names are escaped already (an escaped name ends in `.` only when the name does); the period closing them is
  // escaped too, so that a list that is one number cannot start a Markdown list.
  if (authors) parts.push(`${endPunct(authors, esc('.'))} ${date}`);
  else if (title) parts.push(`${esc(endPunct(title))} ${date}`);
  else parts.push(date);
  if (authors && title) parts.push(preprint ? `${esc(title)} [Preprint].` : esc(endPunct(title)));
  const venue = squash(paper.journal_name ?? '');
  if (venue) {
    let source = ital(esc(venue));
    const volume = squash(paper.volume ?? '');
    if (volume && !preprint) source += `, ${ital(esc(volume))}`;
    const pages = squash(paper.pages ?? '').replace(/\s*[-‐‑‒–—]+\s*/gu, '–');
    if (pages && !preprint) source += `, ${esc(pages)}`;
    parts.push(`${source}.`);
  }
  const doi = normaliseDoi(paper.doi);
  const link = doi
    ? `https://doi.org/${doi}`
    : paper.url && /^https?:\/\//iu.test(paper.url.trim())
      ? paper.url.trim()
      : '';
  if (link) parts.push(md ? `<${link.replace(/[<>\s]/gu, encodeURIComponent)}>` : link);
  return parts.join(' ');
}

/** APA in-text citation: "(Sandkühler, 2023)", "(Sandkühler & Nowak, 2023)", "(Sandkühler et al., 2023)". */
export function inTextCitation(paper: CitablePaper, locator?: string): string {
  const names = (paper.authors ?? []).map(parseName).filter((n) => n.family);
  const fam = (n: PersonName): string => (n.particle && !n.literal ? `${n.particle} ${n.family}` : n.family);
  const who =
    names.length === 0
      ? squash(paper.title ?? '') || 'Anonymous'
      : names.length === 1
        ? fam(names[0]!)
        : names.length === 2
          ? `${fam(names[0]!)} & ${fam(names[1]!)}`
          : `${fam(names[0]!)} et al.`;
  const loc = locator?.trim() ? `, ${/^\d+$/u.test(locator.trim()) ? `p. ${locator.trim()}` : locator.trim()}` : '';
  return `(${who}, ${yearOf(paper) ?? 'n.d.'}${loc})`;
}
