/**
 * One BibTeX entry from a paper's metadata. The LaTeX escaping is done by `unicode2latex` (see library.ts); this
 * file only decides which fields go where, in which entry type, and which words keep their capitals.
 *
 * Choices (the library and why: ARCHITECTURE.md, dependency table):
 * - Entry type: `@misc` (with `note = {Preprint}` and the server in `howpublished`) for preprints (the service's
 *   `is_preprint`, or a preprint server as the venue); `@article` for every other paper with a journal, whatever the
 *   study design (RCTs, reviews and meta-analyses are journal articles); `@misc` when there is no venue at all.
 *   `@misc` rather than biblatex's `@online` because it works with both BibTeX styles and biblatex.
 * - Text: escaped character by character by the library (memoised): Latin accents become macros
 *   (`Sandk{\"u}hler`) so classic 8-bit BibTeX sorts and abbreviates them correctly, Cyrillic `\cyrchar` macros,
 *   single Greek letters math (`$\alpha$`). A character whose macro the parser does not read back as the same
 *   character (ễ, ‘’), Greek words and scripts without macros (CJK, Arabic) stay UTF-8. Pieces are joined with `{}`
 *   where TeX would otherwise eat a space after a control word or form a ligature (`--`, ` `` `, `''`, `<<`, `$$`).
 * - Capitals: words with a capital after their first letter (DNA, mRNA, COVID-19, pH) and lone capitals other
 *   than A/I are braced, so sentence-casing styles (APA) keep them; the rest is left to the style. `'all'` braces
 *   the whole title instead, `'none'` braces nothing.
 * - `url`/`doi` are verbatim for biblatex and `\url`: `%` and `#` are written `\%`, `\#` (what `\url` reads back
 *   as the character); `{`, `}`, `\`, spaces and a `%` that starts no
 *   `%XX` escape, which cannot be written safely, are percent-encoded (the same address or DOI for a resolver).
 */
import type { Paper } from '../api/schemas';
import { bibtexLibrary } from './library';
import { parseName, squash, type PersonName } from './names';

/** The fields of a paper used for citations (a search result or a citation built from an agent answer). */
export type CitablePaper = Partial<
  Pick<
    Paper,
    | 'title' | 'authors' | 'journal_name' | 'publish_year' | 'volume' | 'pages' | 'doi' | 'url' | 'publisher_name'
    | 'study_type' | 'takeaway' | 'sjr_best_quartile' | 'publish_date' | 'is_preprint'
  >
>;

export type TitleProtection = 'acronyms' | 'all' | 'none';
export interface BibtexOptions {
  /** How capitals in the title are protected from the style's case changes (default 'acronyms'). */
  protectTitle?: TitleProtection;
  /** Indentation of field lines (default two spaces). */
  indent?: string;
  /** Line break inside the entry (default "\n"). */
  newline?: string;
}

const PREPRINT_VENUE = /\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|edarxiv|ssrn|preprints?|research ?square|osf|zenodo|authorea|techrxiv|qeios)\b/iu;

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

/**
 * Runs of Greek letters stay UTF-8: the library writes Greek as math-mode macros, which is right for a symbol
 * (α-synuclein → `$\alpha$-synuclein`) but not for words.
 */
