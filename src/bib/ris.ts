/**
 * RIS records from papers' metadata: the tagged format Zotero, Mendeley and EndNote import. Pure.
 *
 * The tag rules of the RIS specification, and what each means for the service's text:
 * - Every line is a tag (an upper-case letter, an upper-case letter or digit), two spaces, a hyphen and a space, then
 *   the value; lines end with CR LF; `TY  - ` opens a record and `ER  - ` closes it. Readers take a line that is not a
 *   tag as the continuation of the previous value, and some split a line at its first `  - ` (citation.js), so a
 *   value is written on one line with every run of white space (line breaks, tabs, U+2028…) as one space: no text
 *   can start a line (`ER  - ` inside a title) or hold `  - `.
 * - Control characters and lone surrogates are dropped (the BibTeX writer drops them too).
 * - An asterisk is not allowed in author, keyword or periodical names: dropped there.
 * - Names are `Family, Given` (`, Suffix` after), the particle with the family name; an organisation is written whole,
 *   its commas made spaces, as a reader splits a name at its first comma.
 * - The reference ID (`ID`) allows only 20 letters and digits: cite keys do not fit, and Zotero ignores it, so none is
 *   written.
 * - UTF-8 without a byte-order mark, as Zotero's own RIS export writes it.
 *
 * Types: `JOUR` for a paper in a journal, `UNPB` (unpublished work) for a preprint, `GEN` when there is no venue,
 * the same split as the BibTeX writer's `@article`/`@misc` (`entryType`).
 */
import { entryType, normaliseDoi, yearOf, type CitablePaper } from './bibtex';
import { parseName, type PersonName } from './names';

/** A paper for the exporters: the citation fields, and the abstract when the search returned one. */
export type ExportPaper = CitablePaper & { abstract?: string | null };

export interface RisExtras {
  /** Keywords (`KW`), such as the study type's label. */
  keywords?: readonly string[];
  /** A note (`N1`), such as the takeaway. */
  note?: string;
}

export const RIS_NEWLINE = '\r\n';

/** The reference types this writer uses (all in the specification's list). */
export type RisType = 'JOUR' | 'UNPB' | 'GEN';

/** A tag line's shape: what every line of a record matches. */
export const RIS_LINE = /^[A-Z][A-Z0-9] {2}- .*$/u;

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;
/** White space and line breaks of every kind, NEL (a C1 control) included, so it becomes a space, not nothing. */
const SPACES = /[\s\u0085]+/gu;

/** A value on one line: white space runs as one space, no control character, no lone surrogate, trimmed. */
export function risValue(text: string | null | undefined): string {
  if (!text) return '';
  return text.replace(SPACES, ' ').replace(CONTROLS, '').replace(LONE_SURROGATE, '').trim();
}

/** A value of a field where the specification forbids the asterisk (authors, keywords, periodical names). */
const noAsterisk = (text: string): string => risValue(text.replace(/\*/gu, ' '));

/** `Family, Given` (`Family, Given, Suffix`), the particle with the family; an organisation whole, without commas. */
export function risName(n: PersonName): string {
  const family = n.particle ? `${n.particle} ${n.family}` : n.family;
  if (n.literal || !n.given) return noAsterisk(family.replace(/,/gu, ' '));
  return noAsterisk(`${family}, ${n.given}${n.suffix ? `, ${n.suffix}` : ''}`);
}

/** `YYYY/MM/DD/` (or `YYYY/MM//`) from `publish_date` when it names the paper's year; else undefined. */
function risDate(paper: CitablePaper, year: number | undefined): string | undefined {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?/u.exec(paper.publish_date ?? '');
  if (!m || (year !== undefined && Number(m[1]) !== year)) return undefined;
  return `${m[1]!}/${m[2]!}/${m[3] ?? ''}/`;
}

/** Start and end page of a range ("211-215", "211–215"); a single page or an article number is the start only. */
function risPages(pages: string): [start: string, end?: string] {
  const parts = risValue(pages).split(/\s*[-‐‑‒–—]+\s*/u);
  return parts.length === 2 && parts[0] && parts[1] ? [parts[0], parts[1]] : [risValue(pages)];
}

/** The reference type for a paper (see the file comment). */
export function risType(paper: CitablePaper): RisType {
  const { type, preprint } = entryType(paper);
  return preprint ? 'UNPB' : type === 'article' ? 'JOUR' : 'GEN';
}

/** One RIS record for a paper, CR LF after every line, `ER  - ` last (no blank line after it). */
export function toRis(paper: ExportPaper, extras: RisExtras = {}): string {
  const lines: string[] = [`TY  - ${risType(paper)}`];
  const add = (tag: string, value: string | undefined): void => {
    if (value) lines.push(`${tag}  - ${value}`);
  };
  add('TI', risValue(paper.title));
  for (const a of paper.authors ?? []) {
    if (typeof a !== 'string') continue;
    const n = parseName(risValue(a));
    if (n.family) add('AU', risName(n));
  }
  const year = yearOf(paper);
  if (year !== undefined) add('PY', String(year));
  add('DA', risDate(paper, year));
  add('T2', noAsterisk(paper.journal_name ?? ''));
  add('VL', risValue(paper.volume));
  if (paper.pages && risValue(paper.pages)) {
    const [start, end] = risPages(paper.pages);
    add('SP', start);
    add('EP', end);
  }
  add('PB', risValue(paper.publisher_name));
  add('DO', normaliseDoi(risValue(paper.doi)));
  // As the BibTeX writer: http(s) only; white space percent-encoded (it belongs in no URL).
  const url = (paper.url ?? '').trim();
  if (/^https?:\/\//iu.test(url)) add('UR', risValue(url.replace(/[\s\u0085]/gu, (c) => encodeURIComponent(c))));
  add('AB', risValue(paper.abstract));
  for (const k of extras.keywords ?? []) add('KW', noAsterisk(k));
  add('N1', risValue(extras.note));
  lines.push('ER  - ');
  return lines.join(RIS_NEWLINE) + RIS_NEWLINE;
}

/** A RIS file: the records, a blank line after each (as Zotero writes them). */
export function risFile(records: readonly string[]): string {
  return records.map((r) => r + RIS_NEWLINE).join('');
}
