/**
 * One BibTeX entry from a paper's metadata: which fields go where, in which entry type, and which words keep their
 * capitals. Text is written by texText.ts in forms that pdflatex (through BibTeX or Biber), pandoc and Typst all
 * read back as the same text, measured in those programs by the toolchain suite.
 *
 * Choices (ARCHITECTURE.md has the reasons at more length):
 * - Entry type: `@misc` (with `note = {Preprint}` and the server in `howpublished`) for preprints (the service's
 *   `is_preprint`, or a preprint server as the venue); `@article` for every other paper with a journal, whatever the
 *   study design (RCTs, reviews and meta-analyses are journal articles); `@misc` when there is no venue at all.
 *   `@misc` rather than biblatex's `@online` because it works with both BibTeX styles and biblatex.
 * - Target: a .bib cited from Typst gets Greek letters, math symbols and backticks as UTF-8 (`'unicode'`), any
 *   other .bib gets them as LaTeX (`'tex'`): no single form of β reads back in both Typst and pdflatex.
 * - Names: organisations, and names in scripts styles do not write given name first (CJK, Devanagari…), are
 *   braced whole, so no style splits or reorders them.
 * - Capitals: see `keepsCapitals`. `'all'` braces the whole title instead, `'none'` braces nothing.
 * - `url`/`doi` are verbatim for biblatex and printed through `\url` by BibTeX styles: `#` and `%` are written as
 *   they are (what `\url` and Biber read as the character; BibTeX styles need the url or hyperref package for it,
 *   as for any URL); `{`, `}`, `\` and white space, which cannot be written safely and belong in no URL or DOI, are
 *   percent-encoded.
 */
import type { Paper } from '../api/schemas';
import { parseName, squash, type PersonName } from './names';
import { pdflatexCannot, protect as protectTex, texText, texWords, type TexTarget } from './texText';

/** The fields of a paper used for citations (a search result or a citation built from an agent answer). */
export type CitablePaper = Partial<
  Pick<
    Paper,
    | 'title'
    | 'authors'
    | 'journal_name'
    | 'publish_year'
    | 'volume'
    | 'pages'
    | 'doi'
    | 'url'
    | 'publisher_name'
    | 'study_type'
    | 'takeaway'
    | 'sjr_best_quartile'
    | 'publish_date'
    | 'is_preprint'
  >
>;

export type TitleProtection = 'capitals' | 'acronyms' | 'all' | 'none';
export interface BibtexOptions {
  /** How capitals in the title are protected from the style's case changes (default 'capitals'). */
  protectTitle?: TitleProtection;
  /** The readers the text is written for (default 'tex'; 'unicode' for Typst). */
  target?: TexTarget;
  /** Indentation of field lines (default two spaces). */
  indent?: string;
  /** Line break inside the entry (default "\n"). */
  newline?: string;
}

const PREPRINT_VENUE =
  /\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|edarxiv|ssrn|preprints?|research ?square|osf|zenodo|authorea|techrxiv|qeios)\b/iu;

export type EntryType = 'article' | 'misc';
/** The entry type for a paper (see the file comment). */
export function entryType(paper: CitablePaper): { type: EntryType; preprint: boolean } {
  const venue = squash(paper.journal_name ?? '');
  const preprint = paper.is_preprint === true || PREPRINT_VENUE.test(venue);
  if (preprint || !venue) return { type: 'misc', preprint };
  return { type: 'article', preprint: false };
}

