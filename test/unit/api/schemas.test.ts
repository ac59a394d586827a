/** Response schemas: leniency where the real service is lenient, invalid_response otherwise. */
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import {
  paperGaps,
  parseBody,
  parseExcerpt,
  parseSearchResponse,
  SearchResponseSchema,
  ThreadDispatchSchema,
  ThreadListSchema,
  ThreadSchema,
} from '../../../src/api/schemas';
import { boundedSeconds, MAX_WAIT_BOUNDS, POLL_AFTER_BOUNDS } from '../../../src/shared/timing';
import { dispatchBody, paper, searchBody, threadBody } from './helpers';

const kindOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof ApiError ? e.kind : 'other';
  }
  return 'none';
};

describe('api/schemas', () => {
  it('a paper missing volume and pages (as in the public example) passes and the gap is counted', () => {
    const { volume: _v, pages: _p, ...rest } = paper();
    const r = parseBody(SearchResponseSchema, searchBody([rest, paper({ doi: null })]), 'GET /v1/search');
    assert.equal(r.results.length, 2);
    assert.deepEqual([...paperGaps(r.results)].sort(), [
      ['doi', 1],
      ['pages', 1],
      ['volume', 1],
    ]);
  });

  it('unknown fields pass through; optional fields may be null or absent; numbers for volume become text', () => {
    const r = parseBody(
      SearchResponseSchema,
      searchBody([paper({ brand_new: { x: 1 }, takeaway: null, semantic_score: 0.9, volume: 7 })], { extra: true }),
      'w',
    );
    const p = r.results[0]!;
    assert.equal(p.brand_new !== undefined, true);
    assert.equal(p.takeaway, null);
    assert.equal(p.volume, '7');
    assert.equal(p.study_type, undefined);
  });

  it('defaults page_size to 20 and derives is_end from next_page when absent', () => {
    const r = parseBody(SearchResponseSchema, { results: [], page: 0, next_page: 1 }, 'w');
    assert.equal(r.page_size, 20);
    assert.equal(r.is_end, false);
  });

  it('a body of the wrong shape is invalid_response, naming the path but not the values', () => {
    assert.equal(
      kindOf(() => parseBody(SearchResponseSchema, { papers: [] }, 'w')),
      'invalid_response',
    );
    assert.equal(
      kindOf(() => parseBody(SearchResponseSchema, searchBody([paper({ title: 42 })]), 'w')),
      'invalid_response',
    );
    assert.equal(
      kindOf(() => parseBody(SearchResponseSchema, 'hello', 'w')),
      'invalid_response',
    );
    assert.equal(
      kindOf(() => parseBody(ThreadSchema, threadBody({ status: 'sleeping' }), 'w')),
      'invalid_response',
    );
    try {
      parseBody(SearchResponseSchema, searchBody([paper({ title: 42 })]), 'GET /v1/search');
    } catch (e) {
      assert.match((e as Error).message, /GET \/v1\/search.*results\.0\.title/);
    }
  });

  it('threads, lists and dispatches parse leniently', () => {
    const t = parseBody(ThreadSchema, { thread_id: 't', status: 'running', trace: 'step 1' }, 'w');
    assert.deepEqual(t.interactions, []);
    assert.equal(t.trace, 'step 1');
    const l = parseBody(ThreadListSchema, { threads: [{ thread_id: 't', title: 'x', interaction_count: 1 }] }, 'w');
    assert.equal(l.has_more, false);
    assert.equal(l.threads[0]!.status, undefined);
    const d = parseBody(
      ThreadDispatchSchema,
      dispatchBody({ poll_after_seconds: undefined, max_wait_seconds: undefined, mode: 'deep' }),
      'w',
    );
    assert.equal(d.poll_after_seconds, 30);
    assert.equal(d.max_wait_seconds, 600);
    assert.equal(d.reconciled, false);
    assert.equal(
      kindOf(() => parseBody(ThreadDispatchSchema, dispatchBody({ thread_id: undefined }), 'w')),
      'invalid_response',
    );
  });

  it('the zero-copy search parser agrees with the zod schema on valid and invalid bodies', () => {
    const { volume: _v, ...noVolume } = paper();
    const valid = [
      searchBody([paper(), noVolume, paper({ volume: 12, pages: 7, doi: null, takeaway: null, brand_new: [1] })]),
      searchBody([]),
      { results: [paper()], page: 2 },
    ];
    for (const body of valid) {
      const viaZod = parseBody(SearchResponseSchema, structuredClone(body), 'w');
      const fast = parseSearchResponse(structuredClone(body), 'w');
      assert.deepEqual(JSON.parse(JSON.stringify(fast)), JSON.parse(JSON.stringify(viaZod)));
    }
    const body = searchBody([paper()]);
    assert.equal(parseSearchResponse(body, 'w').results[0], (body.results as unknown[])[0], 'papers are not copied');
    const invalid = [
      searchBody([paper({ title: 42 })]),
      searchBody([paper({ authors: ['a', 3] })]),
      searchBody([paper({ is_preprint: 'no' })]),
      searchBody([paper({ publish_year: '2020' })]),
      searchBody(['not a paper']),
      { results: 'none' },
      searchBody([paper()], { page: 'first' }),
      null,
    ];
    for (const b of invalid) {
      assert.equal(
        kindOf(() => parseSearchResponse(structuredClone(b), 'w')),
        'invalid_response',
        JSON.stringify(b).slice(0, 80),
      );
      assert.equal(
        kindOf(() => parseBody(SearchResponseSchema, structuredClone(b), 'w')),
        'invalid_response',
      );
    }
    try {
      parseSearchResponse(searchBody([paper(), paper({ is_preprint: 'no' })]), 'GET /v1/search');
    } catch (e) {
      assert.match((e as Error).message, /results\.1\.is_preprint/);
    }
  });

  it('parseExcerpt splits on the first pipe only', () => {
    assert.deepEqual(parseExcerpt('Section: Methods | We used a | b split.'), {
      section: 'Methods',
      passage: 'We used a | b split.',
    });
    assert.deepEqual(parseExcerpt('no pipe here'), { section: undefined, passage: 'no pipe here' });
  });

  it('polling hints are bounded where a dispatch is parsed: poll 1..300 s, max wait 1..3600 s, spec defaults for anything not a number', () => {
    const hints = (poll: unknown, max: unknown, mode = 'pro') => {
      const d = parseBody(
        ThreadDispatchSchema,
        dispatchBody({ poll_after_seconds: poll, max_wait_seconds: max, mode }),
        'POST /v1/threads',
      );
      return [d.poll_after_seconds, d.max_wait_seconds];
    };
    assert.deepEqual(hints(30, 180), [30, 180]);
    assert.deepEqual(hints(0, 0), [1, 1]);
    assert.deepEqual(hints(-5, -1e9), [1, 1]);
    assert.deepEqual(hints(3e6, 1e9), [300, 3600]);
    assert.deepEqual(hints(null, undefined), [30, 180]);
    assert.deepEqual(hints('30', '600', 'deep'), [30, 600], 'a string is not a number: the spec default');
    assert.deepEqual(hints({ n: 1 }, [600], 'deep'), [30, 600]);
    assert.equal(boundedSeconds(Infinity, POLL_AFTER_BOUNDS), 30);
    assert.equal(boundedSeconds(Number.NaN, { ...MAX_WAIT_BOUNDS, fallback: 180 }), 180);
    assert.equal(boundedSeconds(0.5, POLL_AFTER_BOUNDS), 1);
  });
});
