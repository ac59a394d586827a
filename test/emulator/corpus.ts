// Deterministic generated corpus: papers with every field of the spec filled with realistic,
// varied values. Same seed → same corpus in every process. Generated once per (size, seed) and cached.
import * as vocab from './vocab';
import type { JournalDef, OddNameForm, StudyType, TopicDef } from './vocab';

// Module-local copies: run through tsx (esbuild's CommonJS output), every use of an imported
// binding is a getter call, which shows in the time to generate 5,000 papers.
const {
  CORPORATE_AUTHORS,
  DESIGN_WEIGHTS,
  FIRST_NAMES_LATIN,
  GROUP_AUTHORS,
  INSTITUTIONS,
  JOURNALS,
  LAST_NAMES_LATIN,
  NAMES_NON_LATIN,
  ODD_PERSON_NAMES,
  ODD_TITLE_FORMS,
  STUDY_COUNTRIES,
  TITLE_CASE_SMALL_WORDS,
  TITLE_DECORATIONS,
  TOPICS,
} = vocab;

export interface Section {
  heading: string;
  /** Sentences; the section text is `sentences.join(' ')`, so each sentence is a verbatim substring. */
  sentences: string[];
}

export interface Paper {
  index: number;
  /** Service paper id (last path segment of `url`). */
  id: string;
  title: string;
  abstractSentences: string[];
  abstract: string;
  authors: string[];
  doi: string;
  journal: string;
  publisher: string;
  volume: string | undefined;
  pages: string | undefined;
  year: number;
  month: number | null;
  publishDate: string | null;
  url: string;
  citationCount: number;
  influentialCitationCount: number | null;
  studyType: StudyType | null;
  takeaway: string | null;
  sjrQuartile: 1 | 2 | 3 | 4 | null;
  sampleSize: number | null;
  studyCount: number | null;
  populationType: 'human' | 'animal' | 'other' | null;
  isPreprint: boolean | null;
  countries: string[] | null;
  durationDays: number | null;
  institutions: string[] | null;
  /** Internal flags (not returned as fields). */
  openAccess: boolean;
  retracted: boolean;
  controlled: boolean;
  clinicalGuideline: boolean;
  topMedical: boolean;
  domains: string[];
  topic: string;
  /** Direction of the main finding (drives takeaway, conclusion and the agent's synthesis). */
  effect: 'pos' | 'null' | 'neg';
  /** Main exposure and outcome phrases (for the agent's prose). */
  exposure: string;
  outcome: string;
  /** Full text (Introduction, Methods, Results, Discussion); open-access papers always have it,
   * some paywalled papers too (indexed for ranking, never returned as excerpts). */
  fullText: Section[] | null;
}

/** mulberry32: small, fast, good enough seeded PRNG. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[Math.floor(this.next() * arr.length)]!;
  }
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.next() * total;
    for (const [v, w] of items) {
      r -= w;
      if (r < 0) return v;
    }
    return items[items.length - 1]![0];
  }
  /** Log-uniform integer in [min, max]. */
  logInt(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }
  hex(n: number): string {
    let s = '';
    while (s.length < n)
      s += Math.floor(this.next() * 0x10000)
        .toString(16)
        .padStart(4, '0');
    return s.slice(0, n);
  }
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

