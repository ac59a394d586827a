/**
 * The bibliographies the reading benches use, shaped like writers' files (deterministic: the same bytes every run):
 *
 *  - `writer`: Research Desk's own `toBibtex` output for the emulator's corpus, hostile and international names
 *    included (`Sandk{\"{u}}hler`, `{\relax{}К}озлов`, CJK names braced whole, Title Case, `&`, `$`, `%` in titles):
 *    what a writer's file holds after citing with Research Desk;
 *  - `zotero`: the same papers exported the way Zotero with Better BibTeX writes them: `@string`s for the journals,
 *    accents as `{\"u}` and `{\v Z}`, Cyrillic as `\cyrchar` macros (unicode2latex, the tables Better BibTeX uses),
 *    tab-indented fields with a trailing comma, long abstracts, `keywords`, `urldate`, `issn`, `file` fields.
 *
 * `makeBib` (the `writer` file) is also what bench/cite.ts inserts into.
 */
import { toBibtex, type CitablePaper } from '../src/bib/bibtex';
import { baseKey } from '../src/bib/keys';
import { loadBibtexLibrary } from '../src/bib/library';
import { generateCorpus, type Paper } from '../test/emulator/corpus';
import { corpusCitePaper } from '../test/unit/bib/corpusPaper';

export type BibVariant = 'writer' | 'zotero';
export const BIB_VARIANTS: readonly BibVariant[] = ['writer', 'zotero'];
export const BIB_SEED = 20260207;

/** The emulator corpus' paper as the service returns it (the fields a citation uses; no id). */
export function citable(p: Paper): CitablePaper {
  const { id: _id, ...paper } = corpusCitePaper(p);
  return paper;
}

/** A .bib of the first `n` papers written by toBibtex, keys made free the way citeKey does it (a Set, no rescans). */
export function makeBib(papers: readonly CitablePaper[], n: number): string {
  const taken = new Set<string>();
  const out: string[] = [];
  for (const p of papers.slice(0, n)) {
    const base = baseKey(p);
    let key = base;
    for (let i = 0; taken.has(key.toLowerCase()); i++)
      key = `${base}${String.fromCharCode(97 + (i % 26))}${i >= 26 ? Math.floor(i / 26) : ''}`;
    taken.add(key.toLowerCase());
    out.push(toBibtex(p, key));
  }
  return `${out.join('\n\n')}\n`;
}

interface Latexer {
  tolatex(text: string, options: object): string;
}
let latexer: Latexer | undefined;
const charMemo = new Map<string, string>();

