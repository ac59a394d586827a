// The client's search and quickSearch against the emulator over real HTTP: every filter reaches
// the service as the spec serialises it and the results obey it; excerpts, semantic scores,
// paging, page_size capping, the deprecated endpoint and its sunset; calls charged per search.
import { strict as assert } from 'node:assert';
import {
  callsForSearch,
  inferPlanFromPageSize,
  parseExcerpt,
  type Client,
  type Paper,
  type SearchParams,
  type SearchResponse,
} from '../../src/api';
import { DEMO_KEYS, matchesFilters, type Filters } from '../emulator';
import { paperId, startHarness, type Harness } from './harness';

interface FilterCase {
  name: string;
  params: SearchParams;
  /** Query parameters the service must receive besides `query` and `page_size`. */
  sent: Record<string, string>;
  /** The same filters in the emulator's predicate form. */
  filters: Filters;
  /** What can be checked on the returned fields themselves. */
  visible?: (p: Paper) => boolean;
}

const CASES: FilterCase[] = [
  {
    name: 'year and month ranges',
    params: { query: 'sleep deprivation memory', year_min: 2012, month_min: 6, year_max: 2021, month_max: 3 },
    sent: { year_min: '2012', month_min: '6', year_max: '2021', month_max: '3' },
    filters: { year_min: 2012, month_min: 6, year_max: 2021, month_max: 3 },
    visible: (p) => p.publish_year! >= 2012 && p.publish_year! <= 2021,
  },
  {
    name: 'study types (one value contains commas)',
    params: {
      query: 'exercise depression',
      study_types: ['rct', 'meta-analysis', 'theoretical, modeling, or simulation study', 'cohort study'],
    },
    sent: { study_types: 'rct,meta-analysis,theoretical, modeling, or simulation study,cohort study' },
    filters: { study_types: ['rct', 'meta-analysis', 'theoretical, modeling, or simulation study', 'cohort study'] },
    visible: (p) =>
      ['rct', 'meta-analysis', 'theoretical, modeling, or simulation study', 'cohort study'].includes(
        p.study_type ?? '',
      ),
  },
  {
    name: 'human, controlled, sample size',
    params: { query: 'creatine supplementation', human: true, controlled: true, sample_size_min: 40 },
    sent: { human: 'true', controlled: 'true', sample_size_min: '40' },
    filters: { human: true, controlled: true, sample_size_min: 40 },
    visible: (p) => p.population_type === 'human' && p.sample_size! >= 40,
  },
  {
    name: 'journal quartiles and citations',
    params: { query: 'vitamin d', sjr_min: 2, sjr_max: 3, citation_min: 10 },
    sent: { sjr_min: '2', sjr_max: '3', citation_min: '10' },
    filters: { sjr_min: 2, sjr_max: 3, citation_min: 10 },
    visible: (p) => p.sjr_best_quartile! >= 2 && p.sjr_best_quartile! <= 3 && p.citation_count! >= 10,
  },
  {
    name: 'study duration',
    params: { query: 'mindfulness anxiety', duration_min: 30, duration_max: 365 },
    sent: { duration_min: '30', duration_max: '365' },
    filters: { duration_min: 30, duration_max: 365 },
    visible: (p) => p.study_duration_days! >= 30 && p.study_duration_days! <= 365,
  },
  {
    name: 'no preprints, open access only',
    params: { query: 'machine learning', exclude_preprints: true, open_access: true },
    sent: { exclude_preprints: 'true', open_access: 'true' },
    filters: { exclude_preprints: true, open_access: true },
    visible: (p) => p.is_preprint !== true,
  },
  {
    name: 'domain and country lists, comma-separated',
    params: { query: 'air pollution', domain: ['med', 'env'], country: ['US', 'CN', 'DE'] },
    sent: { domain: 'med,env', country: 'US,CN,DE' },
    filters: { domain: ['med', 'env'], country: ['US', 'CN', 'DE'] },
    visible: (p) => (p.countries_of_study ?? []).some((c) => ['US', 'CN', 'DE'].includes(c)),
  },
  {
    name: 'clinical guidelines and medical mode',
    params: { query: 'vitamin d', clinical_guideline: true, medical_mode: true },
    sent: { clinical_guideline: 'true', medical_mode: 'true' },
    filters: { clinical_guideline: true, medical_mode: true },
  },
  {
    name: 'false booleans are sent as false and filter nothing; journal_name ranks without excluding',
    params: { query: 'caffeine', human: false, open_access: false, journal_name: 'Nutrients' },
    sent: { human: 'false', open_access: 'false', journal_name: 'Nutrients' },
    filters: {},
  },
];