interface DesignInfo {
  phrase: string;
  noun: string;
}
const DESIGN: Record<StudyType, DesignInfo> = {
  'bench experiment': { phrase: 'a laboratory study', noun: 'laboratory study' },
  'case report': { phrase: 'a case report', noun: 'case report' },
  'case study': { phrase: 'a case study', noun: 'case study' },
  'case-control study': { phrase: 'a case-control study', noun: 'case-control study' },
  'cohort study': { phrase: 'a prospective cohort study', noun: 'cohort study' },
  'commentary or perspective': { phrase: 'a perspective', noun: 'perspective' },
  'cross-sectional study': { phrase: 'a cross-sectional study', noun: 'cross-sectional study' },
  'field study': { phrase: 'a field study', noun: 'field study' },
  'historical or archival analysis': { phrase: 'an archival study', noun: 'archival analysis' },
  'interview study': { phrase: 'a qualitative interview study', noun: 'interview study' },
  'literature review': { phrase: 'a narrative review', noun: 'review' },
  'longitudinal / panel data study': { phrase: 'evidence from panel data', noun: 'longitudinal study' },
  'meta-analysis': { phrase: 'a systematic review and meta-analysis', noun: 'meta-analysis' },
  'mixed methods study': { phrase: 'a mixed methods study', noun: 'mixed methods study' },
  'non-randomized experimental study': { phrase: 'a non-randomised controlled study', noun: 'non-randomised study' },
  'non-rct in vitro': { phrase: 'an in vitro study', noun: 'in vitro study' },
  other: { phrase: 'an expert consensus statement', noun: 'consensus statement' },
  rct: { phrase: 'a randomized controlled trial', noun: 'randomized controlled trial' },
  'systematic review': { phrase: 'a systematic review', noun: 'systematic review' },
  'theoretical, modeling, or simulation study': { phrase: 'a modelling study', noun: 'modelling study' },
  'non-rct experimental': { phrase: 'a pilot experiment', noun: 'experimental study' },
  'non-rct observational study': { phrase: 'an observational study', noun: 'observational study' },
  animal: { phrase: 'an animal study', noun: 'animal study' },
};

const REVIEW_TYPES = new Set<StudyType>(['meta-analysis', 'systematic review', 'literature review']);
const NO_SAMPLE = new Set<StudyType>([
  'meta-analysis',
  'systematic review',
  'literature review',
  'commentary or perspective',
  'theoretical, modeling, or simulation study',
  'historical or archival analysis',
  'other',
  'non-rct in vitro',
  'bench experiment',
]);
const HAS_DURATION = new Set<StudyType>([
  'rct',
  'cohort study',
  'longitudinal / panel data study',
  'non-randomized experimental study',
  'non-rct experimental',
  'field study',
  'animal',
  'case-control study',
  'mixed methods study',
]);
const CONTROLLED = new Set<StudyType>([
  'rct',
  'non-randomized experimental study',
  'non-rct experimental',
  'case-control study',
]);

type Effect = 'pos' | 'null' | 'neg';

function methodsSentence(
  r: Rng,
  st: StudyType,
  t: TopicDef,
  ex: string,
  out: string,
  pop: string,
  n: number | null,
  k: number | null,
  days: number | null,
): string {
  const weeks = days ? Math.max(1, Math.round(days / 7)) : r.int(4, 24);
  const nn = n ?? r.int(20, 400);
  switch (st) {
    case 'rct':
      return `We randomly assigned ${nn} ${pop} to ${ex} or a matched placebo for ${weeks} week${weeks === 1 ? '' : 's'}.`;
    case 'meta-analysis':
      return `We searched MEDLINE, Embase and PsycINFO and pooled ${k ?? 12} studies (${r.int(300, 40000)} participants) using random-effects models.`;
    case 'systematic review':
      return `We systematically searched five databases and narratively synthesised ${k ?? 10} eligible studies on ${ex} and ${out}.`;
    case 'literature review':
      return `We reviewed ${k ?? 30} studies published between ${r.int(1980, 2005)} and ${r.int(2010, 2025)} on ${ex} and ${out}.`;
    case 'cohort study':
      return `We followed ${nn} ${pop} for a median of ${Math.max(2, Math.round(weeks / 52))} years and related ${ex} to ${out}.`;
    case 'case-control study':
      return `We compared ${ex} in ${Math.round(nn / 2)} cases and ${nn - Math.round(nn / 2)} matched controls drawn from ${pop}.`;
    case 'cross-sectional study':
      return `We surveyed ${nn} ${pop} and measured ${ex} and ${out} at a single time point.`;
    case 'longitudinal / panel data study':
      return `We analysed ${r.int(3, 12)} waves of panel data from ${nn} ${pop}.`;
    case 'case report':
      return `We describe one patient from a population of ${pop} whose ${out} changed after ${ex}.`;
    case 'case study':
      return `We examine a single in-depth case of ${ex} in ${pop}.`;
    case 'field study':
      return `We conducted a field study of ${ex} across ${r.int(3, 40)} sites in ${pop}.`;
    case 'interview study':
      return `We conducted semi-structured interviews with ${nn} ${pop} about their experience of ${ex}.`;
    case 'mixed methods study':
      return `We combined a survey of ${nn} ${pop} with follow-up interviews on ${ex} and ${out}.`;
    case 'non-randomized experimental study':
    case 'non-rct experimental':
      return `In a non-randomised design, ${nn} ${pop} received ${ex} and were compared with a concurrent control group over ${weeks} week${weeks === 1 ? '' : 's'}.`;
    case 'non-rct observational study':
      return `Using routinely collected data from ${nn} ${pop}, we examined associations between ${ex} and ${out}.`;
    case 'animal':
      return `Adult rodents (n = ${nn}) were exposed to ${ex} for ${weeks} week${weeks === 1 ? '' : 's'} before ${out} was assessed.`;
    case 'non-rct in vitro':
      return `Cultured cells were exposed to ${ex} and markers of ${out} were quantified in vitro.`;
    case 'bench experiment':
      return `We carried out controlled laboratory experiments on ${pop} to test how ${ex} affects ${out}.`;
    case 'theoretical, modeling, or simulation study':
      return `We developed a computational model linking ${ex} to ${out} through ${r.pick(t.mechanisms)}.`;
    case 'historical or archival analysis':
      return `Drawing on ${r.pick(t.instruments)}, we trace how ${ex} shaped ${out} in ${pop}.`;
    case 'commentary or perspective':
      return `In this perspective we argue that the evidence linking ${ex} to ${out} has been overstated.`;
    case 'other':
      return `An expert panel reviewed the evidence on ${ex} and ${out} and agreed on recommendations by a modified Delphi process.`;
  }
}

