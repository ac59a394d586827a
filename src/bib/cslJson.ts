/**
 * CSL-JSON items from papers' metadata: the data format of the Citation Style Language, which Zotero and Mendeley
 * import and pandoc (`--citeproc`), Quarto and Typst read as a bibliography. Pure.
 *
 * - Types: `article-journal` for a paper in a journal, `article` for a preprint (the CSL type for preprints and working
 *   papers, its server as `publisher`), `document` when there is no venue: the BibTeX writer's split (`entryType`).
 * - Names: `family`/`given`/`suffix`, the particle as `non-dropping-particle` (as pandoc reads BibTeX's von part), an
 *   organisation or a name styles must not split as `literal` (names.ts decides, as for BibTeX).
 * - Text: one line (white space runs as one space), no control characters or lone surrogates. JSON itself needs no
 *   further escaping; CSL's rich-text tags (`<i>`, `<b>`, `<sup>`…) in a title mean what they mean to every CSL
 *   processor, as in the CSL-JSON publishers and Crossref serve.
 * - The takeaway and study type are not bibliographic data: styles print `note` and `genre`, so neither is written
 *   (the RIS export carries them as a note and a keyword).
 */
import { entryType, normaliseDoi, yearOf } from './bibtex';
import { parseName, type PersonName } from './names';
import { risValue, type ExportPaper } from './ris';

export interface CslName {
  family?: string;
  given?: string;
  'non-dropping-particle'?: string;
  suffix?: string;
  literal?: string;
}

export interface CslItem {
  id: string;
  type: 'article-journal' | 'article' | 'document';
  title?: string;
  author?: CslName[];
  issued?: { 'date-parts': [[number, number?, number?]] };
  'container-title'?: string;
  volume?: string;
  page?: string;
  publisher?: string;
  DOI?: string;
  URL?: string;
  abstract?: string;
}

/** One-line text (the RIS writer's rule: it suits every JSON string too). */
const text = risValue;

export function cslName(n: PersonName): CslName {
  if (n.literal || (!n.given && /\s/u.test(n.family))) {
    const whole = n.particle ? `${n.particle} ${n.family}` : n.family;
    return { literal: text(whole) };
  }
  const out: CslName = { family: text(n.family) };
  if (n.given) out.given = text(n.given);
  if (n.particle) out['non-dropping-particle'] = text(n.particle);
  if (n.suffix) out.suffix = text(n.suffix);
  return out;
}

/** `[[year, month, day]]` from `publish_date` when it names the paper's year; else `[[year]]`. */
function dateParts(paper: ExportPaper, year: number): [[number, number?, number?]] {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?/u.exec(paper.publish_date ?? '');
  if (!m || Number(m[1]) !== year) return [[year]];
  const month = Number(m[2]);
  const day = m[3] ? Number(m[3]) : undefined;
  if (month < 1 || month > 12) return [[year]];
  return day !== undefined && day >= 1 && day <= 31 ? [[year, month, day]] : [[year, month]];
}

/** One CSL-JSON item for a paper, with `id` (the cite key the BibTeX export gives the same paper). */
export function toCsl(paper: ExportPaper, id: string): CslItem {
  const { type, preprint } = entryType(paper);
  const item: CslItem = { id, type: preprint ? 'article' : type === 'article' ? 'article-journal' : 'document' };
  const title = text(paper.title);
  if (title) item.title = title;
  const authors = (paper.authors ?? [])
    .filter((a): a is string => typeof a === 'string')
    .map((a) => parseName(text(a)))
    .filter((n) => n.family)
    .map(cslName);
  if (authors.length) item.author = authors;
  const year = yearOf(paper);
  if (year !== undefined) item.issued = { 'date-parts': dateParts(paper, year) };
  const venue = text(paper.journal_name);
  const publisher = text(paper.publisher_name);
  if (venue && !preprint) item['container-title'] = venue;
  if (preprint && (venue || publisher)) item.publisher = venue || publisher;
  else if (publisher) item.publisher = publisher;
  const volume = text(paper.volume);
  if (volume) item.volume = volume;
  const page = text(paper.pages).replace(/\s*[-‐‑‒–—]+\s*/gu, '-');
  if (page) item.page = page;
  const doi = normaliseDoi(text(paper.doi));
  if (doi) item.DOI = doi;
  const url = (paper.url ?? '').trim();
  if (/^https?:\/\//iu.test(url)) item.URL = text(url.replace(/[\s\u0085]/gu, (c) => encodeURIComponent(c)));
  const abstract = text(paper.abstract);
  if (abstract) item.abstract = abstract;
  return item;
}

/** A CSL-JSON file: an array of items, two-space indented, with a final line break. */
export function cslJsonFile(items: readonly CslItem[]): string {
  return `${JSON.stringify(items, null, 2)}\n`;
}
