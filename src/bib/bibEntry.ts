/**
 * What the editor reads of a parsed entry: its fields decoded to Unicode by the BibTeX library (`entryFields`, only the
 * fields it shows, at a bounded cost), the entry as paper metadata (`entryToPaper`), its DOI, and the entry already
 * holding a paper (`findEntry`: same DOI, else same title and year with nothing telling them apart). Apart from the
 * parse (bibFile.ts), which never decodes. Pure.
 */
import { normaliseDoi, unescapeVerbatim, yearOf, type CitablePaper } from './bibtex';
import type { BibEntry, BibFile } from './bibFile';
import { pieceAt, sliceText } from './textPieces';
import { readFields, readKey } from './bibScan';
import { bibtexLibrary } from './library';
import { asciiFold } from './names';
import { tellApart, type PaperFacts } from './paperIdentity';

/**
 * The fields the editor decodes (hover, Copy Reference, title comparison); the others are never handed to the library.
 */
const DECODED_FIELDS = [
  'title',
  'author',
  'journal',
  'journaltitle',
  'booktitle',
  'howpublished',
  'year',
  'date',
  'volume',
  'pages',
  'publisher',
  'doi',
  'url',
];
/**
 * Longer values are not decoded but shown as written (cut): the library's decoding is not linear on every input, and
 * no title, name list or venue is this long.
 */
