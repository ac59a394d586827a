/** Every parameter rule of the spec, naming every offending field, and serialisation. */
import assert from 'node:assert/strict';
import { listQueryString, searchQueryString, threadQueryString, threadRequestJson } from '../../../src/api/serialize';
import {
  validateInteractionId,
  validateListParams,
  validateSearchParams,
  validateThreadId,
  validateThreadRequest,
  type SearchParams,
} from '../../../src/api/params';
import { DOMAIN_CODES, STUDY_TYPES } from '../../../src/api/vocab';

const locs = (issues: { loc: (string | number)[] }[]) => issues.map((i) => i.loc.join('.'));
const search = (p: Record<string, unknown>) => validateSearchParams({ query: 'sleep', ...p });
const thread = (b: Record<string, unknown>) => validateThreadRequest({ input_message: 'What helps?', ...b });

describe('api/params: search validation', () => {
  it('accepts a query alone and a full valid request', () => {
    assert.deepEqual(search({}), []);
    assert.deepEqual(
      search({
        year_min: 2010,
        year_max: 2020,
        month_min: 1,
        month_max: 12,
        study_types: ['rct', 'meta-analysis'],
        human: true,
        controlled: false,
        sample_size_min: 1,
        sjr_min: 1,
        sjr_max: 4,
        citation_min: 0,
        duration_min: 0,
        duration_max: 30,
        exclude_preprints: true,
        open_access: true,
        publisher_name: ['Elsevier', 'Wiley'],
        domain: 'med,bio',
        country: ['US', 'de'],
        journal_name: 'Nature',
        clinical_guideline: false,
        medical_mode: true,
        include_semantic_score: true,
        include_full_text_chunks: true,
        page: 49,
        page_size: 20,
      }),
      [],
    );
  });

  it('requires a non-empty query', () => {
    assert.deepEqual(locs(validateSearchParams({} as SearchParams)), ['query.query']);
    assert.equal(validateSearchParams({} as SearchParams)[0]!.type, 'missing');
    assert.equal(search({ query: '   ' })[0]!.type, 'string_too_short');
    assert.equal(search({ query: 3 })[0]!.type, 'string_type');
  });

  it('months need their year and lie in 1..12', () => {
    assert.deepEqual(locs(search({ month_min: 3 })), ['query.month_min']);
    assert.deepEqual(locs(search({ month_max: 3 })), ['query.month_max']);
    assert.deepEqual(locs(search({ year_min: 2020, month_min: 0 })), ['query.month_min']);
    assert.deepEqual(locs(search({ year_max: 2020, month_max: 13 })), ['query.month_max']);
    assert.equal(search({ year_min: 2020, month_min: 0 })[0]!.type, 'greater_than_equal');
    assert.equal(search({ year_max: 2020, month_max: 13 })[0]!.type, 'less_than_equal');
    assert.deepEqual(search({ year_min: 2020, month_min: 12, year_max: 2021, month_max: 1 }), []);
    assert.deepEqual(locs(search({ year_min: 2020, month_min: 5, year_max: 2020, month_max: 4 })), ['query.month_min']);
  });

  it('sjr in 1..4, sample_size_min >= 1, page 0..49, page_size >= 1, integers only', () => {
    for (const [p, loc] of [
      [{ sjr_min: 0 }, 'query.sjr_min'],
      [{ sjr_max: 5 }, 'query.sjr_max'],
      [{ sample_size_min: 0 }, 'query.sample_size_min'],
      [{ page: -1 }, 'query.page'],
      [{ page: 50 }, 'query.page'],
      [{ page_size: 0 }, 'query.page_size'],
      [{ year_min: 2020.5 }, 'query.year_min'],
      [{ citation_min: -1 }, 'query.citation_min'],
      [{ duration_min: '7' }, 'query.duration_min'],
    ] as const)
      assert.deepEqual(locs(search(p)), [loc], JSON.stringify(p));
    assert.equal(search({ year_min: 2020.5 })[0]!.type, 'int_type');
  });

  it('(page + 1) × page_size must not exceed 1000, with the default page_size of 20', () => {
    assert.deepEqual(search({ page: 4, page_size: 200 }), []);
    assert.deepEqual(locs(search({ page: 4, page_size: 201 })), ['query.page_size', 'query.page']);
    assert.deepEqual(locs(search({ page_size: 1001 })), ['query.page_size']);
    assert.deepEqual(search({ page: 49 }), []); // 50 × 20 = 1000
    assert.deepEqual(search({ page_size: 1000 }), []);
  });

  it('min must not exceed max for years, quartiles and durations', () => {
    assert.deepEqual(locs(search({ year_min: 2021, year_max: 2020 })), ['query.year_min']);
    assert.deepEqual(locs(search({ sjr_min: 3, sjr_max: 2 })), ['query.sjr_min']);
    assert.deepEqual(locs(search({ duration_min: 10, duration_max: 5 })), ['query.duration_min']);
  });

  it('study types and domain codes must be known; every known one passes', () => {
    assert.deepEqual(search({ study_types: [...STUDY_TYPES] }), []);
    assert.deepEqual(search({ domain: [...DOMAIN_CODES] }), []);
    assert.deepEqual(locs(search({ study_types: ['rct', 'RCT', 'anecdote'] })), [
      'query.study_types.1',
      'query.study_types.2',
    ]);
    const d = search({ domain: 'med,medicine' });
    assert.deepEqual(locs(d), ['query.domain']);
    assert.match(d[0]!.msg, /"medicine"/);
    assert.equal(d[0]!.type, 'enum');
  });

  it('booleans must be booleans; country codes two letters; names without commas; unknown keys rejected', () => {
    assert.deepEqual(locs(search({ human: 'yes' })), ['query.human']);
    assert.deepEqual(locs(search({ country: 'US,USA' })), ['query.country']);
    assert.deepEqual(locs(search({ publisher_name: ['Elsevier, Inc.'] })), ['query.publisher_name']);
    assert.deepEqual(search({ publisher_name: 'Elsevier, Wiley' }), []);
    const u = search({ yearMin: 2020 });
    assert.deepEqual(locs(u), ['query.yearMin']);
    assert.equal(u[0]!.type, 'extra_forbidden');
  });

  it('names every offending field of one request', () => {
    const issues = validateSearchParams({
      query: '',
      month_min: 13,
      sjr_min: 0,
      sjr_max: 9,
      sample_size_min: 0,
      study_types: ['nope'],
      domain: 'xx',
      page: 60,
      page_size: 0,
      human: 1,
    } as unknown as SearchParams);
    assert.deepEqual(
      new Set(locs(issues)),
      new Set([
        'query.query',
        'query.month_min',
        'query.sjr_min',
        'query.sjr_max',
        'query.sample_size_min',
        'query.study_types.0',
        'query.domain',
        'query.page',
        'query.page_size',
        'query.human',
      ]),
    );
    for (const i of issues) assert.ok(i.msg && i.type, 'every item has msg and type');
  });
});

