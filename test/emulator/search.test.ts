// GET /v1/search and /v1/quick_search against a real emulator over HTTP.
import { strict as assert } from 'node:assert';
import { DEMO_KEYS, matchesFilters, startEmulator, type Filters, type Paper, type RunningEmulator } from './index';
import { call, locFields, paperIdOf, qs, type SearchBody } from './testHelpers';

describe('emulator: search', function () {
  let emu: RunningEmulator;
  let corpus: readonly Paper[];
  const byId = (id: string): Paper => {
    const p = emu.control.paper(id);
    assert.ok(p, `paper ${id} exists`);
    return p;
  };
  const search = (params: Record<string, string | number | boolean | undefined>, key: string = DEMO_KEYS.pro) =>
    call<SearchBody>(emu.url, `/v1/search?${qs(params)}`, { key });

  async function allResults(params: Record<string, string | number | boolean>): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 0; page < 5; page++) {
      const r = await search({ ...params, page, page_size: 200 });
      assert.equal(r.status, 200);
      ids.push(...r.body.results.map((x) => paperIdOf(x.url)));
      if (r.body.is_end) return ids;
    }
    throw new Error('more than 1,000 results');
  }

  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, now: '2026-11-15T12:00:00Z' });
    corpus = emu.control.corpus();
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());

  it('returns ranked, relevant papers with every required field', async () => {
    const r = await search({ query: 'creatine cognition' });
    assert.equal(r.status, 200);
    assert.equal(r.body.page, 0);
    assert.equal(r.body.page_size, 20);
    assert.equal(r.body.results.length, 20);
    for (const p of r.body.results) {
      for (const f of ['title', 'abstract', 'authors', 'doi', 'journal_name', 'publish_year', 'url', 'citation_count'])
        assert.ok(f in p, `field ${f}`);
      assert.match(String(p.title).toLowerCase(), /creatine/);
    }
    const top = byId(paperIdOf(r.body.results[0]!.url));
    assert.equal(top.topic, 'creatine');
  });

  it('ranks on full text too, and returns no zero-score papers', async () => {
    // Instruments appear only in the Methods/Results sections of the full text.
    const r = await search({ query: 'polysomnography', page_size: 100 });
    assert.equal(r.status, 200);
    assert.ok(r.body.results.length > 0);
    for (const res of r.body.results) {
      const p = byId(paperIdOf(res.url));
      const text = [p.title, p.abstract, ...(p.fullText ?? []).flatMap((s) => s.sentences)].join(' ').toLowerCase();
      assert.ok(text.includes('polysomnography'));
    }
    const none = await search({ query: 'zyxqv qqqwerty' });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.results, []);
    assert.equal(none.body.is_end, true);
    assert.equal(none.body.next_page, null);
  });

  it('paginates with is_end / next_page and never beyond 1,000 results', async () => {
    const p0 = await search({ query: 'memory', page_size: 50 });
    const p1 = await search({ query: 'memory', page_size: 50, page: 1 });
    assert.equal(p0.body.next_page, 1);
    assert.equal(p0.body.is_end, false);
    const ids0 = new Set(p0.body.results.map((x) => x.url));
    assert.ok(
      p1.body.results.every((x) => !ids0.has(x.url)),
      'pages do not overlap',
    );
    const last = await search({ query: 'effects', page: 3, page_size: 250 });
    assert.equal(last.status, 200);
    assert.equal(last.body.is_end, true);
    assert.equal(last.body.next_page, null);
    // A query with few hits ends on the first page.
    const few = await search({ query: 'polysomnography Stroop', page_size: 300 });
    assert.equal(few.body.is_end, few.body.results.length < 300 || few.body.next_page === null);
  });

  it('caps page_size per plan and returns the applied size', async () => {
    const cases: [string, number][] = [
      [DEMO_KEYS.free, 10],
      [DEMO_KEYS.pro, 300],
      [DEMO_KEYS.teams, 300],
      [DEMO_KEYS.enterprise, 500],
      [DEMO_KEYS.deep, 750],
    ];
    for (const [key, max] of cases) {
      const r = await search({ query: 'effects', page_size: 1000 }, key);
      assert.equal(r.status, 200);
      assert.equal(r.body.page_size, max);
      assert.equal(r.body.results.length, max);
    }
    const custom = emu.control.provisionKey({ plan: 'enterprise', maxPageSize: 40 });
    assert.equal((await search({ query: 'effects', page_size: 100 }, custom)).body.page_size, 40);
  });

  it('charges one call per 100 papers returned, rounded up, minimum 1', async () => {
    const k = emu.control.provisionKey({ plan: 'deep', label: 'charging' });
    const cases: [number, number][] = [
      [1, 1],
      [100, 1],
      [101, 2],
      [150, 2],
      [300, 3],
      [750, 8],
    ];
    let expected = 0;
    for (const [size, calls] of cases) {
      const r = await search({ query: 'effects', page_size: size }, k);
      assert.equal(r.body.results.length, size);
      expected += calls;
      assert.equal(emu.control.getUsage(k).used, expected, `page_size ${size}`);
    }
    await search({ query: 'zyxqv' }, k);
    assert.equal(emu.control.getUsage(k).used, expected + 1, 'an empty result still costs 1');
    const bad = await search({ query: 'x', month_min: 3 }, k);
    assert.equal(bad.status, 422);
    assert.equal(emu.control.getUsage(k).used, expected + 1, 'a 422 costs nothing');
    const log = emu.control.requests().filter((e) => e.keyLabel === 'charging');
    assert.deepEqual(
      log.map((e) => e.charged),
      [1, 1, 2, 2, 3, 8, 1, 0],
    );
    assert.ok(
      log.every((e) => !JSON.stringify(e).includes(k)),
      'the log never holds the key',
    );
  });

  it('returns plan-dependent fields: free has no study_type/takeaway/quartile, paid has them', async () => {
    const free = await search({ query: 'sleep deprivation memory' }, DEMO_KEYS.free);
    const paid = await search({ query: 'sleep deprivation memory' }, DEMO_KEYS.pro);
    for (const r of free.body.results) {
      assert.ok(!('study_type' in r) && !('takeaway' in r) && !('sjr_best_quartile' in r));
      assert.equal(r.abstract, byId(paperIdOf(r.url)).abstract, 'free returns the full abstract');
    }
    for (const r of paid.body.results) assert.ok('study_type' in r && 'takeaway' in r && 'sjr_best_quartile' in r);
  });

  it('returns semantic_score only when asked and only for overall ranks < 50', async () => {
    const no = await search({ query: 'exercise depression' });
    assert.ok(no.body.results.every((r) => !('semantic_score' in r)));
    const p0 = await search({ query: 'exercise depression', include_semantic_score: true, page_size: 30 });
    const p1 = await search({ query: 'exercise depression', include_semantic_score: true, page_size: 30, page: 1 });
    assert.ok(p0.body.results.every((r) => typeof r.semantic_score === 'number'));
    p1.body.results.forEach((r, i) => assert.equal('semantic_score' in r, 30 + i < 50, `rank ${30 + i}`));
    const scores = p0.body.results.map((r) => r.semantic_score as number);
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
      'scores follow the ranking',
    );
  });

  it('returns excerpts per the rules: format, ≤3 per paper, ≤60 per request, open access only, never retracted', async () => {
    const r = await search({
      query: 'sleep deprivation memory consolidation',
      include_full_text_chunks: true,
      page_size: 100,
    });
    assert.equal(r.status, 200);
    let total = 0;
    let withChunks = 0;
    for (const res of r.body.results) {
      assert.ok('full_text_chunks' in res);
      const p = byId(paperIdOf(res.url));
      const chunks = res.full_text_chunks as string[] | null;
      if (!p.openAccess || p.retracted || !p.fullText) assert.equal(chunks, null, 'ineligible papers get null');
      if (chunks === null) continue;
      assert.ok(chunks.length >= 1 && chunks.length <= 3);
      withChunks++;
      total += chunks.length;
      for (const c of chunks) {
        const m = /^Section: ([^|]+) \| (.+)$/s.exec(c);
        assert.ok(m, `format: ${c}`);
        const sec = p.fullText!.find((s) => s.heading === m[1]);
        assert.ok(sec, 'heading is a section of the paper');
        assert.ok(sec.sentences.join(' ').includes(m[2]!), 'passage is verbatim from that section');
      }
    }
    assert.ok(withChunks > 0);
    assert.ok(total <= 60, `at most 60 excerpts per request (got ${total})`);
    assert.equal(total, 60, 'a 100-paper page of a common query fills the 60 budget');
    // Not requested → the field is absent.
    const plain = await search({ query: 'sleep deprivation memory consolidation' });
    assert.ok(plain.body.results.every((x) => !('full_text_chunks' in x)));
  });

  it('never gives excerpts from retracted or paywalled papers even when they match best', async () => {
    const retracted = corpus.find((p) => p.retracted && p.openAccess && p.fullText);
    const paywalled = corpus.find((p) => !p.openAccess && p.fullText);
    assert.ok(retracted && paywalled);
    for (const p of [retracted, paywalled]) {
      const r = await search({ query: p.title, include_full_text_chunks: true, page_size: 50 });
      const hit = r.body.results.find((x) => paperIdOf(x.url) === p.id);
      assert.ok(hit, 'the paper is found by its title');
      assert.equal(hit.full_text_chunks, null);
    }
  });

  const filterCases: [string, Record<string, string | number | boolean>, Filters][] = [
    [
      'year range with months',
      { year_min: 2015, month_min: 6, year_max: 2020, month_max: 3 },
      { year_min: 2015, month_min: 6, year_max: 2020, month_max: 3 },
    ],
    [
      'study types incl. a value with commas',
      { study_types: 'rct,theoretical, modeling, or simulation study' },
      { study_types: ['rct', 'theoretical, modeling, or simulation study'] },
    ],
    ['human', { human: true }, { human: true }],
    ['controlled', { controlled: true }, { controlled: true }],
    ['sample_size_min', { sample_size_min: 500 }, { sample_size_min: 500 }],
    ['sjr_min / sjr_max', { sjr_min: 2, sjr_max: 3 }, { sjr_min: 2, sjr_max: 3 }],
    ['citation_min', { citation_min: 50 }, { citation_min: 50 }],
    ['duration range', { duration_min: 30, duration_max: 365 }, { duration_min: 30, duration_max: 365 }],
    ['exclude_preprints', { exclude_preprints: true }, { exclude_preprints: true }],
    ['open_access', { open_access: true }, { open_access: true }],
    ['publisher_name', { publisher_name: 'Elsevier,Wiley' }, { publisher_name: ['Elsevier', 'Wiley'] }],
    ['domain', { domain: 'psych,edu' }, { domain: ['psych', 'edu'] }],
    ['country (unknown codes ignored)', { country: 'US,GB,ZZ' }, { country: ['US', 'GB'] }],
    ['clinical_guideline', { clinical_guideline: true }, { clinical_guideline: true }],
    ['medical_mode', { medical_mode: true }, { medical_mode: true }],
  ];
  for (const [name, params, predicate] of filterCases) {
    it(`filter really filters: ${name}`, async () => {
      const query = 'effects association evidence';
      const all = await search({ query, page_size: 300 });
      const r = await search({ query, page_size: 300, ...params });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.results.length > 0, 'some papers pass');
      for (const res of r.body.results)
        assert.ok(matchesFilters(byId(paperIdOf(res.url)), predicate), `${String(res.title)} passes`);
      const rejected = all.body.results.filter((x) => !matchesFilters(byId(paperIdOf(x.url)), predicate));
      assert.ok(rejected.length > 0, 'the unfiltered result contains papers the filter removes');
      // Completeness on a query with < 1,000 hits: filtered = unfiltered ∩ predicate, same order.
      const everything = await allResults({ query: 'panel' });
      const filtered = await allResults({ query: 'panel', ...params });
      assert.deepEqual(
        filtered,
        everything.filter((id) => matchesFilters(byId(id), predicate)),
      );
    });
  }

  it('country: if no code resolves, the filter is not applied', async () => {
    const a = await search({ query: 'anxiety', page_size: 50 });
    const b = await search({ query: 'anxiety', page_size: 50, country: 'ZZ,XX' });
    assert.deepEqual(
      b.body.results.map((x) => x.url),
      a.body.results.map((x) => x.url),
    );
  });

  it('journal_name boosts matching journals without excluding others', async () => {
    const plain = await search({ query: 'sleep deprivation', page_size: 100 });
    const boosted = await search({
      query: 'sleep deprivation',
      page_size: 100,
      journal_name: 'Journal of Sleep Research',
    });
    const rank = (b: SearchBody) => b.results.findIndex((x) => x.journal_name === 'Journal of Sleep Research');
    assert.ok(rank(boosted.body) >= 0);
    assert.ok(rank(boosted.body) <= rank(plain.body) || rank(plain.body) < 0);
    assert.ok(
      boosted.body.results.some((x) => x.journal_name !== 'Journal of Sleep Research'),
      'others are kept',
    );
    assert.equal(
      boosted.body.results.slice(0, 5).filter((x) => x.journal_name === 'Journal of Sleep Research').length > 0,
      true,
    );
  });

  it('rejects invalid parameters with 422 naming every offending field at once', async () => {
    const r = await call(
      emu.url,
      `/v1/search?${qs({
        month_min: 4,
        month_max: 13,
        year_max: 2020,
        sjr_min: 0,
        sjr_max: 5,
        page: 50,
        page_size: 0,
        sample_size_min: 0,
        citation_min: '1.5',
        human: 'yes',
        study_types: 'rct,bogus',
        domain: 'med,xyz',
        open_access: 'maybe',
      })}`,
      { key: DEMO_KEYS.pro },
    );
    assert.equal(r.status, 422);
    const fields = locFields(r.body);
    for (const f of [
      'query',
      'month_min',
      'month_max',
      'sjr_min',
      'sjr_max',
      'page',
      'page_size',
      'sample_size_min',
      'citation_min',
      'human',
      'study_types',
      'domain',
      'open_access',
    ]) {
      assert.ok(fields.includes(f), `${f} is named (got ${fields.join(', ')})`);
    }
    const monthNeedsYear = (r.body as { detail: { loc: string[]; type: string }[] }).detail.find(
      (d) => d.loc[1] === 'month_min' && d.type === 'value_error',
    );
    assert.ok(monthNeedsYear, 'month_min without year_min is named');
  });

  it('rejects (page + 1) x page_size > 1000 with 422 and accepts exactly 1000', async () => {
    const bad = await search({ query: 'sleep', page: 4, page_size: 201 });
    assert.equal(bad.status, 422);
    assert.deepEqual(locFields(bad.body), ['page']);
    const ok = await search({ query: 'sleep', page: 4, page_size: 200 });
    assert.equal(ok.status, 200);
  });

  it('quick_search works with deprecation headers before 2027-02-07 and is 410 Gone after', async () => {
    emu.control.setClock('2027-02-06T23:59:00Z');
    const before = await call<SearchBody>(emu.url, `/v1/quick_search?${qs({ query: 'creatine' })}`, {
      key: DEMO_KEYS.pro,
    });
    assert.equal(before.status, 200);
    assert.ok(before.body.results.length > 0);
    assert.equal(before.headers.get('deprecation'), 'true');
    assert.match(before.headers.get('sunset') ?? '', /07 Feb 2027/);
    emu.control.setClock('2027-02-07T00:00:00Z');
    const after = await call<{ detail: string; code: string }>(
      emu.url,
      `/v1/quick_search?${qs({ query: 'creatine' })}`,
      { key: DEMO_KEYS.pro },
    );
    assert.equal(after.status, 410);
    assert.match(after.body.detail, /\/v1\/search/);
    assert.equal(after.body.code, 'endpoint_removed');
  });

  it('accepts repeated study_types parameters and case-insensitive values', async () => {
    const r = await call<SearchBody>(
      emu.url,
      '/v1/search?query=effects&study_types=RCT&study_types=Meta-Analysis&page_size=100',
      { key: DEMO_KEYS.pro },
    );
    assert.equal(r.status, 200);
    assert.ok(r.body.results.length > 0);
    assert.ok(r.body.results.every((x) => x.study_type === 'rct' || x.study_type === 'meta-analysis'));
  });
});
