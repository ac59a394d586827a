// The odd forms of the corpus, each named and recognised in a paper's final text (not by which
// generator ran, so a form the main stream happens to produce counts too), and a deterministic
// sample of papers that covers every form: the input of the toolchain suite, which must show
// that every citation Research Desk writes builds and renders these papers exactly.
import { getCorpus, type Paper } from './corpus';
import { CORPORATE_AUTHORS, GROUP_AUTHORS, ODD_PERSON_NAMES, TITLE_PROPER_NOUNS } from './vocab';

export interface CorpusForm {
  /** `author: …`, `corporate author: …`, `title: …`, `doi: …`, `venue: …` or `same title: …`. */
  name: string;
  test: (paper: Paper) => boolean;
}

const CORPORATE = new Set<string>([...CORPORATE_AUTHORS, ...GROUP_AUTHORS]);
const persons = (p: Paper): string[] => p.authors.filter((a) => !CORPORATE.has(a));
const corporates = (p: Paper): string[] => p.authors.filter((a) => CORPORATE.has(a));

const person = (name: string, re: RegExp, not?: RegExp): CorpusForm => ({
  name: `author: ${name}`,
  test: (p) => persons(p).some((a) => re.test(a) && !(not?.test(a) ?? false)),
});
const personIn = (name: string, list: readonly string[]): CorpusForm => {
  const set = new Set(list);
  return { name: `author: ${name}`, test: (p) => p.authors.some((a) => set.has(a)) };
};
const corporate = (name: string, re: RegExp): CorpusForm => ({
  name: `corporate author: ${name}`,
  test: (p) => corporates(p).some((a) => re.test(a)),
});
const title = (name: string, test: (t: string) => boolean): CorpusForm => ({
  name: `title: ${name}`,
  test: (p) => test(p.title),
});
const titleHas = (ch: string, label = ch): CorpusForm => title(label, (t) => t.includes(ch));
const doiHas = (ch: string): CorpusForm => ({ name: `doi: contains ${ch}`, test: (p) => p.doi.includes(ch) });

/**
 * Title Case: no lower-case Latin word of four letters or more after the first word, and at
 * least three capitalised ones (sentence-case titles nearly always have a long lower-case word).
 */
export function isTitleCase(t: string): boolean {
  const words = t.split(/\s+/).slice(1);
  let upper = 0;
  for (const w of words) {
    if (/^[a-z]{4,}/.test(w)) return false;
    if (/^\p{Lu}\p{Ll}{2,}/u.test(w)) upper++;
  }
  return upper >= 3;
}

const ROMAN = /(^|\s)(?:II|III|IV)$/;
const VIET_STACKED = /[\u1EA4-\u1EB7\u1EBE-\u1EC7\u1ED0-\u1EE3\u1EE8-\u1EF1]/;
const VIET_HORN = /[ƠơƯư\u1EDA-\u1EE3\u1EE8-\u1EF1]/;

/** Same-title groups of a corpus (two or more papers, one year, different journals), by kind. */
export function sameTitleGroups(corpus: readonly Paper[] = getCorpus()): {
  exact: Paper[][];
  caseOnly: Paper[][];
  sameStart: Paper[][];
} {
  const group = (key: (p: Paper) => string): Paper[][] => {
    const m = new Map<string, Paper[]>();
    for (const p of corpus) {
      const k = key(p);
      const list = m.get(k);
      if (list) list.push(p);
      else m.set(k, [p]);
    }
    return [...m.values()].filter((g) => g.length > 1 && new Set(g.map((p) => p.journal)).size > 1);
  };
  const exact = group((p) => `${p.year}\u0000${p.title}`);
  const exactIds = new Set(exact.flat().map((p) => p.index));
  const caseOnly = group((p) => `${p.year}\u0000${p.title.toLowerCase()}`).filter(
    (g) => new Set(g.map((p) => p.title)).size > 1,
  );
  // Same start: the part before the first ": " (at least 20 characters) is shared, the rest differs.
  const sameStart = group((p) => {
    const i = p.title.indexOf(': ');
    return i >= 20 ? `${p.year}\u0000${p.title.slice(0, i)}` : `\u0001${p.index}`;
  }).filter((g) => new Set(g.map((p) => p.title)).size > 1 && !g.every((p) => exactIds.has(p.index)));
  return { exact, caseOnly, sameStart };
}