describe('api/params: thread, list and id validation', () => {
  it('input_message 1..10000 characters (counted as characters, not UTF-16 units)', () => {
    assert.deepEqual(thread({}), []);
    assert.deepEqual(locs(thread({ input_message: '' })), ['body.input_message']);
    assert.deepEqual(locs(thread({ input_message: undefined })), ['body.input_message']);
    assert.deepEqual(thread({ input_message: 'x'.repeat(10_000) }), []);
    assert.equal(thread({ input_message: 'x'.repeat(10_001) })[0]!.type, 'string_too_long');
    assert.deepEqual(thread({ input_message: '😀'.repeat(10_000) }), []); // 20 000 UTF-16 units, 10 000 characters
  });

  it('mode, filters, attachments bounds, unknown fields', () => {
    assert.deepEqual(locs(thread({ mode: 'fast' })), ['body.mode']);
    assert.deepEqual(thread({ mode: 'deep', filters: null, attachments: null }), []);
    const f = locs(thread({ filters: { month_min: 2, sjr_max: 7, study_types: ['x'], query: 'q' } }));
    for (const l of [
      'body.filters.month_min',
      'body.filters.sjr_max',
      'body.filters.study_types.0',
      'body.filters.query',
    ])
      assert.ok(f.includes(l), l);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    assert.deepEqual(thread({ attachments: { paper_ids: ids(50), collection_ids: ids(10) } }), []);
    assert.deepEqual(locs(thread({ attachments: { paper_ids: ids(51), collection_ids: ids(11) } })), [
      'body.attachments.paper_ids',
      'body.attachments.collection_ids',
    ]);
    assert.deepEqual(locs(thread({ attachments: { paper_ids: [''] } })), ['body.attachments.paper_ids.0']);
    assert.deepEqual(locs(thread({ extra: 1 })), ['body.extra']);
  });

  it('thread_id pattern, interaction_id, list limit/offset', () => {
    assert.deepEqual(validateThreadId('abc_DEF-123'), []);
    for (const bad of ['', 'a/b', '../x', 'a b', 'a?b', 3])
      assert.deepEqual(locs(validateThreadId(bad)), ['path.thread_id'], String(bad));
    assert.deepEqual(validateInteractionId(undefined), []);
    assert.deepEqual(locs(validateInteractionId('')), ['query.interaction_id']);
    // Ids come from the service and end up in paths and messages: bounded in length.
    assert.deepEqual(validateThreadId('a'.repeat(512)), []);
    assert.deepEqual(locs(validateThreadId('a'.repeat(513))), ['path.thread_id']);
    assert.deepEqual(validateInteractionId('i'.repeat(512)), []);
    assert.deepEqual(locs(validateInteractionId('i'.repeat(100_000))), ['query.interaction_id']);
    assert.deepEqual(validateListParams({ limit: 1, offset: 0 }), []);
    assert.deepEqual(validateListParams({ limit: 100 }), []);
    assert.deepEqual(locs(validateListParams({ limit: 0, offset: -1 })), ['query.limit', 'query.offset']);
    assert.deepEqual(locs(validateListParams({ limit: 101 })), ['query.limit']);
  });
});

