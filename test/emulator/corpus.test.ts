// The generated corpus: deterministic, and every field and filter has realistic, varied values.
import { strict as assert } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';
import { generateCorpus, getCorpus, titleCase } from './corpus';
import { corpusForms, isTitleCase, sameTitleGroups } from './coverage';
import { DOMAINS, STUDY_TYPES, parseStudyTypes, tokenize } from './index';

describe('emulator: corpus', function () {
  this.timeout(30_000);
  const corpus = getCorpus(5000);
  const share = (pred: (p: (typeof corpus)[number]) => boolean): number => corpus.filter(pred).length / corpus.length;
  const within = (x: number, lo: number, hi: number, what: string): void =>
    assert.ok(x >= lo && x <= hi, `${what}: ${x.toFixed(3)}`);

  it('is deterministic and has 5,000 papers with unique ids', () => {
    assert.equal(corpus.length, 5000);
    assert.equal(new Set(corpus.map((p) => p.id)).size, 5000);
    const again = generateCorpus(300, 12345);
    const other = generateCorpus(300, 12345 + 1);
    assert.deepEqual(generateCorpus(300, 12345), again, 'same seed, same corpus');
    assert.equal(getCorpus(300, 12345), getCorpus(300, 12345), 'cached per process');
    assert.notDeepEqual(
      other.map((p) => p.title),
      again.map((p) => p.title),
    );
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
    within(
      share((p) => p.openAccess),
      0.35,
      0.6,
      'open access',
    );
    within(
      share((p) => p.isPreprint === true),
      0.02,
      0.1,
      'preprints',
    );
    within(
      share((p) => p.isPreprint === null),
      0.005,
      0.06,
      'unknown preprint status',
    );
    within(
      share((p) => p.retracted),
      0.005,
      0.04,
      'retracted',
    );
    within(
      share((p) => p.clinicalGuideline),
      0.003,
      0.03,
      'clinical guidelines',
    );
    within(
      share((p) => p.topMedical),
      0.05,
      0.3,
      'top medical journals',
    );
    within(
      share((p) => p.volume === undefined || p.pages === undefined),
      0.02,
      0.12,
      'missing volume/pages',
    );
    within(
      share((p) => p.publishDate === null),
      0.05,
      0.25,
      'year only',
    );
    within(
      share((p) => p.sampleSize !== null),
      0.3,
      0.8,
      'sample sizes',
    );
    within(
      share((p) => p.studyCount !== null),
      0.05,
      0.3,
      'study counts',
    );
    within(
      share((p) => p.durationDays !== null),
      0.1,
      0.6,
      'durations',
    );
    within(
      share((p) => p.countries !== null),
      0.4,
      0.95,
      'countries',
    );
    within(
      share((p) => p.institutions === null),
      0.05,
      0.3,
      'no institutions',
    );
    within(
      share((p) => p.fullText !== null),
      0.45,
      0.8,
      'full text',
    );
    assert.ok(
      corpus.every((p) => !p.openAccess || p.fullText !== null),
      'open-access papers have full text',
    );
    assert.ok(new Set(corpus.flatMap((p) => p.countries ?? [])).size >= 40, 'many countries');
    assert.ok(new Set(corpus.map((p) => p.publisher)).size >= 20, 'about twenty publishers');
    assert.ok(new Set(corpus.map((p) => p.year)).size >= 30, 'many years');
    assert.ok(new Set(corpus.map((p) => p.month)).size === 13, 'all months and unknown');
  });

  it('has papers with reviews carrying study counts and empirical designs carrying sample sizes', () => {
    for (const p of corpus) {
      if (p.studyCount !== null)
        assert.ok(['meta-analysis', 'systematic review', 'literature review', null].includes(p.studyType));
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
    for (const needle of ['Sandkühler', 'Müller', 'Ñúñez', 'Øster', 'Łukasz'])
      assert.ok(
        authors.some((a) => a.includes(needle)),
        needle,
      );
    for (const script of [
      /\p{Script=Han}/u,
      /\p{Script=Cyrillic}/u,
      /\p{Script=Arabic}/u,
      /\p{Script=Hiragana}|\p{Script=Katakana}|田中/u,
      /\p{Script=Greek}/u,
    ]) {
      assert.ok(
        authors.some((a) => script.test(a)),
        String(script),
      );
    }
    for (const ch of ['&', '%', '$', '#', '_', '{', '}', '~', '^', '\\', '*', '[', ']', '<', '>', '`']) {
      assert.ok(
        corpus.some((p) => p.title.includes(ch)),
        `a title contains ${ch}`,
      );
    }
    const hostile = share((p) => /[&%$#_{}~^\\*[\]<>`]/.test(p.title));
    assert.ok(hostile > 0.08, `a meaningful share of hostile titles (${hostile})`);
  });

  it('has every odd form of names, titles and identifiers many times', () => {
    for (const f of corpusForms(corpus)) {
      const n = corpus.filter(f.test).length;
      const min = f.name.startsWith('same title') || f.name === 'venue: empty journal name' ? 2 : 5;
      assert.ok(n >= min, `${f.name}: ${n} papers`);
    }
    // "A few" papers have no journal name; about 3% no DOI.
    within(
      share((p) => p.journal === ''),
      0.001,
      0.01,
      'empty journal',
    );
    within(
      share((p) => p.doi === ''),
      0.01,
      0.06,
      'empty DOI',
    );
  });

  it('keeps every required field of the spec with its type, and DOIs unique where present', () => {
    for (const p of corpus) {
      assert.ok(typeof p.title === 'string' && p.title.trim() !== '', `title of ${p.index}`);
      assert.ok(
        Array.isArray(p.authors) &&
          p.authors.length > 0 &&
          p.authors.every((a) => typeof a === 'string' && a.trim() !== ''),
        `authors of ${p.index}`,
      );
      assert.equal(typeof p.doi, 'string');
      assert.equal(typeof p.journal, 'string');
      assert.ok(Number.isInteger(p.year) && Number.isInteger(p.citationCount));
      assert.ok(p.url.startsWith('https://consensus.app/papers/') && p.url.endsWith(`/${p.id}/`));
      if (p.journal === '')
        assert.ok(!p.topMedical && !p.clinicalGuideline && p.sjrQuartile === null, `empty journal ${p.index}`);
    }
    const dois = corpus.map((p) => p.doi).filter((d) => d !== '');
    assert.equal(new Set(dois).size, dois.length);
  });

  it('makes a share of papers odd from a second stream and leaves the rest, and every other field, as the main stream made them', () => {
    const plain = generateCorpus(5000, undefined, { widen: false });
    const oddFields = new Set(['title', 'url', 'authors', 'doi', 'journal', 'sjrQuartile']);
    let untouched = 0;
    for (let i = 0; i < corpus.length; i++) {
      const a = plain[i]! as unknown as Record<string, unknown>;
      const b = corpus[i]! as unknown as Record<string, unknown>;
      const changed = Object.keys(a).filter((k) => !isDeepStrictEqual(a[k], b[k]));
      for (const k of changed) assert.ok(oddFields.has(k), `paper ${i}: ${k} changed`);
      if (changed.length === 0) untouched++;
    }
    within(untouched / corpus.length, 0.5, 0.65, 'papers left exactly as before');
  });

  it('has papers of one year in different journals with the same title, the same title in other capitals, and the same start', () => {
    const groups = sameTitleGroups(corpus);
    assert.ok(
      groups.exact.length >= 3 && groups.caseOnly.length >= 1 && groups.sameStart.length >= 3,
      JSON.stringify([groups.exact.length, groups.caseOnly.length, groups.sameStart.length]),
    );
    for (const g of [...groups.exact, ...groups.caseOnly, ...groups.sameStart]) {
      assert.equal(new Set(g.map((p) => p.year)).size, 1);
      assert.ok(new Set(g.map((p) => p.journal)).size > 1);
      assert.equal(new Set(g.map((p) => p.id)).size, g.length);
    }
    const example = corpus.filter(
      (p) => p.title === 'Creatine supplementation and sleep deprivation: effects on cognitive performance',
    );
    assert.deepEqual(example.map((p) => p.journal).sort(), ['European Journal of Nutrition', 'Sleep']);
    assert.equal(example[0]!.year, example[1]!.year);
  });

  it('writes Title Case as journals do, changing only capitals', () => {
    const t = 'Effects of creatine on mRNA in sleep-deprived adults: a role for β-alanine at low pH in the Sahel';
    assert.equal(
      titleCase(t),
      'Effects of Creatine on mRNA in Sleep-Deprived Adults: A Role for β-alanine at Low pH in the Sahel',
    );
    assert.ok(isTitleCase(titleCase(t)) && !isTitleCase(t));
    for (const p of corpus.slice(0, 500)) assert.equal(titleCase(p.title).toLowerCase(), p.title.toLowerCase());
  });

  it('parses comma-separated study types including the value that contains commas', () => {
    assert.deepEqual(parseStudyTypes('rct,theoretical, modeling, or simulation study,animal'), {
      values: ['rct', 'theoretical, modeling, or simulation study', 'animal'],
      unknown: [],
    });
    assert.deepEqual(parseStudyTypes('theoretical,modeling,or simulation study'), {
      values: ['theoretical, modeling, or simulation study'],
      unknown: [],
    });
    assert.deepEqual(parseStudyTypes('theoretical, rct'), { values: ['rct'], unknown: ['theoretical'] });
    assert.deepEqual(parseStudyTypes('Longitudinal / Panel Data Study'), {
      values: ['longitudinal / panel data study'],
      unknown: [],
    });
  });

  it('tokenizes Unicode and ASCII alike', () => {
    assert.deepEqual(tokenize('Sleep-deprivation & the Müller studies'), ['sleep', 'deprivation', 'müller', 'study']);
    assert.deepEqual(tokenize('CO_2 and NO_x'), ['co', '2']);
    assert.deepEqual(tokenize('李伟 Иванов'), ['李伟', 'иванов']);
  });
});