/** A cite key BibTeX and biblatex accept: no white space and none of `, { } ( ) " # % ' = \ ~`. */
export const isValidKey = (key: string): boolean => /^[^\s,{}()"#%'=\\~]+$/u.test(key);

/** Escape text for a BibTeX field value (see texText.ts for the forms and why). */
export function escapeText(text: string, target: TexTarget = 'tex'): string {
  return texText(squash(text), target);
}

function escapeNamePart(text: string, target: TexTarget, particle = false): string {
  const t = squash(text);
  const out = texText(t, target, 'name');
  // A literal "and" would split the list; braces keep it inside the name. BibTeX also splits a name at hyphens and
  // takes a part that starts in lower case for a "von" particle ("al-Rashid" would print "al Rashid"): braced whole,
  // unless it is the particle.
  return / and /iu.test(` ${out} `) || (!particle && /(?:^|-)\p{Ll}/u.test(t)) ? `{${out}}` : out;
}

/** A name as BibTeX writes it: "von Last, First" or "von Last, Jr, First" (or `{Literal}`). */
export function nameToBibtex(n: PersonName, target: TexTarget = 'tex'): string {
  if (n.literal || (!n.given && /\s/u.test(n.family))) return `{${texText(n.family, target, 'whole name')}}`;
  const last = `${n.particle ? `${escapeNamePart(n.particle, target, true)} ` : ''}${escapeNamePart(n.family, target)}`;
  if (!n.given) return last;
  return `${last}${n.suffix ? `, ${escapeNamePart(n.suffix, target)}` : ''}, ${escapeNamePart(n.given, target)}`;
}

/**
 * Whether a title word keeps its capitals: a sentence-casing style (APA; pandoc lower-cases every BibTeX title as it
 * reads it, BibTeX's `change.case$` in plainnat) would lower-case it. `'capitals'` keeps every word with a capital
 * but the first word of the title when only its first letter is one (a sentence-case title's capitals after its
 * first word are proper nouns or acronyms; in a Title Case title they cannot be told from title-casing, and keeping
 * a capital is better than lower-casing a name). `'acronyms'` keeps words with a capital after their first letter
 * (DNA, mRNA, COVID-19) and lone capitals other than A and I.
 */
function keepsCapitals(word: string, first: boolean, protect: 'capitals' | 'acronyms'): boolean {
  const letters = word.replace(/^[^\p{L}\p{N}]+/u, '');
  if (/^.+[\p{Lu}\p{Lt}]/u.test(letters) || /^[B-HJ-Z]$/u.test(letters.replace(/[^\p{L}]+$/u, ''))) return true;
  // A style keeps the title's first character as it is: a first word that starts with a quote or bracket is not safe.
  return protect === 'capitals' && !(first && /^[\p{L}\p{N}]/u.test(word)) && /[\p{Lu}\p{Lt}]/u.test(letters);
}

/**
 * The characters of a paper's entry that pdflatex with T1 fonts cannot typeset (through BibTeX or Biber), distinct:
 * what the writer should hear about when the entry goes into a LaTeX document's bibliography.
 */
export function pdflatexCannotTypeset(paper: CitablePaper, via: 'bibtex' | 'biber'): string[] {
  const out = new Set<string>();
  for (const t of [paper.title, paper.journal_name, paper.publisher_name])
    if (t) for (const c of pdflatexCannot(t, via)) out.add(c);
  for (const a of paper.authors ?? [])
    if (typeof a === 'string') for (const c of pdflatexCannot(a, via, 'name')) out.add(c);
  return [...out];
}

/** The title with its capitals protected as chosen. */
export function escapeTitle(title: string, protect: TitleProtection = 'capitals', target: TexTarget = 'tex'): string {
  const t = squash(title);
  if (protect === 'all') return protectTex(escapeText(t, target));
  if (protect === 'none') return escapeText(t, target);
  return texWords(t, target, (word, i) => keepsCapitals(word, i === 0, protect));
}

/** `url`/`doi` text for a verbatim field (see the file comment). */
export function escapeVerbatim(s: string): string {
  return s.trim().replace(/[{}\\\s]/gu, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Inverse of `escapeVerbatim` for `\%` and `\#` (what a verbatim field reads back as). */
export const unescapeVerbatim = (s: string): string => s.replace(/\\([%#&_~$^])/gu, '$1');

/** A DOI without resolver prefix or `doi:`; lower-cased (DOIs are case-insensitive). */
export function normaliseDoi(doi: string | null | undefined): string | undefined {
  if (!doi) return undefined;
  const d = squash(doi)
    .replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//iu, '')
    .replace(/^doi:\s*/iu, '')
    .toLowerCase();
  return /^10\.\S+\/\S+$/u.test(d) ? d : undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;

/** Month macro (`aug`) from `publish_date` (YYYY-MM or YYYY-MM-DD), if any. */
function monthOf(date: string | null | undefined): string | undefined {
  const m = /^\d{4}-(\d{2})/u.exec(date ?? '');
  return m ? MONTHS[Number(m[1]) - 1] : undefined;
}

/** The year: `publish_year`, else the year of `publish_date`. */
export function yearOf(paper: CitablePaper): number | undefined {
  if (typeof paper.publish_year === 'number' && Number.isFinite(paper.publish_year)) return paper.publish_year;
  const m = /^(\d{4})/u.exec(paper.publish_date ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Page range with `--` between the numbers ("580-599", "580–599" → `580--599`). */
function escapePages(pages: string, target: TexTarget): string {
  return squash(pages)
    .split(/\s*[-‐‑‒–—]+\s*/u)
    .map((p) => escapeText(p, target))
    .join('--');
}

/**
 * Control characters (C0 but white space, DEL, C1): never written into a .bib. A NUL would make VS Code take the file
 * for binary and refuse to open it; the others are invisible noise in a title. White space is squashed elsewhere.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;
const TEXT_FIELDS = [
  'title',
  'journal_name',
  'volume',
  'pages',
  'doi',
  'url',
  'publisher_name',
  'publish_date',
] as const;

/** A lone surrogate: not a character, and no encoding can write it (UTF-8 would write U+FFFD). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;
const clean = (s: string): string => s.replace(CONTROLS, '').replace(LONE_SURROGATE, '');

/** The paper's text fields without control characters or lone surrogates (the service's text is untrusted). */
function withoutControls(paper: CitablePaper): CitablePaper {
  const out: CitablePaper = { ...paper };
  for (const f of TEXT_FIELDS) {
    const v = paper[f];
    if (typeof v === 'string') out[f] = clean(v);
  }
  if (Array.isArray(paper.authors)) out.authors = paper.authors.map((a) => (typeof a === 'string' ? clean(a) : a));
  return out;
}

/**
 * One BibTeX entry for a paper (no trailing line break). Requires `loadBibtexLibrary()` to have completed.
 * Throws RangeError for a key BibTeX cannot read (see `isValidKey`).
 */
export function toBibtex(given: CitablePaper, key: string, options: BibtexOptions = {}): string {
  if (!isValidKey(key)) throw new RangeError(`Not a valid BibTeX key: ${JSON.stringify(key)}`);
  const paper = withoutControls(given);
  const indent = options.indent ?? '  ';
  const nl = options.newline ?? '\n';
  const { type, preprint } = entryType(paper);
  const fields: [string, string][] = [];
  const authors = (paper.authors ?? []).map(parseName).filter((n) => n.family);
  const target = options.target ?? 'tex';
  if (authors.length) fields.push(['author', authors.map((a) => nameToBibtex(a, target)).join(' and ')]);
  if (paper.title && squash(paper.title))
    fields.push(['title', escapeTitle(paper.title, options.protectTitle, target)]);
  const venue = squash(paper.journal_name ?? '');
  if (venue) fields.push([type === 'article' ? 'journal' : 'howpublished', escapeText(venue, target)]);
  const year = yearOf(paper);
  if (year !== undefined) fields.push(['year', String(year)]);
  const month = monthOf(paper.publish_date);
  if (paper.volume && squash(paper.volume)) fields.push(['volume', escapeText(paper.volume, target)]);
  if (paper.pages && squash(paper.pages)) fields.push(['pages', escapePages(paper.pages, target)]);
  if (paper.publisher_name && squash(paper.publisher_name))
    fields.push(['publisher', escapeText(paper.publisher_name, target)]);
  const doi = normaliseDoi(paper.doi);
  if (doi) fields.push(['doi', escapeVerbatim(doi)]);
  if (paper.url && /^https?:\/\//iu.test(paper.url.trim())) fields.push(['url', escapeVerbatim(paper.url)]);
  if (preprint) fields.push(['note', 'Preprint']);
  const lines = fields.map(([f, v]) => `${indent}${f} = {${v}}`);
  // The month is a macro (no braces) so styles print it in the document's language.
  if (month) lines.splice(fields.findIndex(([f]) => f === 'year') + 1, 0, `${indent}month = ${month}`);
  return `@${type}{${key},${nl}${lines.join(`,${nl}`)}${nl}}`;
}