describe('api/params: serialisation', () => {
  it('lists comma-separated, booleans true/false, absent omitted, spec order', () => {
    const q = searchQueryString({
      query: 'sleep & memory',
      page_size: 10,
      human: true,
      controlled: false,
      study_types: ['rct', 'meta-analysis'],
      domain: ['med', 'psych'],
      country: ' US , DE ',
      year_min: 2010,
      journal_name: undefined,
      open_access: undefined,
    });
    assert.equal(
      q,
      'query=sleep%20%26%20memory&year_min=2010&study_types=rct,meta-analysis&human=true&controlled=false&domain=med,psych&country=US,DE&page_size=10',
    );
    assert.equal(searchQueryString({ query: 'x', study_types: [] }), 'query=x');
  });

  it('list, thread query strings', () => {
    assert.equal(listQueryString({ query: 'Vitamin D', limit: 5, offset: 10 }), 'query=Vitamin%20D&limit=5&offset=10');
    assert.equal(listQueryString({}), '');
    assert.equal(
      threadQueryString({ includeTrace: true, interactionId: 'in_2' }),
      'include_trace=true&interaction_id=in_2',
    );
    assert.equal(threadQueryString({ includeTrace: false }), 'include_trace=false');
    assert.equal(threadQueryString({}), '');
  });

  it('thread body: study_types stays a list, other lists become comma strings, absent omitted, null kept', () => {
    assert.deepEqual(
      threadRequestJson({
        input_message: 'Q',
        mode: 'deep',
        filters: { study_types: ['rct'], domain: ['med', 'bio'], human: true, year_min: undefined },
        attachments: { paper_ids: ['a'] },
      }),
      {
        input_message: 'Q',
        mode: 'deep',
        filters: { study_types: ['rct'], domain: 'med,bio', human: true },
        attachments: { paper_ids: ['a'] },
      },
    );
    assert.deepEqual(threadRequestJson({ input_message: 'Q', filters: null }), { input_message: 'Q', filters: null });
  });
});
