// Every row of the spec's error table, driven through the client against the emulator over real
// HTTP: 401 (missing / invalid / revoked), 402, 403, 409 (see threads.test.ts too), 422 (refused
// before sending, and a genuine one from the service), both 429s, and the key never leaking.
import { strict as assert } from 'node:assert';
import { type Client, type ThreadRequest } from '../../src/api';
import { DEMO_KEYS } from '../emulator';
import { intercepting, startHarness, type Harness } from './harness';

describe('integration: error table', function () {
  this.timeout(30_000);
  let h: Harness;
  let client: Client;
  const requests = () => h.emu.control.requests();

  before(async function () {
    this.timeout(60_000);
    h = await startHarness({ speed: 500 });
    client = h.client();
  });
  beforeEach(() => {
    h.emu.control.reset();
    h.emu.control.setSpeed(500);
  });
  after(async () => {
    h.assertNoKeyLeaked();
    await h.close();
  });

  describe('401', () => {
    it('missing key: refused by the client, nothing sent', async () => {
      const none = h.client({ apiKey: '' });
      const e = await h.expectError(none.search({ query: 'sleep' }), 'unauthorized');
      assert.equal(e.status, undefined);
      const unset = h.client({ apiKey: () => Promise.resolve(undefined) });
      await h.expectError(unset.listThreads(), 'unauthorized');
      assert.equal(requests().length, 0);
    });

    it('missing header at the service (a proxy strips it): 401, not retried', async () => {
      const stripped = h.client({
        dispatcher: intercepting((o) => {
          const headers = { ...(o.headers as Record<string, string>) };
          delete headers['x-api-key'];
          return { ...o, headers };
        }),
      });
      const e = await h.expectError(stripped.search({ query: 'sleep' }), 'unauthorized');
      assert.equal(e.status, 401);
      assert.equal(e.code, 'missing_api_key');
      assert.deepEqual(
        requests().map((r) => [r.auth, r.status]),
        [['none', 401]],
      );
    });

    it('invalid and revoked keys: 401 on every endpoint, never retried, nothing charged', async () => {
      for (const [apiKey, code] of [
        ['not-a-real-key-123456', 'invalid_api_key'],
        [DEMO_KEYS.revoked, 'revoked_api_key'],
      ] as const) {
        const c = h.client({ apiKey });
        for (const call of [
          () => c.search({ query: 'sleep' }),
          () => c.createThread({ input_message: 'Is sleep good for memory?' }),
          () => c.getThread('th_1'),
          () => c.addInteraction('th_1', { input_message: 'And naps?' }),
          () => c.listThreads(),
        ]) {
          const before = requests().length;
          const e = await h.expectError(call(), 'unauthorized');
          assert.equal(e.status, 401);
          assert.equal(e.code, code);
          assert.ok(
            requests().length - before <= 1,
            'one request (the follow-up snapshot poll fails first and ends it)',
          );
        }
      }
      assert.equal(h.emu.control.charges().length, 0);
    });

    it('bearer: accepted for enterprise keys; refused (401) for other plans', async () => {
      const ent = h.client({ apiKey: DEMO_KEYS.enterprise, authScheme: 'bearer' });
      const r = await ent.search({ query: 'sleep', page_size: 400 });
      assert.equal(r.page_size, 400);
      assert.equal(requests().at(-1)!.auth, 'bearer');
      const pro = h.client({ authScheme: 'bearer' });
      const e = await h.expectError(pro.search({ query: 'sleep' }), 'unauthorized');
      assert.equal(e.code, 'bearer_not_allowed');
    });
  });

  it('402 billing past due: payment_required on every endpoint, not retried, nothing created or charged', async () => {
    const c = h.client({ apiKey: DEMO_KEYS.pastDue });
    const calls = [
      () => c.search({ query: 'sleep' }),
      () => c.quickSearch({ query: 'sleep' }),
      () => c.createThread({ input_message: 'Is sleep good for memory?' }),
      () => c.getThread('th_1'),
      () => c.listThreads({ limit: 5 }),
    ];
    for (const call of calls) {
      const e = await h.expectError(call(), 'payment_required');
      assert.equal(e.status, 402);
      assert.match(e.message, /past due/);
    }
    assert.equal(requests().length, calls.length, 'one request each');
    assert.ok(requests().every((r) => r.status === 402));
    assert.deepEqual(h.emu.control.threads(DEMO_KEYS.pastDue), []);
    assert.equal(h.emu.control.charges().length, 0);
  });

  it('403 feature_not_allowed: excerpts and deep mode on the free plan', async () => {
    const free = h.client({ apiKey: DEMO_KEYS.free });
    const a = await h.expectError(
      free.search({ query: 'sleep', include_full_text_chunks: true }),
      'feature_not_allowed',
    );
    const b = await h.expectError(
      free.createThread({ input_message: 'Deep dive on sleep.', mode: 'deep' }),
      'feature_not_allowed',
    );
    for (const e of [a, b]) {
      assert.equal(e.status, 403);
      assert.equal(e.code, 'feature_not_allowed');
    }
    // One request each, plus the free thread list read before a thread POST (its reconciliation snapshot).
    assert.deepEqual(
      requests().map((r) => r.route),
      ['search', 'list_threads', 'create_thread'],
    );
    assert.equal(h.emu.control.charges().length, 0);
  });

  it('409 conflict: a follow-up while the latest interaction runs (one POST, no new interaction)', async () => {
    h.emu.control.setSpeed(1);
    const d = await client.createThread({ input_message: 'Does exercise help depression in older adults?' });
    const e = await h.expectError(
      client.addInteraction(d.thread_id, { input_message: 'And in teenagers?' }),
      'conflict',
    );
    assert.equal(e.status, 409);
    assert.equal(requests().filter((r) => r.route === 'add_interaction').length, 1);
    assert.equal(h.emu.control.threads(DEMO_KEYS.pro)[0]!.interactions, 1);
  });

  describe('422', () => {
    it('every rule the client checks: refused before sending, naming every offending field; nothing sent or charged', async () => {
      const s = await h.expectError(
        client.search({
          query: 'sleep',
          month_min: 3,
          sjr_min: 5,
          page: 50,
          page_size: 0,
          sample_size_min: 0,
          // @ts-expect-error an unknown study type, as untyped callers could send
          study_types: ['rct', 'astrology'],
          domain: 'med,astro',
        }),
        'validation',
      );
      const fields = (e: typeof s) => e.detail!.map((d) => d.loc.join('.'));
      for (const f of [
        'query.month_min',
        'query.sjr_min',
        'query.page',
        'query.page_size',
        'query.sample_size_min',
        'query.study_types.1',
        'query.domain',
      ])
        assert.ok(fields(s).includes(f), `names ${f}: ${fields(s).join(', ')}`);
      assert.match(s.message, /not sent/);
      const big = await h.expectError(client.search({ query: 'sleep', page: 10, page_size: 100 }), 'validation');
      assert.ok(fields(big).includes('query.page_size'), '(page + 1) × page_size > 1000');

      const body: ThreadRequest = {
        input_message: 'x'.repeat(10_001),
        filters: { month_max: 13, domain: 'med,nope' },
        attachments: {
          paper_ids: Array.from({ length: 51 }, (_, i) => `p${i}`),
          collection_ids: Array.from({ length: 11 }, (_, i) => i),
        },
      };
      const t = await h.expectError(client.createThread(body), 'validation');
      for (const f of [
        'body.input_message',
        'body.filters.month_max',
        'body.filters.domain',
        'body.attachments.paper_ids',
        'body.attachments.collection_ids',
      ])
        assert.ok(fields(t).includes(f), `names ${f}: ${fields(t).join(', ')}`);
      await h.expectError(client.createThread({ input_message: '   ' }), 'validation');
      await h.expectError(client.addInteraction('th 1/../x', { input_message: 'ok' }), 'validation');
      await h.expectError(client.getThread('th$1'), 'validation');
      const l = await h.expectError(client.listThreads({ limit: 0, offset: -1 }), 'validation');
      assert.deepEqual(fields(l), ['query.limit', 'query.offset']);
      assert.equal(requests().length, 0, 'never sent');
      assert.equal(h.emu.control.charges().length, 0);
      assert.equal(h.emu.control.getUsage(DEMO_KEYS.pro).used, 0);
    });

    it('a genuine 422 from the service (a rule the client does not know) is mapped to detail items, not retried', async () => {
      // The dispatcher adds out-of-range values after the client validated the request.
      const c = h.client({
        dispatcher: intercepting((o) => ({
          ...o,
          path: o.path.startsWith('/v1/search') ? `${o.path}&sjr_min=9&page=abc` : o.path,
        })),
      });
      const e = await h.expectError(c.search({ query: 'sleep' }), 'validation');
      assert.equal(e.status, 422);
      assert.ok(
        e.detail!.some((d) => d.loc.join('.') === 'query.sjr_min' && d.type === 'less_than_equal' && d.msg.length > 0),
      );
      assert.ok(e.detail!.some((d) => d.loc.join('.') === 'query.page' && d.type === 'int_parsing'));
      assert.match(e.message, /query\.sjr_min: .*; query\.page: /);
      assert.equal(requests().length, 1);
      assert.equal(requests()[0]!.status, 422);

      // And a thread body the service rejects: a 422 on a POST is not reconciled or retried, nothing is created.
      const p = h.client({
        dispatcher: intercepting((o) =>
          o.method === 'POST'
            ? { ...o, body: JSON.stringify({ input_message: 'Sleep?', filters: { domain: 'astrology' } }) }
            : o,
        ),
      });
      const pe = await h.expectError(p.createThread({ input_message: 'Sleep?' }), 'validation');
      assert.deepEqual(
        pe.detail!.map((d) => d.loc),
        [['body', 'filters', 'domain']],
      );
      assert.equal(requests().filter((r) => r.route === 'create_thread').length, 1);
      assert.equal(
        requests().filter((r) => r.route === 'list_threads').length,
        1,
        'only the snapshot before sending: no reconciliation',
      );
      assert.deepEqual(h.emu.control.threads(DEMO_KEYS.pro), []);
    });
  });

  describe('429', () => {
    it('monthly pool used up: quota_exhausted with the reset date, never retried, nothing charged', async () => {
      const cap = h.emu.control.getUsage(DEMO_KEYS.pro).cap;
      h.emu.control.setUsage(DEMO_KEYS.pro, cap);
      const e = await h.expectError(client.search({ query: 'sleep' }), 'quota_exhausted');
      assert.equal(e.status, 429);
      assert.equal(e.resetDate, '2026-12-01');
      assert.match(e.message, /2026-12-01/);
      const t = await h.expectError(
        client.createThread({ input_message: 'Is sleep good for memory?' }),
        'quota_exhausted',
      );
      assert.equal(t.resetDate, '2026-12-01');
      assert.deepEqual(
        requests().map((r) => r.route),
        ['search', 'list_threads', 'create_thread'],
        'one request each (and the snapshot), no retry, no reconciliation',
      );
      assert.equal(h.emu.control.getUsage(DEMO_KEYS.pro).used, cap);
      assert.deepEqual(h.emu.control.threads(DEMO_KEYS.pro), []);
      // The free plan: 30 included calls, no additional usage.
      const free = h.client({ apiKey: DEMO_KEYS.free });
      h.emu.control.setUsage(DEMO_KEYS.free, 30);
      const f = await h.expectError(free.search({ query: 'sleep' }), 'quota_exhausted');
      assert.equal(f.resetDate, '2026-12-01');
      // After the 1st of the month the pool is fresh again.
      h.emu.control.setClock('2026-12-01T00:00:05Z');
      const ok = await client.search({ query: 'sleep' });
      assert.equal(ok.results.length, 20);
    });

    it('per-second limit: a burst without client rate limiting gets rate_limited 429s; retried GETs succeed within the budget or fail clearly', async function () {
      this.timeout(20_000);
      h.emu.control.setRateLimits(true);
      try {
        const queries = ['sleep memory', 'caffeine sleep', 'exercise mood', 'vitamin d bone'];
        const outcomes = await Promise.allSettled(queries.map((query) => client.search({ query })));
        const log = requests();
        let retriedAndSucceeded = 0;
        outcomes.forEach((o, i) => {
          const mine = log.filter((r) => r.query.query === queries[i]).map((r) => r.status);
          assert.ok(mine.length >= 1 && mine.length <= 3, `at most 1 + 2 attempts (${queries[i]}: ${mine.join(',')})`);
          if (o.status === 'fulfilled') {
            assert.deepEqual(mine, [...Array<number>(mine.length - 1).fill(429), 200]);
            if (mine.length > 1) retriedAndSucceeded++;
          } else {
            const e: unknown = o.reason;
            h.texts.push(e instanceof Error ? e.message : String(e));
            assert.ok(e instanceof Error && 'kind' in e && e.kind === 'rate_limited', 'fails as rate_limited');
            assert.deepEqual(mine, [429, 429, 429], 'retried twice, then gave up');
            assert.match(e.message, /Too many requests/);
          }
        });
        assert.ok(
          log.some((r) => r.status === 429),
          'the burst hit the limit',
        );
        assert.ok(retriedAndSucceeded >= 1, 'a retried GET succeeded');
        assert.equal(
          h.emu.control.charges().length,
          outcomes.filter((o) => o.status === 'fulfilled').length,
          '429s cost nothing',
        );
        // With the client's own scheduler at the published rate, the same burst gets no 429 at all.
        h.emu.control.clearRequests();
        await new Promise((r) => setTimeout(r, 1100));
        const polite = h.client({ rateLimits: { search: 1, list: 1, poll: 3 } });
        await Promise.all(queries.slice(0, 3).map((query) => polite.search({ query })));
        assert.deepEqual(
          requests().map((r) => r.status),
          [200, 200, 200],
        );
      } finally {
        h.emu.control.setRateLimits(false);
      }
    });
  });
});