function resultSentence(r: Rng, effect: Effect, ex: string, out: string): string {
  const d = (0.15 + r.next() * 0.6).toFixed(2);
  const lo = (Number(d) - 0.1 - r.next() * 0.1).toFixed(2);
  const hi = (Number(d) + 0.1 + r.next() * 0.15).toFixed(2);
  if (effect === 'pos') {
    return r.chance(0.5)
      ? `${cap(ex)} improved ${out} compared with control (standardized mean difference ${d}; 95% CI ${lo} to ${hi}).`
      : `Greater exposure to ${ex} was associated with better ${out} (β = ${d}, p < 0.01).`;
  }
  if (effect === 'neg') {
    return `${cap(ex)} was associated with worse ${out} (odds ratio ${(1 + Number(d)).toFixed(2)}; 95% CI ${(1 + Number(lo) / 2).toFixed(2)} to ${(1 + Number(hi)).toFixed(2)}).`;
  }
  return `${cap(ex)} had no significant effect on ${out} (p = 0.${r.int(12, 89)}).`;
}

function conclusionSentence(effect: Effect, ex: string, out: string, pop: string): string {
  if (effect === 'pos')
    return `These findings suggest that ${ex} may benefit ${out} in ${pop}, although larger studies are needed.`;
  if (effect === 'neg') return `These findings suggest that ${ex} may harm ${out} in ${pop} and warrant caution.`;
  return `These findings do not support a meaningful effect of ${ex} on ${out} in ${pop}.`;
}

function takeawaySentence(effect: Effect, ex: string, out: string, pop: string): string {
  const verb = effect === 'pos' ? 'improves' : effect === 'neg' ? 'worsens' : 'does not significantly affect';
  return `${cap(ex)} ${verb} ${out} in ${pop}.`;
}

function titleFor(r: Rng, st: StudyType, ex: string, out: string, pop: string, guideline: boolean): string {
  if (guideline) return `Clinical practice guideline: ${ex} for ${out} in ${pop}`;
  const phrase = DESIGN[st].phrase;
  switch (r.int(0, 5)) {
    case 0:
      return `Effects of ${ex} on ${out} in ${pop}: ${phrase}`;
    case 1:
      return `${cap(ex)} and ${out}: ${phrase}`;
    case 2:
      return `Does ${ex} improve ${out}? Evidence from ${pop}`;
    case 3:
      return `Association between ${ex} and ${out} among ${pop}`;
    case 4:
      return `${cap(out)} after ${ex} in ${pop}: ${phrase}`;
    default:
      return `The role of ${ex} in ${out}: ${phrase}`;
  }
}