const GREEK_WORD = /(\p{Script=Greek}{2,})/u;
/** Characters that form TeX ligatures or math delimiters with a neighbour (`--`, ` `` `, `''`, `<<`, `?``, `$$`). */
const LIGATURE = /[-`'<>,!?$]/u;

/**
 * Join LaTeX pieces so that each reads as written: `{}` after a control word (TeX would eat the next space or
 * glue the next letter to it) and between two characters that would form a ligature or `$$`.
 */
function joinTex(pieces: readonly string[], sep = ''): string {
  let out = '';
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    out += p;
    if (i === pieces.length - 1) break;
    const next = sep || pieces[i + 1]!;
    if (/\\[A-Za-z]+$/u.test(p) || (!sep && LIGATURE.test(p.slice(-1)) && LIGATURE.test(next[0] ?? ''))) out += '{}';
    out += sep;
  }
  return out;
}

type Tx = { tolatex(s: string): string };
const units = new WeakMap<Tx, Map<string, string>>();

/**
 * LaTeX for one character (with its combining marks), memoised per transform. The library's output is used when
 * its own parser reads it back as the same character; otherwise (stacked accents like ễ, ‘single quotes’ written
 * as ` and ') the character stays UTF-8, which LaTeX reads since 2018 and biber always did.
 */
function unitLatex(tx: Tx, c: string): string {
  if (/^[A-Za-z0-9 ]$/u.test(c)) return c;
  let memo = units.get(tx);
  if (!memo) units.set(tx, (memo = new Map<string, string>()));
  let out = memo.get(c);
  if (out === undefined) {
    const tex = tx.tolatex(c).replace(/(\\[A-Za-z]+) $/u, '$1');
    const back = bibtexLibrary().parse(`@misc{x, title = {a${joinTex(['', tex, ''])}{}a}}`).entries[0]?.fields['title'];
    out = typeof back === 'string' && back.normalize('NFC') === `a${c}a` ? tex : c;
    memo.set(c, out);
  }
  return out;
}

/** Convert text character by character through the library (see unitLatex), Greek words kept as they are. */
function convert(tx: Tx, text: string): string {
  const pieces: string[] = [];
  for (const [i, part] of text.normalize('NFC').split(GREEK_WORD).entries()) {
    if (i % 2 === 1) pieces.push(part);
    else for (const u of part.match(/\P{M}\p{M}*|\p{M}+/gu) ?? []) pieces.push(unitLatex(tx, u));
  }
  return joinTex(pieces);
}

/** Escape text for a BibTeX field value with the library. */
export function escapeText(text: string): string {
  return convert(bibtexLibrary().text, squash(text));
}

function escapeNamePart(text: string): string {
  const { creator } = bibtexLibrary();
  const out = convert(creator, squash(text));
  // A literal "and" would split the list; braces keep it inside the name.
  return / and /iu.test(` ${out} `) ? `{${out}}` : out;
}

/** A name as BibTeX writes it: "von Last, First" (or `{Literal}`). */
export function nameToBibtex(n: PersonName): string {
  if (n.literal || (!n.given && /\s/u.test(n.family))) return `{${convert(bibtexLibrary().creator, n.family)}}`;
  const last = `${n.particle ? `${escapeNamePart(n.particle)} ` : ''}${escapeNamePart(n.family)}`;
  return n.given ? `${last}, ${escapeNamePart(n.given)}` : last;
}

const needsBraces = (word: string): boolean => {
  const letters = word.replace(/^[^\p{L}\p{N}]+/u, '');
  return /^.+\p{Lu}/u.test(letters) || /^[B-HJ-Z]$/u.test(letters.replace(/[^\p{L}]+$/u, ''));
};

/** The title with its capitals protected as chosen. */
export function escapeTitle(title: string, protect: TitleProtection = 'acronyms'): string {
  const t = squash(title);
  if (protect === 'all') return `{${escapeText(t)}}`;
  if (protect === 'none') return escapeText(t);
  // Escape runs of unprotected words together (fewer macro spacers), brace each protected word.
  const out: string[] = [];
  let run: string[] = [];
  const flush = (): void => {
    if (run.length) out.push(escapeText(run.join(' ')));
    run = [];
  };
  for (const w of t.split(' ')) {
    if (needsBraces(w)) {
      flush();
      out.push(`{${escapeText(w)}}`);
    } else run.push(w);
  }
  flush();
  return joinTex(out, ' ');
}

/** `url`/`doi` text for a verbatim field (see the file comment). */
export function escapeVerbatim(s: string): string {
  return s
    .trim()
    .replace(/%(?![0-9A-Fa-f]{2})/gu, '%25')
    .replace(/[{}\\\s]/gu, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .replace(/[%#]/gu, (c) => `\\${c}`);
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
function escapePages(pages: string): string {
  return squash(pages)
    .split(/\s*[-‐‑‒–—]+\s*/u)
    .map((p) => escapeText(p))
    .join('--');
}

/**
 * Control characters (C0 but white space, DEL, C1): never written into a .bib. A NUL would make VS Code take the file
 * for binary and refuse to open it; the others are invisible noise in a title. White space is squashed elsewhere.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;
const TEXT_FIELDS = ['title', 'journal_name', 'volume', 'pages', 'doi', 'url', 'publisher_name', 'publish_date'] as const;

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
  if (authors.length) fields.push(['author', authors.map(nameToBibtex).join(' and ')]);
  if (paper.title && squash(paper.title)) fields.push(['title', escapeTitle(paper.title, options.protectTitle)]);
  const venue = squash(paper.journal_name ?? '');
  if (venue) fields.push([type === 'article' ? 'journal' : 'howpublished', escapeText(venue)]);
  const year = yearOf(paper);
  if (year !== undefined) fields.push(['year', String(year)]);
  const month = monthOf(paper.publish_date);
  if (paper.volume && squash(paper.volume)) fields.push(['volume', escapeText(paper.volume)]);
  if (paper.pages && squash(paper.pages)) fields.push(['pages', escapePages(paper.pages)]);
  if (paper.publisher_name && squash(paper.publisher_name)) fields.push(['publisher', escapeText(paper.publisher_name)]);
  const doi = normaliseDoi(paper.doi);
  if (doi) fields.push(['doi', escapeVerbatim(doi)]);
  if (paper.url && /^https?:\/\//iu.test(paper.url.trim())) fields.push(['url', escapeVerbatim(paper.url)]);
  if (preprint) fields.push(['note', 'Preprint']);
  const lines = fields.map(([f, v]) => `${indent}${f} = {${v}}`);
  // The month is a macro (no braces) so styles print it in the document's language.
  if (month) lines.splice(fields.findIndex(([f]) => f === 'year') + 1, 0, `${indent}month = ${month}`);
  return `@${type}{${key},${nl}${lines.join(`,${nl}`)}${nl}}`;
}