export const MAX_DECODED_VALUE = 4000;
/** C0 controls but tab and line breaks, and DEL: the library throws on some (a NUL in a `@string`). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/gu;

/** `@string` definitions by macro name (lower case), per parse. */
const stringsMemo = new WeakMap<BibFile, Map<string, string>>();
function stringDefinitions(file: BibFile): Map<string, string> {
  let map = stringsMemo.get(file);
  if (!map) {
    map = new Map();
    const name = /^@[ \t]*string[ \t\r\n]*[{(]\s*([^\s"#%'(),={}]+)/iu;
    for (const d of file.directives) {
      if (d.type !== 'string') continue;
      const m = name.exec(sliceText(file, d.start, Math.min(d.end, d.start + 200)));
      if (m && !map.has(m[1]!.toLowerCase())) map.set(m[1]!.toLowerCase(), sliceText(file, d.start, d.end));
    }
    stringsMemo.set(file, map);
  }
  return map;
}

/** Bare words (macro names) in value text as written: outside braces and quotes. */
function macroNames(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let word = '';
  const flush = (): void => {
    if (word && !/^\d/u.test(word)) out.push(word.toLowerCase());
    word = '';
  };
  for (const c of value) {
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (c === '"' && depth === 0) quoted = !quoted;
    else if (depth === 0 && !quoted && !/[\s#,=]/u.test(c)) {
      word += c;
      continue;
    }
    flush();
  }
  flush();
  return out;
}

/**
 * The start of a delimited name list (`{A and B and …}` or `"…"`) up to the last top-level ` and ` within `max`
 * characters, closed again; undefined when it is not one delimited value or no name ends within `max`.
 */
function leadingNames(value: string, max: number): string | undefined {
  const open = value[0];
  if (open !== '{' && open !== '"') return undefined;
  let depth = 0;
  let cut = -1;
  for (let i = 1; i < max - 1; i++) {
    const c = value[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    if (depth < 0 || (open === '"' && depth === 0 && c === '"')) return undefined;
    if (depth === 0 && (c === ' ' || c === '\t' || c === '\n') && /^and\s/iu.test(value.slice(i + 1, i + 5))) cut = i;
  }
  return cut > 0 ? `${value.slice(0, cut)}${open === '{' ? '}' : '"'}` : undefined;
}

/**
 * An entry's fields in Unicode (LaTeX decoded, names split) by the library. Needs `loadBibtexLibrary()`. Never
 * throws, and its cost is bounded whatever the file holds: only the fields the editor reads are decoded, each up to
 * MAX_DECODED_VALUE characters (a longer one is given as written, cut), with only the `@string`s they use.
 */
export function entryFields(file: BibFile, entry: BibEntry): Record<string, unknown> {
  const spans = new Map<string, [number, number]>();
  // Read in the piece of the text that holds the entry (spans are offsets in it): the whole text may be unjoined.
  const { text, start } = pieceAt(file, entry.start);
  readFields(text, readKey(text, entry.keyStart - start).after, entry.end - 1 - start, [], spans);
  const parts: string[] = [];
  const long: Record<string, string> = {};
  const macros = new Set<string>();
  for (const name of DECODED_FIELDS) {
    const span = spans.get(name);
    if (!span) continue;
    let value = text.slice(span[0], span[1]);
    // A long name list (a collaboration's thousands of authors) is decoded from the names that fit.
    if (value.length > MAX_DECODED_VALUE && name === 'author') value = leadingNames(value, MAX_DECODED_VALUE) ?? value;
    if (value.length > MAX_DECODED_VALUE) {
      long[name] = `${(entry.field(name) ?? '').slice(0, MAX_DECODED_VALUE)}…`;
      continue;
    }
    parts.push(`${name} = ${value}`);
    for (const m of macroNames(value)) macros.add(m);
  }
  // The @strings used, and those their values use (a definition may build on another).
  const defs = stringDefinitions(file);
  const used: string[] = [];
  for (const m of macros) {
    const def = defs.get(m);
    if (def === undefined || def.length > MAX_DECODED_VALUE) continue;
    used.push(def);
    for (const n of macroNames(def.slice(def.search(/=/u) + 1))) macros.add(n);
  }
  const input = `${used.reverse().join('\n')}\n@${entry.type}{k,\n${parts.join(',\n')}\n}`.replace(CONTROL, ' ');
  let fields: Record<string, unknown> | undefined;
  try {
    fields = bibtexLibrary().parse(input).entries[0]?.fields;
  } catch {
    // What the library cannot read is shown as written.
    const raw = entry.raw;
    fields = Object.fromEntries(
      DECODED_FIELDS.filter((f) => f !== 'author' && raw[f] !== undefined).map((f) => [
        f,
        raw[f]!.replace(/[{}]/gu, ''),
      ]),
    );
  }
  // Composed accents (NFC), whatever form the parser builds them in.
  const decoded = fields ? (JSON.parse(JSON.stringify(fields).normalize('NFC')) as Record<string, unknown>) : {};
  return { ...decoded, ...long };
}

interface ParsedCreator {
  name?: string;
  lastName?: string;
  firstName?: string;
  prefix?: string;
}

/**
 * An entry as paper metadata (for hover and Copy Reference on a key): title, authors ("von Last, First"), venue,
 * year, volume, pages, DOI, URL, all decoded to Unicode by the library.
 */
export function entryToPaper(file: BibFile, entry: BibEntry): CitablePaper {
  const f = entryFields(file, entry);
  const str = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim()
      ? v.trim()
      : Array.isArray(v) && typeof v[0] === 'string'
        ? v.join(', ')
        : undefined;
  const authors = Array.isArray(f['author'])
    ? (f['author'] as ParsedCreator[]).map(
        (a) => a.name ?? [[a.prefix, a.lastName].filter(Boolean).join(' '), a.firstName].filter(Boolean).join(', '),
      )
    : undefined;
  const year = /\d{4}/u.exec(str(f['year']) ?? str(f['date']) ?? '')?.[0];
  const doi = entryDoi(entry);
  const url = str(f['url']);
  return {
    title: str(f['title']) ?? null,
    authors: authors ?? null,
    journal_name: str(f['journal']) ?? str(f['journaltitle']) ?? str(f['booktitle']) ?? str(f['howpublished']) ?? null,
    publish_year: year ? Number(year) : null,
    volume: str(f['volume']) ?? null,
    pages: str(f['pages']) ?? null,
    publisher_name: str(f['publisher']) ?? null,
    doi: doi ?? null,
    url: url ? unescapeVerbatim(url) : null,
  };
}

/** The DOI of an entry's raw `doi` field (or a doi.org `url`), normalised; undefined if none. */
export function entryDoi(entry: BibEntry): string | undefined {
  if (doiMemo.has(entry)) return doiMemo.get(entry);
  const doi = readEntryDoi(entry);
  doiMemo.set(entry, doi);
  return doi;
}
const doiMemo = new WeakMap<BibEntry, string | undefined>();
function readEntryDoi(entry: BibEntry): string | undefined {
  const raw = entry.field('doi') ?? (/doi\.org\//iu.test(entry.field('url') ?? '') ? entry.field('url') : undefined);
  return raw === undefined ? undefined : doiKey(unescapeVerbatim(raw.replace(/[{}]/gu, '')));
}

/**
 * DOI comparison form: normalised, percent escapes decoded. Each run of escapes is decoded on its own: a DOI may hold
 * a `%` that starts no escape (`10.1000/50%off`), next to escapes written for characters a .bib cannot hold (`%7B`).
 */
export function doiKey(doi: string | null | undefined): string | undefined {
  const d = normaliseDoi(doi);
  if (!d) return undefined;
  return d
    .replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    })
    .toLowerCase();
}

/** Title comparison form: accents dropped, lower case, letters and digits only. */
export function titleKey(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const LETTER_MACROS: Record<string, string> = {
  aa: 'a',
  AA: 'a',
  o: 'o',
  O: 'o',
  l: 'l',
  L: 'l',
  ss: 'ss',
  ae: 'ae',
  AE: 'ae',
  oe: 'oe',
  OE: 'oe',
  i: 'i',
  j: 'j',
};

/**
 * A rough ASCII form of a title, the same for a Unicode title and its LaTeX (`{\"u}` and `ü` → `u`, `{\o}` and
 * `ø` → `o`, other macros and all punctuation dropped): equal rough forms are necessary for equal titles.
 */
function roughTitle(s: string, latex: boolean): string {
  const t = latex
    ? s.replace(/\\([A-Za-z]+)\s*|\\./gu, (_m, name: string | undefined) => (name ? (LETTER_MACROS[name] ?? '') : ''))
    : s;
  return asciiFold(t).toLowerCase();
}

/**
 * The entry already holding this paper: same DOI (case-insensitive, resolver prefix ignored), else — when the paper
 * or the entry has no DOI — the same title (normalised) and year, unless another field tells them apart (the
 * journal, the URL, the service's paper id against the entry's URL: paperIdentity.ts). Title comparison parses only
 * the entries of that year with the library.
 */
export function findEntry(file: BibFile, paper: CitablePaper & { id?: string }): BibEntry | undefined {
  const doi = doiKey(paper.doi);
  if (doi) {
    const hit = file.entries.find((e) => entryDoi(e) === doi);
    if (hit) return hit;
  }
  const year = yearOf(paper);
  const title = titleKey(paper.title ?? '');
  if (year === undefined || !title) return undefined;
  const rough = roughTitle(paper.title ?? '', false);
  // The DOIs were compared above (with percent escapes decoded).
  const facts: PaperFacts = { id: paper.id, url: paper.url, journal: paper.journal_name };
  for (const e of file.entries) {
    if ((e.field('year') ?? e.field('date') ?? '').trim().slice(0, 4) !== String(year)) continue;
    const eDoi = entryDoi(e);
    if (doi && eDoi && eDoi !== doi) continue;
    // Cheap necessary condition first: the library parses only entries whose raw title could be the same.
    if (roughTitle(e.field('title') ?? '', true) !== rough) continue;
    const fields = entryFields(file, e);
    const t = fields['title'];
    if (typeof t !== 'string' || titleKey(t) !== title) continue;
    const url = fieldText(fields['url']);
    const journal = fieldText(
      fields['journal'] ?? fields['journaltitle'] ?? fields['booktitle'] ?? fields['howpublished'],
    );
    if (!tellApart(facts, { url: url && unescapeVerbatim(url), journal })) return e;
  }
  return undefined;
}

/** A decoded field as one string (the library gives some as lists). */
const fieldText = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(' ') : undefined;
