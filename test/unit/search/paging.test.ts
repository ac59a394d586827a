import * as assert from 'node:assert/strict';
import { cacheKey, SearchCache } from '../../../src/search/cache';
import {
  callsToShow,
  displayStep,
  fetchPageSize,
  hasMore,
  nextFetch,
  pageAllowed,
  planLoadMore,
} from '../../../src/search/paging';
import { escapeMarkdown } from '../../../src/shared/markdown';
import {
  doiUrl,
  paperDescription,
  paperId,
  pushRecent,
  queryArg,
  selectionToQuery,
  studyTypeIcon,
} from '../../../src/search/query';
import { safeHttpsUrl } from '../../../src/shared/url';

describe('search paging plan', () => {
  it('requests one billing unit, capped by the plan maximum', () => {
    assert.equal(fetchPageSize(undefined), 100);
    assert.equal(fetchPageSize(300), 100);
    assert.equal(fetchPageSize(10), 10);
    assert.equal(fetchPageSize(3), 3);
    assert.equal(displayStep(100), 20);
    assert.equal(displayStep(10), 10);
  });

  it('serves Load More from the buffer until it runs out, then fetches the next page', () => {
    const s = { fetched: 100, shown: 20, pageSize: 100, serviceHasMore: true };
    assert.deepEqual(planLoadMore(s), { kind: 'show', count: 20 });
    assert.deepEqual(planLoadMore({ ...s, shown: 90 }), { kind: 'show', count: 10 });
    assert.deepEqual(planLoadMore({ ...s, shown: 100 }), { kind: 'fetch', page: 1, pageSize: 100, thenShow: 20 });
    assert.deepEqual(planLoadMore({ ...s, shown: 100, serviceHasMore: false }), { kind: 'none' });
  });

  it('never plans a page that breaks the 1,000-result or 50-page limit', () => {
    assert.ok(pageAllowed(9, 100));
    assert.ok(!pageAllowed(10, 100));
    assert.ok(pageAllowed(49, 10));
    assert.ok(!pageAllowed(50, 10));
    assert.ok(!pageAllowed(49, 30), '(49+1)*30 > 1000');
    assert.equal(nextFetch({ fetched: 1000, shown: 1000, pageSize: 100, serviceHasMore: true }), undefined);
    assert.equal(nextFetch({ fetched: 500, shown: 500, pageSize: 10, serviceHasMore: true }), undefined, 'page 50');
    assert.deepEqual(nextFetch({ fetched: 490, shown: 490, pageSize: 10, serviceHasMore: true }), {
      page: 49,
      pageSize: 10,
    });
    assert.equal(hasMore({ fetched: 1000, shown: 1000, pageSize: 100, serviceHasMore: true }), false);
    assert.equal(hasMore({ fetched: 1000, shown: 980, pageSize: 100, serviceHasMore: false }), true);
  });

  it('after a capped first page, pages continue in units of the applied size', () => {
    // Asked 100, the free plan applied 10: offset 10 is page 1 of size 10.
    assert.deepEqual(nextFetch({ fetched: 10, shown: 10, pageSize: 10, serviceHasMore: true }), {
      page: 1,
      pageSize: 10,
    });
    // A buffer not aligned to whole pages is never paged on (the offset would be wrong).
    assert.equal(nextFetch({ fetched: 95, shown: 95, pageSize: 100, serviceHasMore: true }), undefined);
  });

  it('states the calls for 100 results 20 at a time: 1 with this plan, 5 naively', () => {
    assert.equal(callsToShow(100, 100), 1);
    assert.equal(callsToShow(100, 20), 5);
    assert.equal(callsToShow(0, 20), 0);
    assert.equal(callsToShow(150, 300), 3);
  });
});

describe('search cache', () => {
  it('answers an identical request within its lifetime, whatever the parameter order', () => {
    let now = 0;
    const cache = new SearchCache<string>({ minutes: () => 30, now: () => now });
    const a = cacheKey('svc', { query: 'q', year_min: 2020, study_types: ['rct', 'meta-analysis'], human: undefined });
    const b = cacheKey('svc', { study_types: ['rct', 'meta-analysis'], year_min: 2020, query: 'q' });
    assert.equal(a, b);
    assert.notEqual(a, cacheKey('other', { query: 'q', year_min: 2020, study_types: ['rct', 'meta-analysis'] }));
    assert.notEqual(a, cacheKey('svc', { query: 'q', year_min: 2021, study_types: ['rct', 'meta-analysis'] }));
    cache.set(a, 'page');
    assert.equal(cache.get(b), 'page');
    now += 30 * 60_000;
    assert.equal(cache.get(b), undefined, 'expired');
  });

  it('0 minutes disables it; the oldest entries go beyond the cap', () => {
    let minutes = 0;
    const cache = new SearchCache<number>({ minutes: () => minutes, maxEntries: 2 });
    cache.set('a', 1);
    assert.equal(cache.get('a'), undefined);
    minutes = 5;
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('c'), 3);
  });
});