function authorName(r: Rng): string {
  const u = r.next();
  if (u < 0.13) return r.pick(NAMES_NON_LATIN);
  if (u < 0.14) return r.pick(GROUP_AUTHORS);
  return `${r.pick(FIRST_NAMES_LATIN)} ${r.pick(LAST_NAMES_LATIN)}`;
}

function slugify(s: string): string {
  // eslint-disable-next-line no-control-regex
  return (/^[\x00-\x7f]*$/.test(s) ? s : s.normalize('NFKD'))
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
}

// Precomputed lookups (generation must stay fast).
const journalsByDomain = new Map<string, JournalDef[]>();
for (const j of JOURNALS) {
  for (const d of j.domains) {
    const key = `${d}:${j.preprint ? 1 : 0}`;
    const list = journalsByDomain.get(key) ?? [];
    list.push(j);
    journalsByDomain.set(key, list);
  }
}
const journalsByPrimary = new Map<string, JournalDef[]>();
for (const j of JOURNALS) {
  const key = `${j.domains[0]!}:${j.preprint ? 1 : 0}`;
  const list = journalsByPrimary.get(key) ?? [];
  list.push(j);
  journalsByPrimary.set(key, list);
}
const JOURNALS_REGULAR = JOURNALS.filter((j) => !j.preprint);
const JOURNALS_PREPRINT = JOURNALS.filter((j) => j.preprint);
const JOURNALS_TOP_MEDICAL = JOURNALS.filter((j) => j.topMedical);
const PREPRINT_SERVERS = new Set(JOURNALS_PREPRINT.map((j) => j.name));
const JOURNAL_INDEX = new Map(JOURNALS.map((j, i) => [j, i]));
const JOURNAL_SLUG = new Map(JOURNALS.map((j) => [j, slugify(j.name).slice(0, 12)]));
const TOPIC_WEIGHTS = TOPICS.map((t) => [t, t.weight] as const);
const EFFECT_WEIGHTS = [
  ['pos', 5],
  ['null', 3],
  ['neg', 1],
] as const;
const COUNTRY_COUNT_WEIGHTS = [
  [1, 8],
  [2, 2],
  [3, 1],
] as const;
const AUTHOR_COUNT_WEIGHTS = [
  [1, 2],
  [2, 3],
  [3, 4],
  [4, 4],
  [5, 3],
  [6, 3],
  [8, 2],
  [11, 1],
] as const;
const NON_HUMAN_DESIGNS = new Set<StudyType>([
  'non-rct in vitro',
  'bench experiment',
  'theoretical, modeling, or simulation study',
]);
const NO_COUNTRY = new Set<StudyType>(['theoretical, modeling, or simulation study', 'commentary or perspective']);