/** One character as Better BibTeX writes it: ASCII as is (specials escaped), others unicode2latex's macro, braced. */
function bbtChar(c: string): string {
  let hit = charMemo.get(c);
  if (hit === undefined) {
    if (/^[A-Za-z0-9 .,;:!?'()/@+=*-]$/u.test(c)) hit = c;
    else if (/^[&%$#_]$/u.test(c)) hit = `\\${c}`;
    else {
      const l = latexer!.tolatex(c, {});
      hit = l === c ? c : l.startsWith('\\') || l.startsWith('$') ? `{${l.replace(/\{\}$/u, '')}}` : l;
    }
    charMemo.set(c, hit);
  }
  return hit;
}
const bbt = (s: string): string => Array.from(s.normalize('NFC'), bbtChar).join('');

/** Title words with a capital after the first protected by braces, as Better BibTeX does. */
const bbtTitle = (t: string): string =>
  t
    .split(' ')
    .map((w, i) => (i > 0 && /\p{Lu}/u.test(w) ? `{${bbt(w)}}` : bbt(w)))
    .join(' ');

function bbtName(name: string): string {
  const parts = name.trim().split(/\s+/u);
  if (parts.length < 2 || /[\u3400-\u9fff\uac00-\ud7af]/u.test(name)) return `{${bbt(name)}}`;
  const family = parts.pop()!;
  return `${bbt(family)}, ${bbt(parts.join(' '))}`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A Better BibTeX key: first author's family name, the first three significant title words, the year. */
function bbtKey(p: Paper, taken: Set<string>): string {
  const family = (p.authors[0] ?? 'anon').trim().split(/\s+/u).pop() ?? 'anon';
  const fold = (s: string): string =>
    s
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]/gu, '')
      .toLowerCase();
  const words = p.title
    .split(/\s+/u)
    .map(fold)
    .filter((w) => w.length > 3)
    .slice(0, 3)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  const base = `${fold(family) || 'anon'}${words.join('')}${p.year}`;
  let key = base;
  for (let i = 0; taken.has(key.toLowerCase()); i++) key = `${base}-${i + 1}`;
  taken.add(key.toLowerCase());
  return key;
}

/** A .bib of the first `n` papers as Zotero + Better BibTeX exports them (see the file comment). */
export function makeZoteroBib(papers: readonly Paper[], n: number): string {
  const journals = new Map<string, string>();
  const taken = new Set<string>();
  const entries: string[] = [];
  for (const p of papers.slice(0, n)) {
    const key = bbtKey(p, taken);
    let macro: string | undefined;
    if (p.journal) {
      macro = journals.get(p.journal);
      if (!macro) journals.set(p.journal, (macro = `j${journals.size + 1}`));
    }
    // Abstracts of a few hundred to a few thousand characters: the body's first sections for some.
    const body = (p.fullText ?? []).map((s) => s.sentences.join(' ')).join(' ');
    const abstract = p.index % 5 === 0 && body ? `${p.abstract} ${body}`.slice(0, 4000) : p.abstract;
    const fields: [string, string | undefined][] = [
      ['title', `{${bbtTitle(p.title)}}`],
      ['volume', p.volume && `{${p.volume}}`],
      ['issn', `{${1000 + (p.index % 8999)}-${String(1000 + ((p.index * 7) % 8999)).padStart(4, '0')}}`],
      ['url', `{${p.url}}`],
      ['doi', p.doi ? `{${p.doi}}` : undefined],
      ['abstract', abstract ? `{${bbt(abstract)}}` : undefined],
      ['language', '{en}'],
      ['urldate', `{2024-0${1 + (p.index % 9)}-1${p.index % 10}}`],
      ['journal', macro],
      ['author', p.authors.length ? `{${p.authors.map(bbtName).join(' and ')}}` : undefined],
      ['month', p.month ? MONTHS[p.month - 1] : undefined],
      ['year', `{${p.year}}`],
      ['keywords', `{${[p.topic, p.exposure, p.outcome].map(bbt).join(', ')}}`],
      ['pages', p.pages && `{${p.pages.replace('-', '--')}}`],
      [
        'file',
        `{Full Text PDF:/home/writer/Zotero/storage/${p.id.slice(0, 8).toUpperCase()}/${key}.pdf:application/pdf}`,
      ],
    ];
    const type = p.isPreprint ? 'misc' : 'article';
    const lines = fields.filter((f): f is [string, string] => !!f[1]).map(([k, v]) => `\t${k} = ${v},`);
    entries.push(`@${type}{${key},\n${lines.join('\n')}\n}`);
  }
  const strings = [...journals].map(([name, macro]) => `@string{${macro} = {${bbt(name)}}}`);
  return `${strings.join('\n')}\n\n${entries.join('\n\n')}\n`;
}

/** The corpus papers behind the bibliographies (the largest size's; smaller files are prefixes). */
const corpusMemo = new Map<number, Paper[]>();
export function benchCorpus(n: number): Paper[] {
  let hit = corpusMemo.get(n);
  if (!hit) corpusMemo.set(n, (hit = generateCorpus(n, BIB_SEED)));
  return hit;
}

/** The bibliography of `n` entries of a variant (loads the BibTeX library and unicode2latex as needed). */
export async function benchBib(variant: BibVariant, n: number, corpusSize = n): Promise<string> {
  const corpus = benchCorpus(Math.max(n, corpusSize));
  if (variant === 'writer') {
    await loadBibtexLibrary();
    return makeBib(corpus.map(citable), n);
  }
  // unicode2latex is an ES module (a dependency of the BibTeX library, with the tables Better BibTeX uses).
  latexer ??= new (await import('unicode2latex')).Transform('bibtex', {}) as Latexer;
  return makeZoteroBib(corpus, n);
}