/** Every odd form, as a predicate over a paper of `corpus` (the same-title forms need the whole corpus). */
export function corpusForms(corpus: readonly Paper[] = getCorpus()): CorpusForm[] {
  const groups = sameTitleGroups(corpus);
  const ids = (gs: Paper[][]): Set<number> => new Set(gs.flat().map((p) => p.index));
  const exact = ids(groups.exact);
  const caseOnly = ids(groups.caseOnly);
  const sameStart = ids(groups.sameStart);
  const N = ODD_PERSON_NAMES;
  return [
    // Scripts.
    person('Chinese (Han)', /^\p{Script=Han}{2,4}$/u, new RegExp(`^(?:${N.japaneseUnspaced.join('|')})$`)),
    person(
      'Japanese, family name first with a space',
      /^\p{Script=Han}+ [\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u,
    ),
    personIn('Japanese, no space', N.japaneseUnspaced),
    person('Japanese with kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u),
    person('Korean (Hangul)', /\p{Script=Hangul}/u),
    person('Russian (Cyrillic)', /\p{Script=Cyrillic}/u, /[іїєґІЇЄҐђјљњћџЂЈЉЊЋЏ]/),
    person('Ukrainian (і ї є ґ)', /[іїєґІЇЄҐ]/),
    person('Serbian Cyrillic (ђ ј љ њ ћ џ)', /[ђјљњћџЂЈЉЊЋЏ]/),
    person('Greek', /\p{Script=Greek}/u),
    person('Vietnamese, stacked diacritics', VIET_STACKED),
    person('Vietnamese, horn letters (ơ ư)', VIET_HORN),
    person('Arabic', /\p{Script=Arabic}/u),
    person('Hebrew', /\p{Script=Hebrew}/u),
    person('Devanagari', /\p{Script=Devanagari}/u),
    person('Thai', /\p{Script=Thai}/u),
    // Latin forms.
    ...(['van der', 'de la', 'von', 'di', 'da', 'dos', 'ten', 'bin'] as const).map((w) =>
      person(`particle "${w}"`, new RegExp(`(^|\\s)${w}\\s`)),
    ),
    person('particle "al-"', /(^|\s)al-\p{L}/u),
    person('particle "van \'t"', /\s't\s/),
    person('capitalised particle (Van den, De, Di, Da, Le, Al-)', /\s(?:Van|De|Di|Da|Le) \p{Lu}|\sAl-\p{Lu}/u),
    person('Gaelic Ó / Ní', /(^|\s)(?:Ó|Ní)\s/),
    person('inner capital (MacLeod, McAllister, LeBlanc)', /(^|\s)(?:Mac|Mc|Le)\p{Lu}\p{Ll}/u),
    person('Spanish double surname with "y"', /\sy\s/),
    person('suffix (Jr., Sr., II, III, IV)', /(?:\s|,\s*)(?:Jr\.|Sr\.|II|III|IV)$/),
    person('suffix after a comma', /,\s*(?:Jr\.|Sr\.|II|III|IV)$/),
    person('hyphenated given name', /^\p{Lu}\p{Ll}+-\p{L}+\s/u),
    person('hyphenated family name', /\s\S+-\p{Lu}\p{Ll}+$/u),
    person('straight apostrophe', /\p{L}'\p{L}/u),
    person('curly apostrophe', /\p{L}’\p{L}/u),
    person('modifier-letter apostrophe (ʼ)', /ʼ/),
    ...['Đ', 'Þ', 'þ', 'ð', 'Ł', 'ı', 'ß', 'Ø', 'Ŋ', 'ŋ', 'ő', 'ű', 'ș', 'ț', 'ğ'].map((ch) =>
      person(`letter ${ch}`, new RegExp(ch)),
    ),
    person('decomposed accents (NFD)', /[\u0300-\u036f]/),
    person('mononym', /^\p{Script=Latin}+$/u),
    person('initials', /^\p{Lu}\.(?:[\s-]*\p{Lu}\.)*\s\S/u),
    person('family name then initials (Smith JA)', /^\S.*\s\p{Lu}{1,3}$/u, ROMAN),
    person('family name in capitals (DUPONT Jean)', /(^|\s)(?!(?:II|III|IV)(\s|$))\p{Lu}{3,}(\s|$)/u),
    person('inverted "Family, Given"', /^[^,]+, \p{Lu}\p{Ll}+$/u),
    { name: 'authors: 15 or more', test: (p) => p.authors.length >= 15 },
    // Corporate authors.
    { name: 'corporate author: sole author', test: (p) => p.authors.length === 1 && CORPORATE.has(p.authors[0]!) },
    { name: 'corporate author: with personal authors', test: (p) => p.authors.length > 1 && corporates(p).length > 0 },
    corporate('consortium', /Consortium/),
    corporate('collaborators', /Collaborators/),
    corporate('collaboration', /Collaboration\b/),
    corporate('collaborative group', /Collaborative Group/),
    corporate('group', /\bGroup\b/),
    corporate('committee', /Committee/),
    corporate('"Writing Committee for …"', /^Writing Committee for /),
    corporate('investigators', /Investigators/),
    corporate('task force', /Task Force/),
    corporate('working party', /Working Party/),
    corporate('working group', /Working Group/),
    corporate('network', /Network/),
    corporate('alliance', /Alliance/),
    corporate('initiative', /Initiative/),
    corporate('panel', /Panel/),
    corporate('"… Study Group"', /Study Group/),
    corporate('contains " and "', /\sand\s/),
    corporate('contains "&"', /&/),
    corporate('contains a comma', /,/),
    corporate('contains parentheses', /\(/),
    corporate('university', /Universit/),
    corporate('ministry', /Ministr/),
    corporate('not in English', /für|Ministère|\p{Script=Han}|\p{Script=Cyrillic}/u),
    corporate('starts in lower case', /^\p{Ll}/u),
    // Titles: every LaTeX, BibTeX and Markdown special.
    ...['&', '%', '$', '#', '_', '{', '}', '~', '^', '\\', '`', '*', '[', ']', '<', '>', '|', '@', '"'].map((ch) =>
      titleHas(ch, `contains ${ch}`),
    ),
    title('code name in backticks', (t) => /`[^`\s]+`/.test(t)),
    title('inline TeX math ($…$)', (t) => /\$[^$\s][^$]*\$/.test(t)),
    title('LaTeX command', (t) => /\\[A-Za-z]+/.test(t)),
    title('HTML italics', (t) => /<i>/.test(t)),
    title('HTML sub/superscript', (t) => /<su[bp]>/.test(t)),
    title('Markdown emphasis', (t) => /\*\*[^*]+\*\*|(^|\s)_[^_\s][^_]*_(\s|$)|(^|\s)\*[^*\s][^*]*\*/.test(t)),
    // Greek and mathematics.
    title('Greek letter (lower case) in running text', (t) => /[α-ω]/.test(t)),
    title('Greek capital (Δ)', (t) => /[Α-Ω]/.test(t)),
    ...['≥', '≤', '±', '×', '≈', '→', '°', 'µ', '−'].map((ch) => titleHas(ch, `contains ${ch}`)),
    title('superscript', (t) => /[²³¹⁰-⁹⁺⁻]/.test(t)),
    title('subscript', (t) => /[₀-₉]/.test(t)),
    // Quotes, dashes.
    title('curly double quotes', (t) => /“[^”]*”/.test(t)),
    title('curly single quotes', (t) => /(^|\s)‘[^’]*’/.test(t)),
    title('curly apostrophe (Parkinson’s)', (t) => /\p{L}’\p{L}/u.test(t)),
    title('curly apostrophe at the end of a word (patients’)', (t) => /\p{L}’(\s|$)/u.test(t)),
    title("straight apostrophe (Alzheimer's)", (t) => /\p{L}'\p{L}/u.test(t)),
    titleHas('–', 'en dash'),
    titleHas('—', 'em dash'),
    titleHas('…', 'ellipsis'),
    // Case.
    title('Title Case', isTitleCase),
    title(
      'proper noun in a sentence-case title',
      (t) => !isTitleCase(t) && TITLE_PROPER_NOUNS.some((n) => t.indexOf(n) > 0),
    ),
    title('eponym with a possessive', (t) => /(?:Alzheimer|Parkinson|Sjögren)['’]s/.test(t)),
    title('COVID-19 or SARS-CoV-2', (t) => /COVID-19|SARS-CoV-2/.test(t)),
    title('mixed-case word (mRNA, pH, iPSC)', (t) => /(^|[^\p{L}])\p{Ll}+\p{Lu}/u.test(t)),
    title('acronym', (t) => /(^|[^\p{L}])\p{Lu}{3,}([^\p{L}]|$)/u.test(t)),
    title('starts with a lower-case letter', (t) => /^\p{Ll}/u.test(t)),
    title('starts with a digit', (t) => /^\d/.test(t)),
    title('translated title in brackets', (t) => /^\[.*\]$/.test(t)),
    title('question mark', (t) => t.includes('?')),
    title('accented Latin letter', (t) => /[À-ɏ]/.test(t)),
    title('non-Latin script', (t) => /[\p{Script=Han}\p{Script=Cyrillic}]/u.test(t)),
    // Identifiers and venues.
    ...['#', '%', '<', '>', ';', '(', ')'].map(doiHas),
    { name: 'doi: empty', test: (p) => p.doi === '' },
    { name: 'venue: empty journal name', test: (p) => p.journal === '' },
    { name: 'venue: journal name with &', test: (p) => p.journal.includes('&') },
    { name: 'venue: journal name with a colon', test: (p) => p.journal.includes(':') },
    { name: 'venue: preprint', test: (p) => p.isPreprint === true },
    { name: 'venue: no volume or pages', test: (p) => p.volume === undefined || p.pages === undefined },
    // Same-title papers (same year, different journals).
    { name: 'same title: exact, same year, another journal', test: (p) => exact.has(p.index) },
    { name: 'same title: other capitals, same year, another journal', test: (p) => caseOnly.has(p.index) },
    { name: 'same title: same start, same year, another journal', test: (p) => sameStart.has(p.index) },
  ];
}

export interface SampledPaper {
  paper: Paper;
  /** Names of the forms this paper has. */
  forms: string[];
}

export interface CoverageSample {
  /** The sample, in selection order: first a greedy cover of every form, then papers for each form in turn. */
  papers: SampledPaper[];
  /** How many papers of the sample the cover of every form needed. */
  coverSize: number;
  /** Forms no paper of the corpus has (empty for the default corpus). */
  uncovered: string[];
  forms: CorpusForm[];
}

/**
 * A deterministic sample of at least `n` papers covering every form at least once: a greedy set
 * cover first (the paper with the most forms not yet covered, lowest index on ties), then one
 * more paper for each form in turn (spreading the rest of the sample over the forms), then the
 * corpus in order. The other members of every same-title group of a sampled paper come along,
 * so a client that merges papers by title and year is caught inside one document.
 */
export function coverageSample(n = 300, corpus: readonly Paper[] = getCorpus()): CoverageSample {
  const forms = corpusForms(corpus);
  const has: number[][] = corpus.map((p) => forms.flatMap((f, i) => (f.test(p) ? [i] : [])));
  const groups = sameTitleGroups(corpus);
  const partners = new Map<number, Paper[]>();
  for (const g of [...groups.exact, ...groups.caseOnly, ...groups.sameStart])
    for (const p of g) partners.set(p.index, [...(partners.get(p.index) ?? []), ...g]);

  const chosen: number[] = [];
  const inSample = new Set<number>();
  const covered = new Set<number>();
  const add = (i: number): void => {
    const queue = [i];
    while (queue.length > 0) {
      const j = queue.shift()!;
      if (inSample.has(j)) continue;
      inSample.add(j);
      chosen.push(j);
      for (const f of has[j]!) covered.add(f);
      for (const q of partners.get(j) ?? []) queue.push(q.index);
    }
  };

  const coverable = new Set(has.flat());
  while ([...coverable].some((f) => !covered.has(f))) {
    let best = -1;
    let bestGain = 0;
    for (let i = 0; i < corpus.length; i++) {
      if (inSample.has(i)) continue;
      let gain = 0;
      for (const f of has[i]!) if (!covered.has(f)) gain++;
      if (gain > bestGain) {
        best = i;
        bestGain = gain;
      }
    }
    add(best);
  }
  const coverSize = chosen.length;

  // Round-robin over the forms: the next paper (in corpus order) with that form not yet sampled.
  const byForm = forms.map((_, f) => has.flatMap((fs, i) => (fs.includes(f) ? [i] : [])));
  const cursor = forms.map(() => 0);
  let progress = true;
  while (chosen.length < n && progress) {
    progress = false;
    for (let f = 0; f < forms.length && chosen.length < n; f++) {
      const list = byForm[f]!;
      while (cursor[f]! < list.length && inSample.has(list[cursor[f]!]!)) cursor[f]!++;
      if (cursor[f]! < list.length) {
        add(list[cursor[f]!]!);
        progress = true;
      }
    }
  }
  for (let i = 0; i < corpus.length && chosen.length < n; i++) add(i);

  return {
    papers: chosen.map((i) => ({ paper: corpus[i]!, forms: has[i]!.map((f) => forms[f]!.name) })),
    coverSize,
    uncovered: forms.filter((_, f) => !coverable.has(f)).map((f) => f.name),
    forms,
  };
}