function generatePaper(r: Rng, index: number, usedIds: Set<string>, odd: Rng | null): Paper {
  const topic = r.weighted(TOPIC_WEIGHTS);
  const primaryDomain = topic.domains[0]!;
  const domains = [primaryDomain];
  for (const d of topic.domains.slice(1)) if (r.chance(0.35)) domains.push(d);

  const ex = r.pick(topic.exposures);
  const out = r.pick(topic.outcomes);
  const pop = r.pick(topic.populations);
  const inst = r.pick(topic.instruments);
  const mech = r.pick(topic.mechanisms);

  const guideline = primaryDomain === 'med' && r.chance(0.025);
  let studyType: StudyType = guideline
    ? r.chance(0.5)
      ? 'other'
      : 'systematic review'
    : r.weighted(DESIGN_WEIGHTS[topic.family]);
  if (topic.noLab && (studyType === 'animal' || studyType === 'non-rct in vitro' || studyType === 'bench experiment'))
    studyType = 'non-rct experimental';

  // Journal: preprint server or a journal of one of the paper's domains.
  const preprint = !guideline && r.chance(0.05);
  const jd = `${r.pick(domains)}:${preprint ? 1 : 0}`;
  const pool =
    (r.chance(0.7) ? journalsByPrimary.get(jd) : undefined) ??
    journalsByDomain.get(jd) ??
    (preprint ? JOURNALS_PREPRINT : JOURNALS_REGULAR);
  const journal = guideline ? r.pick(JOURNALS_TOP_MEDICAL) : r.pick(pool);

  // Dates: skewed towards recent years; not after October 2026.
  const year = Math.max(1970, 2026 - Math.floor(-Math.log(1 - r.next()) * 7));
  const hasDate = r.chance(0.86);
  const month = hasDate ? r.int(1, year === 2026 ? 10 : 12) : null;
  const publishDate =
    month !== null ? `${year}-${String(month).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}` : null;

  const effect: Effect = r.weighted(EFFECT_WEIGHTS);

  if (studyType === 'animal' && topic.population !== 'human' && r.chance(0.5)) studyType = 'field study';
  let populationType: Paper['populationType'];
  if (studyType === 'animal') populationType = 'animal';
  else if (NON_HUMAN_DESIGNS.has(studyType)) populationType = 'other';
  else if (topic.population === 'human') populationType = 'human';
  else populationType = topic.family === 'humanities' ? null : 'other';
  if (r.chance(0.06)) populationType = null;

  const studyCount = REVIEW_TYPES.has(studyType) ? r.int(4, 140) : null;
  const sampleSize =
    !NO_SAMPLE.has(studyType) && r.chance(0.85) ? (studyType === 'case report' ? 1 : r.logInt(8, 60000)) : null;
  const durationDays = HAS_DURATION.has(studyType) && r.chance(0.8) ? r.logInt(7, 3650) : null;
  const controlled =
    CONTROLLED.has(studyType) || ((studyType === 'animal' || studyType === 'bench experiment') && r.chance(0.6));

  let countries: string[] | null = null;
  if (!NO_COUNTRY.has(studyType) && r.chance(0.8)) {
    const n = REVIEW_TYPES.has(studyType) ? r.int(2, 8) : r.weighted(COUNTRY_COUNT_WEIGHTS);
    const set = new Set<string>();
    for (let i = 0; i < n; i++) set.add(r.weighted(STUDY_COUNTRIES));
    countries = [...set];
  }

  const nAuthors = r.chance(0.04) ? r.int(15, 40) : r.weighted(AUTHOR_COUNT_WEIGHTS);
  const authors: string[] = [];
  for (let i = 0; i < nAuthors; i++) authors.push(authorName(r));
  const oddAuthors = odd ? widenAuthors(odd, authors) : authors;
  const institutions = r.chance(0.85)
    ? [...new Set(Array.from({ length: r.int(1, 4) }, () => r.pick(INSTITUTIONS)))]
    : null;

  let title = titleFor(r, studyType, ex, out, pop, guideline);
  if (r.chance(0.16)) title = r.pick(TITLE_DECORATIONS)(title);
  if (odd) title = widenTitle(odd, title);

  const n = sampleSize;
  const methods = methodsSentence(r, studyType, topic, ex, out, pop, n, studyCount, durationDays);
  const result = resultSentence(r, effect, ex, out);
  const out2 = r.pick(topic.outcomes);
  const secondary =
    out2 !== out
      ? `Effects on ${out2} were ${r.pick(['smaller', 'similar', 'inconsistent', 'larger'])} and depended on baseline status.`
      : `Effects were ${r.pick(['larger', 'smaller'])} in participants with lower baseline ${out}.`;
  const abstractSentences = [
    `${cap(ex)} has been proposed to influence ${out}, possibly through ${mech}.`,
    `This ${DESIGN[studyType].noun} examined whether ${ex} affects ${out} in ${pop}.`,
    methods,
    result,
    secondary,
    conclusionSentence(effect, ex, out, pop),
  ];
  const abstract = abstractSentences.join(' ');
  const takeaway = takeawaySentence(effect, ex, out, pop);

  const openAccess = preprint || r.chance(journal.topMedical ? 0.35 : 0.45);
  const hasFullText = openAccess || r.chance(0.3);
  const pop2 = r.pick(topic.populations);
  const fullText: Section[] | null = hasFullText
    ? [
        {
          heading: 'Introduction',
          sentences: [
            `Interest in ${ex} has grown over the past decade.`,
            `One proposed mechanism is ${mech}, which could link ${ex} to ${out}.`,
            `Previous studies of ${ex} reported inconsistent effects on ${out}, partly because of small samples.`,
            `We therefore studied ${pop} using the ${inst}.`,
          ],
        },
        {
          heading: 'Methods',
          sentences: [
            methods,
            `${cap(out)} was measured with the ${inst}.`,
            r.chance(0.5)
              ? `Analyses were pre-registered and adjusted for age, sex and baseline ${out}.`
              : `All analyses used mixed-effects models with site as a random effect.`,
          ],
        },
        {
          heading: 'Results',
          sentences: [
            result,
            secondary,
            `Measurements from the ${inst} showed the same pattern.`,
            `Sensitivity analyses excluding outliers gave similar estimates.`,
          ],
        },
        {
          heading: 'Discussion',
          sentences: [
            `Our results are consistent with a role for ${mech} in ${out}.`,
            `The main limitations are the ${r.pick(['short follow-up', 'modest sample size', 'self-reported measures', 'single-site design', 'risk of residual confounding'])} and the focus on ${pop}.`,
            `Future work should test ${ex} in ${pop2}.`,
            conclusionSentence(effect, ex, out, pop),
          ],
        },
      ]
    : null;

  let id = r.hex(32);
  while (usedIds.has(id)) id = r.hex(32);
  usedIds.add(id);

  const age = Math.max(0, 2026 - year);
  const citationCount = Math.max(0, Math.floor(Math.exp(0.8 + Math.min(age, 25) * 0.14 + (r.next() - 0.3) * 3)) - 1);
  const influential = r.chance(0.93) ? Math.floor(citationCount * (0.03 + r.next() * 0.1)) : null;
  const omitVolumePages = preprint || r.chance(0.025);
  const volume = omitVolumePages ? undefined : String(r.int(1, 180));
  const firstPage = r.int(1, 2400);
  const pages = omitVolumePages
    ? undefined
    : r.chance(0.15)
      ? `e${r.int(1000, 99999)}`
      : `${firstPage}-${firstPage + r.int(3, 25)}`;

  return {
    index,
    id,
    title,
    abstractSentences,
    abstract,
    authors: oddAuthors,
    doi: `10.${1000 + (((JOURNAL_INDEX.get(journal) ?? 0) * 37) % 9000)}/${JOURNAL_SLUG.get(journal) ?? 'journal'}.${year}.${String(index).padStart(5, '0')}`,
    journal: journal.name,
    publisher: journal.publisher,
    volume,
    pages,
    year,
    month,
    publishDate,
    url: `https://consensus.app/papers/${slugify(title) || 'paper'}/${id}/`,
    citationCount,
    influentialCitationCount: influential,
    studyType: r.chance(0.04) ? null : studyType,
    takeaway: r.chance(0.03) ? null : takeaway,
    sjrQuartile: journal.quartile,
    sampleSize,
    studyCount,
    populationType,
    isPreprint: r.chance(0.03) ? null : preprint,
    countries,
    durationDays,
    institutions,
    openAccess,
    retracted: r.chance(0.015),
    controlled,
    clinicalGuideline: guideline,
    topMedical: !!journal.topMedical,
    domains,
    topic: topic.key,
    effect,
    exposure: ex,
    outcome: out,
    fullText,
  };
}