describe('search query helpers', () => {
  it('a selection becomes one line; an over-long one is cut at a word', () => {
    assert.deepEqual(selectionToQuery('  creatine\n\tand   cognition \n'), {
      query: 'creatine and cognition',
      truncated: false,
    });
    const long = 'word '.repeat(200);
    const r = selectionToQuery(long, 50);
    assert.equal(r.truncated, true);
    assert.ok(r.query.length <= 50);
    assert.match(r.query, /^(word )*word$/);
    assert.equal(selectionToQuery('x'.repeat(80), 50).query.length, 50, 'no space: cut hard');
  });

  it('recent queries: newest first, no duplicates, capped', () => {
    assert.deepEqual(pushRecent(['b', 'A'], 'a', 3), ['a', 'b']);
    assert.deepEqual(pushRecent(['a', 'b', 'c'], 'd', 3), ['d', 'a', 'b']);
    assert.deepEqual(pushRecent(['a'], '   '), ['a']);
  });

  it("Search Papers' argument: a query string or { query, filters? }; anything else means ask", () => {
    assert.deepEqual(queryArg('sleep'), { query: 'sleep' });
    assert.deepEqual(queryArg(''), { query: '' });
    assert.deepEqual(queryArg({ query: 'sleep', filters: { year_min: 2019 } }), {
      query: 'sleep',
      filters: { year_min: 2019 },
    });
    assert.deepEqual(queryArg({ query: 'sleep', filters: 'none' }), { query: 'sleep' });
    // A view's tree element, a menu's URI, nothing: the Quick Pick asks.
    for (const other of [undefined, null, 42, { id: 'paper-1' }, { query: 7 }, ['sleep']])
      assert.equal(queryArg(other), undefined, JSON.stringify(other));
  });

  it('describes a paper and picks an icon per study-type family', () => {
    assert.equal(
      paperDescription({ authors: ['Ann Lee', 'Bo Chan'], publish_year: 2021, journal_name: 'Nutrients' }),
      'Ann Lee et al. · 2021 · Nutrients',
    );
    assert.equal(paperDescription({ authors: ['Ann Lee'], publish_year: null, journal_name: null }), 'Ann Lee');
    assert.equal(paperDescription({ authors: null, publish_year: 2020, journal_name: '' }), '2020');
    assert.equal(studyTypeIcon('rct'), 'beaker');
    assert.equal(studyTypeIcon('meta-analysis'), 'layers');
    assert.equal(studyTypeIcon('systematic review'), 'layers');
    assert.equal(studyTypeIcon('cohort study'), 'organization');
    assert.equal(studyTypeIcon(null), 'file-text');
    assert.equal(studyTypeIcon('something new'), 'file-text');
  });

  it('opens only https links; builds DOI links; escapes Markdown', () => {
    assert.equal(safeHttpsUrl('https://consensus.app/papers/x/abc/'), 'https://consensus.app/papers/x/abc/');
    assert.equal(safeHttpsUrl('http://example.com'), undefined);
    assert.equal(safeHttpsUrl('javascript:alert(1)'), undefined);
    assert.equal(safeHttpsUrl('command:workbench.action.quit'), undefined);
    assert.equal(doiUrl('10.1000/xyz.1'), 'https://doi.org/10.1000/xyz.1');
    assert.equal(doiUrl('https://doi.org/10.1000/a b'), undefined);
    assert.equal(doiUrl('10.1000/a?b#c'), 'https://doi.org/10.1000/a%3Fb%23c');
    assert.equal(doiUrl('not a doi'), undefined);
    assert.equal(paperId({ url: 'https://consensus.app/papers/slug/0123abcd/', doi: null, title: 't' }), '0123abcd');
    const esc = escapeMarkdown('[click](command:x) <img src=x> *b*');
    assert.ok(!esc.includes('<img'));
    assert.ok(!/(^|[^\\])\[/.test(esc), 'an unescaped [ remains');
  });
});
