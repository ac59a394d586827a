/**
 * Stable, readable cite keys: `sandkuhler2023creatine` = first author's family name (ASCII-folded, lower case,
 * particle dropped) + year + first significant title word. The scheme is a template (a setting):
 *   {author} {year} {title} (first significant word) {shorttitle} (first three, joined) {Author} {Title} (capitalised)
 * anything else in the template is kept as written after removing characters some syntax cannot hold in a key (only
 * letters, digits, `_`, `-`, `:` and `.` are kept, and the key starts and ends with a letter or digit).
 * A name with no Latin reading (李, Иванов, محمد) falls back to the next author who has one, else `anon`; no year
 * gives `nd`. Clashes with existing keys get a, b, … z, aa, ab … (case-insensitive, deterministic). Pure.
 */
import { yearOf, type CitablePaper } from './bibtex';
import { asciiFold, parseName } from './names';

export const DEFAULT_KEY_SCHEME = '{author}{year}{title}';
/** Schemes offered in the setting's enum; any template is accepted. */
export const KEY_SCHEMES = [
  '{author}{year}{title}',
  '{author}_{year}',
  '{author}{year}',
  '{Author}{year}{Title}',
] as const;

const STOP = new Set(
  (
    'a an the of on in and or for to with without from by at as into onto over under between among about after before ' +
    'during is are was were be been does do did can could should would will may might must has have had how what when ' +
    'where which who whom why whether than then that this these those its it their our your not no vs versus via per'
  ).split(' '),
);

/** Title words folded to ASCII, stop words and words with no Latin reading dropped. */
function significantWords(title: string): string[] {
  return title
    .split(/[\s\-‐–—/:;,.!?()[\]{}"“”'’]+/u)
    .map((w) => asciiFold(w).toLowerCase())
    .filter((w) => w && !STOP.has(w) && !/^\d+$/u.test(w));
}

/**
 * The part of an organisation's name a key uses: its acronym-like word if it has one (SLEEP-COG, CREATINE, GBD),
 * else its first significant word with a letter ("Global Burden of Disease Collaborators" → global, "The 1000 Genomes
 * Project Consortium" → genomes: a key starts with a letter); at most 20 letters.
 */
function organisationWord(name: string): string {
  const words = name.split(/[\s/]+/u);
  const acronym = words.find((w) => /^\p{Lu}{2,}(?:-\p{Lu}+)*$/u.test(w.replace(/[^\p{L}-]+/gu, '')));
  const word =
    acronym ??
    words.find((w) => {
      const f = asciiFold(w).toLowerCase();
      return /[a-z]/u.test(f) && !STOP.has(f);
    }) ??
    '';
  return asciiFold(word).toLowerCase().slice(0, 20);
}

/** The family name used in keys: the first author whose family name folds to ASCII; else 'anon'. */
export function keyAuthor(authors: readonly string[] | null | undefined): string {
  for (const a of authors ?? []) {
    const n = parseName(a);
    const fam = n.literal ? organisationWord(n.family) : asciiFold(n.family);
    if (fam) return fam.toLowerCase();
  }
  return 'anon';
}

const cap = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** The key before disambiguation. */
export function baseKey(paper: CitablePaper, scheme: string = DEFAULT_KEY_SCHEME): string {
  const author = keyAuthor(paper.authors);
  const year = yearOf(paper);
  const words = significantWords(paper.title ?? '');
  const values: Record<string, string> = {
    author,
    Author: cap(author),
    year: year === undefined ? 'nd' : String(year),
    title: words[0] ?? '',
    Title: cap(words[0] ?? ''),
    shorttitle: words.slice(0, 3).join(''),
  };
  // Only characters every syntax reads in a key: BibTeX, Biber, pandoc's @key and Typst's @key and <key> (Typst ends a
  // label at `+` or `/`, and gives a trailing `.`, `:` or `-` back to the text).
  const key = scheme
    .replace(/\{(\w+)\}/gu, (m, name: string) => values[name] ?? m)
    .replace(/[^A-Za-z0-9_\-:.]/gu, '')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/gu, '');
  return key || `${author}${values.year}`;
}

/** Suffix n (0 → 'a', 25 → 'z', 26 → 'aa'). */
export function suffix(n: number): string {
  let s = '';
  let i = n;
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26) - 1;
  } while (i >= 0);
  return s;
}

/** `base` if free, else base + a, b, … (keys compared case-insensitively). */
export function disambiguate(base: string, existing: Iterable<string>): string {
  const taken = new Set<string>();
  for (const k of existing) taken.add(k.toLowerCase());
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 0; ; n++) {
    const k = base + suffix(n);
    if (!taken.has(k.toLowerCase())) return k;
  }
}

/** A new key for a paper, free among `existing`. */
export function citeKey(
  paper: CitablePaper,
  existing: Iterable<string> = [],
  scheme: string = DEFAULT_KEY_SCHEME,
): string {
  return disambiguate(baseKey(paper, scheme), existing);
}