// ---------------------------------------------------------------- odd names, titles, identifiers

/**
 * Title Case as some journals publish it: every word capitalised except small words inside the
 * title; words with a capital already (mRNA, pH, DNA), digits, markup or a non-Latin first
 * letter (β-alanine) are left alone, so only case changes.
 */
export function titleCase(title: string): string {
  const words = title.split(' ');
  let first = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const capitalise = first || !TITLE_CASE_SMALL_WORDS.has(w);
    // The next word starts a sentence or subtitle after ':', '?', '.', '!', '—' or '|'.
    first = ENDS_CLAUSE.test(w);
    if (capitalise && LOWER_WORD.test(w)) words[i] = w.replace(WORD_START, (c) => c.toUpperCase());
  }
  return words.join(' ');
}
const ENDS_CLAUSE = /[:?.!—|]$/;
const LOWER_WORD = /^[a-z][a-z'’-]*[,:;?.!]?$/;
const WORD_START = /(?<=^|-)[a-z]/g;

/** Person-name forms with their weights: scripts and particles more often, as there are more of them. */
const NAME_FORM_WEIGHTS: readonly (readonly [OddNameForm, number])[] = (
  Object.keys(ODD_PERSON_NAMES) as OddNameForm[]
).map(
  (f) =>
    [
      f,
      f === 'beyondLatin1' ? 6 : f === 'particles' ? 4 : f === 'vietnamese' || f === 'particlesOther' ? 2 : 1,
    ] as const,
);
/** Latin names with accents: their decomposed (NFD) form is a form of its own. */
const NFD_SOURCES = [...ODD_PERSON_NAMES.vietnamese, ...ODD_PERSON_NAMES.beyondLatin1, 'José Muñoz', 'Zoë Brontë'];
/** Share of papers the second stream makes odd (names, title, identifiers); the others keep every value. */
const ODD_SHARE = 0.45;
const SAME_TITLE_EXAMPLE = 'Creatine supplementation and sleep deprivation: effects on cognitive performance';

/** State of the second stream across papers (only ever looks back, so a smaller corpus is a prefix of a larger one). */
interface OddState {
  r: Rng;
  /** Papers already in a same-title group. */
  twinned: Set<number>;
  /** Earlier creatine papers in European Journal of Nutrition / Sleep by year (the worked example). */
  example: Map<string, Paper>;
  exampleDone: boolean;
}

function retitle(p: Paper, title: string): void {
  p.title = title;
  p.url = `https://consensus.app/papers/${slugify(title) || 'paper'}/${p.id}/`;
}

/** Odd author names from the second stream: other scripts and forms, NFD, corporate authors. */
function widenAuthors(r: Rng, authors: string[]): string[] {
  if (r.chance(0.78)) {
    const k = r.chance(0.3) ? 2 : 1;
    for (let i = 0; i < k; i++)
      authors[r.int(0, authors.length - 1)] = r.pick(ODD_PERSON_NAMES[r.weighted(NAME_FORM_WEIGHTS)]);
  }
  if (r.chance(0.018)) authors[r.int(0, authors.length - 1)] = r.pick(NFD_SOURCES).normalize('NFD');
  if (r.chance(0.18)) {
    const group = r.pick(CORPORATE_AUTHORS);
    if (r.chance(0.3)) return [group];
    authors[authors.length - 1] = group;
  }
  return authors;
}

/** Odd title forms from the second stream, and Title Case for a share of titles. */
function widenTitle(r: Rng, title: string): string {
  let t = title;
  if (r.chance(0.8)) t = r.pick(ODD_TITLE_FORMS)(t);
  if (r.chance(0.13)) t = r.pick(ODD_TITLE_FORMS)(t);
  if (r.chance(0.155)) t = titleCase(t);
  return t;
}

/**
 * Identifiers, venue and same-title twins from the second stream, once the paper is complete:
 * DOIs with reserved characters or none, an empty journal name, and a later paper that takes
 * the title of an earlier one (same topic, year and exposure, another journal). Every required
 * field keeps its type.
 */
function widenPaper(o: OddState, p: Paper, papers: readonly Paper[], odd: boolean): void {
  const r = o.r;
  const u = odd ? r.next() : 1;
  if (u < 0.067) p.doi = '';
  else if (u < 0.178) {
    const serial = String(p.index).padStart(5, '0');
    if (u < 0.1)
      p.doi = `10.1002/(SICI)1097-4636(${p.year}${String(p.month ?? 1).padStart(2, '0')})${p.volume ?? '1'}:${r.int(1, 12)}<${r.int(1, 999)}::AID-JBM${serial}>3.0.CO;2-${r.pick(['1', '7', 'A', 'K', 'X'])}`;
    else if (u < 0.133) p.doi = `10.1016/S0140-6736(${String(p.year % 100).padStart(2, '0')})${serial}-${r.int(0, 9)}`;
    else if (u < 0.155) p.doi = `10.5962/bhl.title.${serial}#page/${r.int(1, 400)}/mode/1up`;
    // A percent sign as an escape (%2F) or bare ("100%"): both are legal in a DOI name.
    else
      p.doi = r.chance(0.5)
        ? `10.13140/RG.2.2.${serial}%2F${r.int(10, 99)}`
        : `10.4324/${serial}-100%-${r.int(10, 99)}`;
  }

  // A few papers with an empty journal name (never a top medical journal, a guideline or a preprint).
  if (odd && r.chance(0.013) && !p.topMedical && !p.clinicalGuideline && !PREPRINT_SERVERS.has(p.journal)) {
    p.journal = '';
    p.sjrQuartile = null;
  }

  // The worked example: two creatine papers of one year, in European Journal of Nutrition and in Sleep, same title.
  if (
    p.topic === 'creatine' &&
    !o.exampleDone &&
    (p.journal === 'European Journal of Nutrition' || p.journal === 'Sleep')
  ) {
    const other = o.example.get(`${p.year}:${p.journal === 'Sleep' ? 'European Journal of Nutrition' : 'Sleep'}`);
    if (other && !o.twinned.has(other.index)) {
      retitle(other, SAME_TITLE_EXAMPLE);
      retitle(p, SAME_TITLE_EXAMPLE);
      o.twinned.add(other.index).add(p.index);
      o.exampleDone = true;
      return;
    }
    o.example.set(`${p.year}:${p.journal}`, p);
  }

  // Same-title twins: a later paper takes the title (exactly, in other capitals, or its start)
  // of an earlier one with the same year and exposure (so the same topic) in another journal.
  if (!odd || !r.chance(0.013)) return;
  const mode = r.int(0, 3);
  let partner: Paper | undefined;
  for (let j = 0; j < papers.length && !partner; j++) {
    const q = papers[j]!;
    if (
      q.year === p.year &&
      q.exposure === p.exposure &&
      q.journal !== p.journal &&
      q.journal !== '' &&
      !o.twinned.has(q.index)
    )
      partner = q;
  }
  if (!partner || p.journal === '') return;
  const colon = partner.title.indexOf(': ');
  let title = partner.title;
  if (mode === 2)
    title = titleCase(partner.title); // the same title but for capitals (unless it is Title Case already)
  else if (mode === 3 && colon > 0) {
    const own = p.studyType ? DESIGN[p.studyType].phrase : 'a replication';
    title = `${partner.title.slice(0, colon)}: ${partner.title.endsWith(own) ? `${own} — a replication` : own}`;
  }
  retitle(p, title);
  o.twinned.add(partner.index).add(p.index);
}

export const DEFAULT_SEED = 20260207;
const cache = new Map<string, Paper[]>();

/** The corpus for (size, seed); generated once per process and cached. */
export function getCorpus(size = 5000, seed = DEFAULT_SEED): Paper[] {
  const k = `${size}:${seed}`;
  const hit = cache.get(k);
  if (hit) return hit;
  const papers = generateCorpus(size, seed);
  cache.set(k, papers);
  return papers;
}

/**
 * Generate without the cache (same seed → same papers). `widen: false` leaves out the odd names,
 * titles, identifiers and same-title twins of the second stream (tests compare the two).
 */
export function generateCorpus(size = 5000, seed = DEFAULT_SEED, options: { widen?: boolean } = {}): Paper[] {
  const r = new Rng(mulberry32(seed));
  // The oddities come from a second, independent stream, so the main stream (and every value it
  // draws) is the same as without them.
  const odd: OddState | null =
    options.widen === false
      ? null
      : {
          r: new Rng(mulberry32((seed ^ 0x0dd5eed5) >>> 0)),
          twinned: new Set(),
          example: new Map(),
          exampleDone: false,
        };
  const used = new Set<string>();
  const papers: Paper[] = [];
  for (let i = 0; i < size; i++) {
    // A share of papers is odd; the rest stay exactly as the main stream made them.
    const isOdd = odd !== null && odd.r.chance(ODD_SHARE);
    const p = generatePaper(r, i, used, isOdd ? odd.r : null);
    if (odd) widenPaper(odd, p, papers, isOdd);
    papers.push(p);
  }
  return papers;
}

export { mulberry32 as prng, Rng };
