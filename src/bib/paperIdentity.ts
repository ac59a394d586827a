/**
 * When two descriptions of a paper cannot be the same paper. Titles repeat (a journal's "Does X improve Y? Evidence
 * from older adults" and another journal's paper of the same title and year), and an agent answer's citations carry
 * only title, year, journal, URL and the service's paper id, so a title and year that match prove nothing when any
 * other field differs. Every place that merges papers (the .bib's findEntry, the recent papers, the lookup of missing
 * metadata) asks `tellApart` before trusting a title. Pure.
 */
import { normaliseDoi } from './bibtex';

/** What can tell two papers apart; absent fields tell nothing. */
export interface PaperFacts {
  /** The service's paper id. */
  id?: string | null;
  doi?: string | null;
  url?: string | null;
  journal?: string | null;
  year?: number | null;
}

/** Words of a venue that abbreviations drop ("Journal of Sleep Research" = "J Sleep Res"). */
const VENUE_STOP_WORDS = new Set([
  'of',
  'the',
  'and',
  'for',
  'in',
  'on',
  'a',
  'an',
  'de',
  'des',
  'du',
  'la',
  'le',
  'der',
  'die',
  'und',
  'fur',
  'y',
  'et',
]);

/** A venue's words: accents dropped, lower case, letters and digits only, without the words abbreviations drop. */
function venueWords(venue: string): string[] {
  return venue
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !VENUE_STOP_WORDS.has(w));
}

/**
 * Whether two venue names can name the same journal: the same words, or the same number of words each of which
 * abbreviates the other's ("J Sleep Res" and "Journal of Sleep Research"). Undefined when either is empty.
 */
export function sameVenue(a: string | null | undefined, b: string | null | undefined): boolean | undefined {
  const x = venueWords(a ?? '');
  const y = venueWords(b ?? '');
  if (!x.length || !y.length) return undefined;
  if (x.length !== y.length) return false;
  return x.every((w, i) => {
    const v = y[i]!;
    return w === v || (w.length < v.length ? v.startsWith(w) : w.startsWith(v));
  });
}

/**
 * A URL's comparison form: scheme and fragment dropped, host in lower case, no trailing slash (the service's paper
 * URLs end in one, a writer's copy may not). Undefined when empty.
 */
export function urlKey(url: string | null | undefined): string | undefined {
  const u = url?.trim();
  if (!u) return undefined;
  try {
    const p = new URL(u);
    return `${p.host.toLowerCase()}${p.pathname.replace(/\/+$/u, '')}${p.search}`;
  } catch {
    return u
      .replace(/^[a-z]+:\/\//iu, '')
      .replace(/#.*$/su, '')
      .replace(/\/+$/u, '');
  }
}

/** The last path segment of a URL (the service's paper URLs end with the paper's id). */
export function lastSegment(url: string | null | undefined): string | undefined {
  return url?.split(/[?#]/u)[0]!.split('/').filter(Boolean).pop() || undefined;
}

/**
 * Whether any field both descriptions have says they are two papers: different ids, DOIs, URLs, years or journals.
 * A paper id is also compared with the other's URL when that one has no id (a .bib entry keeps the service's URL,
 * which ends with the id) and this one has no URL to compare.
 */
export function tellApart(a: PaperFacts, b: PaperFacts): boolean {
  if (a.id && b.id && a.id !== b.id) return true;
  const da = normaliseDoi(a.doi);
  const db = normaliseDoi(b.doi);
  if (da && db && da !== db) return true;
  const ua = urlKey(a.url);
  const ub = urlKey(b.url);
  if (ua && ub && ua !== ub) return true;
  if (a.id && !b.id && !ua && ub && lastSegment(b.url) !== a.id) return true;
  if (b.id && !a.id && !ub && ua && lastSegment(a.url) !== b.id) return true;
  if (typeof a.year === 'number' && typeof b.year === 'number' && a.year !== b.year) return true;
  return sameVenue(a.journal, b.journal) === false;
}
