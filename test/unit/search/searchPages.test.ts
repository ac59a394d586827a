// Where a search page comes from (SearchPages, split from the session): the cache, a request on its way, or the
// service; what is reported to the ledger; what answers teach about an account, kept per key. Plain Node, a fake
// client.
import * as assert from 'node:assert/strict';
import type { Client, SearchParams, SearchResponse } from '../../../src/api/index';
import type { ServiceSettings } from '../../../src/platform/settings';
import { SearchPages, type UsageSink } from '../../../src/search/searchPages';

const SERVICE: ServiceSettings = {
  baseUrl: 'https://api.example.org',
  origin: 'https://api.example.org',
  problem: undefined,
  authScheme: 'x-api-key',
  timeoutMs: 30_000,
  proxy: undefined,
};

interface Sent {
  params: SearchParams;
  signal: AbortSignal | undefined;
  answer(response?: Partial<SearchResponse>): void;
  fail(err: Error): void;
}

function setup(options: { key?: string; cacheMinutes?: number; planMax?: number } = {}) {
  const sent: Sent[] = [];
  const usage = { searches: [] as Parameters<UsageSink['recordSearch']>[0][], errors: [] as unknown[] };
  let key = options.key ?? 'key-a';
  const client = {
    search(params: SearchParams, opts?: { signal?: AbortSignal }): Promise<SearchResponse> {
      return new Promise((resolve, reject) => {
        sent.push({
          params,
          signal: opts?.signal,
          answer: (r = {}) =>
            resolve({
              results: [],
              page: params.page ?? 0,
              page_size: params.page_size ?? 10,
              is_end: true,
              next_page: null,
              ...r,
            }),
          fail: reject,
        });
      });
    },
  } as unknown as Client;
  const pages = new SearchPages({
    clients: { get: () => ({ client, service: SERVICE }) },
    keyFor: () => Promise.resolve(key),
    usage: { recordSearch: (e) => usage.searches.push(e), recordError: (e) => usage.errors.push(e) },
    planMaxPageSize: () => options.planMax,
    cacheMinutes: () => options.cacheMinutes ?? 30,
    log: { info: () => undefined },
  });
  return { pages, sent, usage, setKey: (k: string) => (key = k) };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const aborted = (): Error => Object.assign(new Error('aborted'), { kind: 'aborted' });

describe('search: SearchPages (cache, shared requests, what answers teach)', () => {
  it('answers a repeated page from the cache; bypassing it sends again; nothing is cached when the lifetime is 0', async () => {
    const { pages, sent, usage } = setup();
    const scope = await pages.scope(SERVICE);
    const first = pages.fetch(scope, 'sleep', { year_min: 2018 }, 0, 100, false, new AbortController().signal);
    await tick();
    sent[0]!.answer({ page_size: 100 });
    assert.equal((await first).sent, true);
    assert.deepEqual(sent[0]!.params, { year_min: 2018, query: 'sleep', page: 0, page_size: 100 });
    const again = await pages.fetch(scope, 'sleep', { year_min: 2018 }, 0, 100, false, new AbortController().signal);
    assert.equal(again.sent, false);
    assert.equal(sent.length, 1);
    const bypass = pages.fetch(scope, 'sleep', { year_min: 2018 }, 0, 100, true, new AbortController().signal);
    await tick();
    sent[1]!.answer();
    assert.equal((await bypass).sent, true);
    assert.equal(usage.searches.length, 2, 'a cache hit was reported as a request');

    const off = setup({ cacheMinutes: 0 });
    const s = await off.pages.scope(SERVICE);
    for (let i = 0; i < 2; i++) {
      const p = off.pages.fetch(s, 'q', {}, 0, 100, false, new AbortController().signal);
      await tick();
      off.sent[i]!.answer();
      assert.equal((await p).sent, true);
    }
  });

  it('shares a request on its way; when its sender gives up, the one waiting sends its own', async () => {
    const { pages, sent, usage } = setup();
    const scope = await pages.scope(SERVICE);
    const a = pages.fetch(scope, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    const b = pages.fetch(scope, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    assert.equal(sent.length, 1);
    sent[0]!.answer();
    assert.deepEqual([(await a).sent, (await b).sent], [true, false]);
    assert.equal(usage.searches.length, 1);

    const giver = new AbortController();
    const c = pages.fetch(scope, 'other', {}, 0, 100, true, giver.signal);
    await tick();
    const d = pages.fetch(scope, 'other', {}, 0, 100, true, new AbortController().signal);
    await tick();
    giver.abort();
    sent[1]!.fail(aborted());
    await assert.rejects(c, (e: Error & { kind?: string }) => e.kind === 'aborted');
    await tick();
    assert.equal(sent.length, 3, 'the waiting caller did not ask for itself');
    sent[2]!.answer();
    assert.equal((await d).sent, true);
    assert.deepEqual(usage.errors, [], 'an aborted request was reported as an error');
  });

  it('a waiting caller that gives up stops waiting at once; the request goes on for its sender', async () => {
    const { pages, sent } = setup();
    const scope = await pages.scope(SERVICE);
    const a = pages.fetch(scope, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    const waiter = new AbortController();
    const b = pages.fetch(scope, 'q', {}, 0, 100, false, waiter.signal);
    await tick();
    waiter.abort();
    await assert.rejects(b, (e: Error & { kind?: string }) => e.kind === 'aborted');
    sent[0]!.answer();
    assert.equal((await a).sent, true);
    assert.equal(sent.length, 1);
  });

  it('reports a failure other than a cancel to the ledger, and caches nothing', async () => {
    const { pages, sent, usage } = setup();
    const scope = await pages.scope(SERVICE);
    const a = pages.fetch(scope, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    const err = Object.assign(new Error('server'), { kind: 'server' });
    sent[0]!.fail(err);
    await assert.rejects(a, err);
    assert.deepEqual(usage.errors, [err]);
    const b = pages.fetch(scope, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    assert.equal(sent.length, 2);
    sent[1]!.answer();
    await b;
  });

  it('learns the page size the service applied (free: no excerpts), per key; a plan setting caps it too; forget() drops it', async () => {
    const { pages, sent, setKey } = setup({ key: 'free-key' });
    const free = await pages.scope(SERVICE);
    const a = pages.fetch(free, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    sent[0]!.answer({ page_size: 10 });
    await a;
    assert.deepEqual(pages.facts(free), { maxPageSize: 10, noExcerpts: true });
    assert.equal(pages.maxPageSize(free), 10);
    setKey('pro-key');
    const pro = await pages.scope(SERVICE);
    assert.notEqual(pro, free);
    assert.ok(!pro.includes('pro-key') && !free.includes('free-key'), 'a key is kept in the scope');
    assert.deepEqual(pages.facts(pro), {});
    assert.equal(pages.maxPageSize(pro), undefined);
    pages.learn(pro, { noExcerpts: true });
    assert.deepEqual(pages.facts(pro), { noExcerpts: true });
    pages.forget();
    assert.deepEqual(pages.facts(free), {});
    const again = pages.fetch(free, 'q', {}, 0, 100, false, new AbortController().signal);
    await tick();
    assert.equal(sent.length, 2, 'the cache outlived forget()');
    sent[1]!.answer();
    await again;

    const capped = setup({ planMax: 50 });
    const s = await capped.pages.scope(SERVICE);
    assert.equal(capped.pages.maxPageSize(s), 50);
    capped.pages.learn(s, { maxPageSize: 20 });
    assert.equal(capped.pages.maxPageSize(s), 20);
  });
});
