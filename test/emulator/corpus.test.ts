// The generated corpus: deterministic, and every field and filter has realistic, varied values.
import { strict as assert } from 'node:assert';
import { generateCorpus, getCorpus } from './corpus';
import { DOMAINS, STUDY_TYPES, parseStudyTypes, tokenize } from './index';

describe('emulator: corpus', function () {
  this.timeout(30_000);
  const corpus = getCorpus(5000);
  const share = (pred: (p: (typeof corpus)[number]) => boolean): number => corpus.filter(pred).length / corpus.length;

  it('is deterministic and has 5,000 papers with unique ids', () => {
    assert.equal(corpus.length, 5000);
    assert.equal(new Set(corpus.map((p) => p.id)).size, 5000);
    const again = generateCorpus(300, 12345);
    const other = generateCorpus(300, 12345 + 1);
    assert.deepEqual(generateCorpus(300, 12345), again, 'same seed, same corpus');
    assert.equal(getCorpus(300, 12345), getCorpus(300, 12345), 'cached per process');
    assert.notDeepEqual(other.map((p) => p.title), again.map((p) => p.title));
    assert.ok(corpus.every((p) => /^[0-9a-f]{32}$/.test(p.id) && p.url.endsWith(`/${p.id}/`)));
  });

  it('covers every study type, domain, quartile and population type', () => {
    const types = new Set(corpus.map((p) => p.studyType));
    for (const t of STUDY_TYPES) assert.ok(types.has(t), t);
    assert.ok(types.has(null));
    const domains = new Set(corpus.flatMap((p) => p.domains));
    for (const d of DOMAINS) assert.ok(domains.has(d), d);
    assert.deepEqual(new Set(corpus.map((p) => p.sjrQuartile)), new Set([1, 2, 3, 4, null]));
    assert.deepEqual(new Set(corpus.map((p) => p.populationType)), new Set(['human', 'animal', 'other', null]));
  });

  it('has realistic shares of flags and optional values', () => {
    const within = (x: number, lo: number, hi: number, what: string): void => assert.ok(x >= lo && x <= hi, `${what}: ${x.toFixed(3)}`);
    within(share((p) => p.openAccess), 0.35, 0.6, 'open access');
    within(share((p) => p.isPreprint === true), 0.02, 0.1, 'preprints');
    within(share((p) => p.isPreprint === null), 0.005, 0.06, 'unknown preprint status');
    within(share((p) => p.retracted), 0.005, 0.04, 'retracted');
    within(share((p) => p.clinicalGuideline), 0.003, 0.03, 'clinical guidelines');
    within(share((p) => p.topMedical), 0.05, 0.3, 'top medical journals');
    within(share((p) => p.volume === undefined || p.pages === undefined), 0.02, 0.12, 'missing volume/pages');
    within(share((p) => p.publishDate === null), 0.05, 0.25, 'year only');
    within(share((p) => p.sampleSize !== null), 0.3, 0.8, 'sample sizes');
    within(share((p) => p.studyCount !== null), 0.05, 0.3, 'study counts');
    within(share((p) => p.durationDays !== null), 0.1, 0.6, 'durations');
    within(share((p) => p.countries !== null), 0.4, 0.95, 'countries');
    within(share((p) => p.institutions === null), 0.05, 0.3, 'no institutions');
    within(share((p) => p.fullText !== null), 0.45, 0.8, 'full text');
    assert.ok(corpus.every((p) => !p.openAccess || p.fullText !== null), 'open-access papers have full text');
    assert.ok(new Set(corpus.flatMap((p) => p.countries ?? [])).size >= 40, 'many countries');
    assert.ok(new Set(corpus.map((p) => p.publisher)).size >= 20, 'about twenty publishers');
    assert.ok(new Set(corpus.map((p) => p.year)).size >= 30, 'many years');
    assert.ok(new Set(corpus.map((p) => p.month)).size === 13, 'all months and unknown');
  });

  it('has papers with reviews carrying study counts and empirical designs carrying sample sizes', () => {
    for (const p of corpus) {
      if (p.studyCount !== null) assert.ok(['meta-analysis', 'systematic review', 'literature review', null].includes(p.studyType));
      if (p.publishDate !== null) {
        assert.match(p.publishDate, /^\d{4}-\d{2}-\d{2}$/);
        assert.equal(Number(p.publishDate.slice(0, 4)), p.year);
        assert.equal(Number(p.publishDate.slice(5, 7)), p.month);
      }
      assert.ok(p.citationCount >= 0 && (p.influentialCitationCount ?? 0) <= p.citationCount);
      assert.ok(p.abstractSentences.join(' ') === p.abstract);
    }
  });

  it('has author names with diacritics and non-Latin scripts, and titles hostile to BibTeX/LaTeX/Markdown', () => {
    const authors = corpus.flatMap((p) => p.authors);
    for (const needle of ['Sandkühler', 'Müller', 'Ñúñez', 'Øster', 'Łukasz']) assert.ok(authors.some((a) => a.includes(needle)), needle);
    for (const script of [/\p{Script=Han}/u, /\p{Script=Cyrillic}/u, /\p{Script=Arabic}/u, /\p{Script=Hiragana}|\p{Script=Katakana}|田中/u, /\p{Script=Greek}/u]) {
      assert.ok(authors.some((a) => script.test(a)), String(script));
    }
    for (const ch of ['&', '%', '$', '#', '_', '{', '}', '~', '^', '\\', '*', '[', ']', '<', '>', '`']) {
      assert.ok(corpus.some((p) => p.title.includes(ch)), `a title contains ${ch}`);
    }
    const hostile = share((p) => /[&%$#_{}~^\\*[\]<>`]/.test(p.title));
    assert.ok(hostile > 0.08, `a meaningful share of hostile titles (${hostile})`);
  });

  it('parses comma-separated study types including the value that contains commas', () => {
    assert.deepEqual(parseStudyTypes('rct,theoretical, modeling, or simulation study,animal'), {
      values: ['rct', 'theoretical, modeling, or simulation study', 'animal'], unknown: [],
    });
    assert.deepEqual(parseStudyTypes('theoretical,modeling,or simulation study'), { values: ['theoretical, modeling, or simulation study'], unknown: [] });
    assert.deepEqual(parseStudyTypes('theoretical, rct'), { values: ['rct'], unknown: ['theoretical'] });
    assert.deepEqual(parseStudyTypes('Longitudinal / Panel Data Study'), { values: ['longitudinal / panel data study'], unknown: [] });
  });

  it('tokenizes Unicode and ASCII alike', () => {
    assert.deepEqual(tokenize('Sleep-deprivation & the Müller studies'), ['sleep', 'deprivation', 'müller', 'study']);
    assert.deepEqual(tokenize('CO_2 and NO_x'), ['co', '2']);
    assert.deepEqual(tokenize('李伟 Иванов'), ['李伟', 'иванов']);
  });
});