describe('integration: search', function () {
  let h: Harness;
  let client: Client;

  /** Search, then check the call the service charged for it equals callsForSearch(results). */
  async function search(params: SearchParams, c: Client = client): Promise<SearchResponse> {
    const before = h.emu.control.charges().length;
    const r = await c.search(params);
    const charges = h.emu.control.charges().slice(before);
    assert.equal(charges.length, 1, 'one charge per search');
    assert.equal(
      charges[0]!.calls,
      callsForSearch(r.results.length),
      `charged ${charges[0]!.calls} for ${r.results.length} results`,
    );
    return r;
  }
  const lastQuery = () => h.emu.control.requests().at(-1)!.query;
  const paperOf = (r: Paper) => {
    const p = h.emu.control.paper(paperId(r.url));
    assert.ok(p);
    return p;
  };

  before(async function () {
    this.timeout(60_000);
    h = await startHarness();
    client = h.client();
  });
  beforeEach(() => h.emu.control.reset());
  after(async () => {
    h.assertNoKeyLeaked();
    await h.close();
  });

  it('returns ranked papers with the required fields, the key sent only in its header', async () => {
    const r = await search({ query: 'creatine cognition' });
    assert.equal(r.results.length, 20);
    assert.equal(r.page, 0);
    assert.equal(r.page_size, 20);
    const first = r.results[0]!;
    for (const f of [
      'title',
      'abstract',
      'authors',
      'doi',
      'journal_name',
      'publish_year',
      'url',
      'citation_count',
    ] as const)
      assert.notEqual(first[f], undefined, f);
    assert.match(String(first.title).toLowerCase(), /creatine/);
    const req = h.emu.control.requests().at(-1)!;
    assert.equal(req.auth, 'x-api-key');
    assert.equal(req.keyLabel, 'demo:pro');
    assert.deepEqual(req.query, { query: 'creatine cognition' }, 'absent parameters are omitted');
    assert.ok(
      h.lines.some((l) => l.startsWith('info GET /v1/search?query=creatine%20cognition 200')),
      'a log line per search',
    );
  });

  for (const c of CASES) {
    it(`filter: ${c.name} — reaches the service as specified, and every result obeys it`, async () => {
      const r = await search({ ...c.params, page_size: 100 });
      assert.deepEqual(lastQuery(), { query: c.params.query, page_size: '100', ...c.sent });
      assert.ok(r.results.length > 0, 'the case returns papers');
      for (const res of r.results) {
        assert.ok(matchesFilters(paperOf(res), c.filters), `${res.title} obeys the filters`);
        if (c.visible) assert.ok(c.visible(res), `returned fields of ${res.title} obey the filters`);
      }
      if (Object.keys(c.filters).length) {
        const unfiltered = await search({ query: c.params.query, page_size: 100 });
        assert.ok(
          unfiltered.results.some((res) => !matchesFilters(paperOf(res), c.filters)),
          'the filter excluded something',
        );
      }
    });
  }

  it('journal_name boosts matching journals without excluding others', async () => {
    const plain = await search({ query: 'caffeine', page_size: 100 });
    const boosted = await search({ query: 'caffeine', page_size: 100, journal_name: 'Nutrients' });
    assert.equal(boosted.results.length, plain.results.length);
    const share = (r: SearchResponse) =>
      r.results.slice(0, 10).filter((p) => /nutrients/i.test(p.journal_name ?? '')).length;
    assert.ok(share(boosted) >= share(plain));
    assert.ok(
      boosted.results.some((p) => !/nutrients/i.test(p.journal_name ?? '')),
      'others are not excluded',
    );
  });

  it('excerpts on a paid plan: Section | passage, at most 3 per paper and 60 per request, only open access and never retracted', async () => {
    const r = await search({ query: 'sleep quality adolescents', include_full_text_chunks: true, page_size: 50 });
    assert.equal(lastQuery().include_full_text_chunks, 'true');
    let total = 0;
    for (const res of r.results) {
      assert.notEqual(res.full_text_chunks, undefined, 'requested excerpts are null or a list');
      const chunks = res.full_text_chunks ?? [];
      assert.ok(chunks.length <= 3);
      total += chunks.length;
      if (chunks.length) {
        const p = paperOf(res);
        assert.ok(p.openAccess && !p.retracted, 'excerpts only from open-access, non-retracted papers');
        for (const ch of chunks) {
          const { section, passage } = parseExcerpt(ch);
          assert.ok(section && passage, `excerpt format: ${ch.slice(0, 60)}`);
          assert.ok(
            p.fullText?.some((s) => s.heading === section),
            `section ${section} exists in the paper`,
          );
        }
      }
    }
    assert.ok(total > 0 && total <= 60, `${total} excerpts`);
  });

  it('excerpts on the free plan: 403 feature_not_allowed, not retried, nothing charged', async () => {
    const free = h.client({ apiKey: DEMO_KEYS.free });
    const e = await h.expectError(
      free.search({ query: 'sleep', include_full_text_chunks: true }),
      'feature_not_allowed',
    );
    assert.equal(e.status, 403);
    assert.equal(e.code, 'feature_not_allowed');
    assert.equal(h.emu.control.requests().length, 1);
    assert.equal(h.emu.control.charges().length, 0);
    assert.equal(h.emu.control.getUsage(DEMO_KEYS.free).used, 0);
  });

  it('semantic_score only when asked and only for the top 50 overall ranks', async () => {
    const none = await search({ query: 'social media wellbeing', page_size: 60 });
    assert.ok(none.results.every((p) => p.semantic_score === undefined));
    const r = await search({ query: 'social media wellbeing', page_size: 60, include_semantic_score: true });
    assert.equal(lastQuery().include_semantic_score, 'true');
    assert.equal(r.results.length, 60);
    r.results.forEach((p, i) => {
      if (i < 50)
        assert.ok(
          typeof p.semantic_score === 'number' && p.semantic_score > 0 && p.semantic_score < 1,
          `rank ${i} has a score`,
        );
      else assert.equal(p.semantic_score, undefined, `rank ${i} has none`);
    });
    const scores = r.results.slice(0, 50).map((p) => p.semantic_score!);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      'ranked by score',
    );
    const page2 = await search({
      query: 'social media wellbeing',
      page_size: 30,
      page: 1,
      include_semantic_score: true,
    });
    assert.ok(page2.results.slice(0, 20).every((p) => typeof p.semantic_score === 'number'));
    assert.ok(page2.results.slice(20).every((p) => p.semantic_score === undefined));
  });

  it('paging: pages are disjoint and continue the ranking; next_page and is_end agree; the last page ends', async () => {
    const all = await search({ query: 'groundwater', page_size: 30 });
    const p0 = await search({ query: 'groundwater', page_size: 10 });
    const p1 = await search({ query: 'groundwater', page_size: 10, page: p0.next_page! });
    assert.equal(p0.next_page, 1);
    assert.equal(p0.is_end, false);
    assert.equal(p1.page, 1);
    assert.equal(lastQuery().page, '1');
    assert.deepEqual(
      [...p0.results, ...p1.results].map((p) => p.url),
      all.results.slice(0, 20).map((p) => p.url),
    );
    // Walk a narrow query to its end.
    const params: SearchParams = { query: 'groundwater', open_access: true, year_min: 2018, page_size: 5 };
    let page = 0;
    let r: SearchResponse;
    const seen = new Set<string>();
    for (;;) {
      r = await search({ ...params, page });
      for (const p of r.results) seen.add(String(p.url));
      if (r.is_end) break;
      assert.equal(r.next_page, page + 1);
      page = r.next_page!;
      assert.ok(page < 50);
    }
    assert.equal(r.next_page ?? null, null);
    assert.ok(seen.size > 5, 'more than one page');
    const everything = await search({ ...params, page: 0, page_size: 300 });
    assert.equal(seen.size, everything.results.length, 'paging saw every result once');
  });

  it('page_size is capped to the plan maximum and the applied size is returned (and tells the plan)', async () => {
    const free = h.client({ apiKey: DEMO_KEYS.free });
    const f = await search({ query: 'sleep', page_size: 50 }, free);
    assert.equal(lastQuery().page_size, '50', 'the requested size is sent');
    assert.equal(f.page_size, 10);
    assert.equal(f.results.length, 10);
    assert.deepEqual(inferPlanFromPageSize(50, f.page_size), ['free']);
    const pro = await search({ query: 'sleep', page_size: 1000 });
    assert.equal(pro.page_size, 300);
    assert.equal(pro.results.length, 300, 'a broad query fills the capped page');
    assert.deepEqual(inferPlanFromPageSize(1000, pro.page_size)?.includes('pro'), true);
    const deep = h.client({ apiKey: DEMO_KEYS.deep });
    const d = await search({ query: 'sleep', page_size: 1000 }, deep);
    assert.equal(d.page_size, 750);
    assert.deepEqual(inferPlanFromPageSize(1000, d.page_size), ['deep']);
  });

  it('calls charged equal callsForSearch(results) for 0, 1..100, 101..200 and 201..300 results', async () => {
    const sizes: number[] = [];
    for (const p of [
      { query: 'zyxqv nonexistent', page_size: 100 },
      { query: 'sleep', page_size: 100 },
      { query: 'sleep', page_size: 150 },
      { query: 'sleep', page_size: 300 },
    ] as SearchParams[]) {
      sizes.push((await search(p)).results.length);
    }
    assert.deepEqual(sizes, [0, 100, 150, 300]);
    assert.deepEqual(
      h.emu.control.charges().map((c) => c.calls),
      [1, 1, 2, 3],
    );
    assert.equal(h.emu.control.getUsage(DEMO_KEYS.pro).used, 7);
  });

  it('quickSearch: same answer as search, one deprecation warning per client, 410 after the sunset (not_found, not retried)', async () => {
    const qc = h.client();
    const warnings = () => h.lines.filter((l) => l.startsWith('warn') && l.includes('deprecated'));
    const before = warnings().length;
    const a = await qc.quickSearch({ query: 'bilingualism executive function', page_size: 15, open_access: true });
    await qc.quickSearch({ query: 'bilingualism' });
    const req = h.emu.control.requests()[0]!;
    assert.equal(req.path, '/v1/quick_search');
    assert.deepEqual(req.query, { query: 'bilingualism executive function', open_access: 'true', page_size: '15' });
    const b = await search({ query: 'bilingualism executive function', page_size: 15, open_access: true });
    assert.deepEqual(
      a.results.map((p) => p.url),
      b.results.map((p) => p.url),
    );
    assert.equal(warnings().length - before, 1, 'warned once');
    assert.match(warnings().at(-1)!, /2027-02-07/);
    assert.deepEqual(
      h.emu.control.charges().map((c) => c.reason),
      ['quick_search', 'quick_search', 'search'],
    );

    h.emu.control.clearRequests();
    h.emu.control.setClock('2027-02-07T00:00:01Z');
    const e = await h.expectError(qc.quickSearch({ query: 'bilingualism' }), 'not_found');
    assert.equal(e.status, 410);
    assert.equal(e.code, 'endpoint_removed');
    assert.match(e.message, /removed/);
    assert.match(e.message, /\/v1\/search/, 'the message names the replacement');
    assert.equal(h.emu.control.requests().length, 1, 'not retried');
    await search({ query: 'bilingualism' });
  });
});
