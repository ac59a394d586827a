// Authentication, billing state, the monthly pool and per-second limits.
import { strict as assert } from 'node:assert';
import { DEMO_KEYS, MONTHLY_MESSAGE, RATE_MESSAGE, startEmulator, type RunningEmulator } from './index';
import { call } from './testHelpers';

describe('emulator: authentication and limits', function () {
  let emu: RunningEmulator;
  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, now: '2026-11-20T10:00:00Z', speed: 1000 });
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());

  const S = '/v1/search?query=sleep';

  it('401 for a missing, unknown or revoked key, with {detail, code}', async () => {
    const cases: [Parameters<typeof call>[2], string][] = [
      [{}, 'missing_api_key'],
      [{ key: 'not-a-key' }, 'invalid_api_key'],
      [{ key: DEMO_KEYS.revoked }, 'revoked_api_key'],
      [{ key: '' }, 'missing_api_key'],
    ];
    for (const [opts, code] of cases) {
      const r = await call<{ detail: string; code: string }>(emu.url, S, opts);
      assert.equal(r.status, 401);
      assert.equal(r.body.code, code);
      assert.equal(typeof r.body.detail, 'string');
    }
    const log = emu.control.requests();
    assert.deepEqual(
      log.map((e) => e.keyKind),
      ['none', 'invalid', 'revoked', 'none'],
    );
    assert.ok(!JSON.stringify(log).includes(DEMO_KEYS.revoked), 'log never holds a key');
  });

  it('every endpoint requires a key', async () => {
    for (const [method, path] of [
      ['GET', S],
      ['GET', '/v1/quick_search?query=x'],
      ['POST', '/v1/threads'],
      ['GET', '/v1/threads'],
      ['GET', '/v1/threads/abc'],
      ['POST', '/v1/threads/abc/interactions'],
    ] as const) {
      const r = await call(emu.url, path, { method, ...(method === 'POST' ? { body: { input_message: 'x' } } : {}) });
      assert.equal(r.status, 401, `${method} ${path}`);
    }
  });

  it('Bearer is accepted only for enterprise keys', async () => {
    assert.equal((await call(emu.url, S, { bearer: DEMO_KEYS.enterprise })).status, 200);
    const r = await call<{ code: string }>(emu.url, S, { bearer: DEMO_KEYS.pro });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'bearer_not_allowed');
    assert.equal(emu.control.requests()[0]!.auth, 'bearer');
  });

  it('402 on every call for a past-due key, nothing charged', async () => {
    for (const path of [S, '/v1/threads']) {
      const r = await call<{ code: string }>(emu.url, path, { key: DEMO_KEYS.pastDue });
      assert.equal(r.status, 402);
      assert.equal(r.body.code, 'payment_required');
    }
    assert.equal(emu.control.getUsage(DEMO_KEYS.pastDue).used, 0);
  });

  it('403 feature_not_allowed for excerpts on free; paid plans get them', async () => {
    const r = await call<{ code: string }>(emu.url, `${S}&include_full_text_chunks=true`, { key: DEMO_KEYS.free });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'feature_not_allowed');
    assert.equal(emu.control.getUsage(DEMO_KEYS.free).used, 0, 'a refused request costs nothing');
    assert.equal((await call(emu.url, `${S}&include_full_text_chunks=true`, { key: DEMO_KEYS.teams })).status, 200);
  });

  it('monthly pool: 429 with the reset date once the included calls are used', async () => {
    emu.control.setUsage(DEMO_KEYS.free, 29);
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.free })).status, 200);
    const r = await call<{ detail: string }>(emu.url, S, { key: DEMO_KEYS.free });
    assert.equal(r.status, 429);
    assert.deepEqual(r.body, { detail: MONTHLY_MESSAGE('2026-12-01') });
    assert.equal(r.headers.get('retry-after'), null);
    const u = emu.control.getUsage(DEMO_KEYS.free);
    assert.deepEqual([u.plan, u.used, u.included, u.cap, u.resetsOn], ['free', 30, 30, 30, '2026-12-01']);
    // Threads are refused at dispatch too.
    const t = await call(emu.url, '/v1/threads', { key: DEMO_KEYS.free, body: { input_message: 'sleep and memory' } });
    assert.equal(t.status, 429);
  });

  it('additional usage raises the cap to the plan maximum; off by default', async () => {
    emu.control.setUsage(DEMO_KEYS.pro, 500);
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.pro })).status, 429);
    const metered = emu.control.provisionKey({ plan: 'pro', additionalUsage: true, used: 998 });
    assert.equal(emu.control.getUsage(metered).cap, 1000);
    assert.equal((await call(emu.url, S, { key: metered })).status, 200);
    assert.equal((await call(emu.url, S, { key: metered })).status, 200);
    assert.equal((await call(emu.url, S, { key: metered })).status, 429);
    const deep = emu.control.provisionKey({ plan: 'deep', additionalUsage: true });
    assert.equal(emu.control.getUsage(deep).cap, 10000);
    assert.throws(() => emu.control.provisionKey({ plan: 'free', additionalUsage: true }), /free/);
    const unlimited = emu.control.provisionKey({ plan: 'enterprise', unlimited: true, used: 5000 });
    assert.equal((await call(emu.url, S, { key: unlimited })).status, 200);
  });

  it('usage resets on the 1st of the month by the emulated clock', async () => {
    emu.control.setUsage(DEMO_KEYS.free, 30);
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.free })).status, 429);
    emu.control.setClock('2026-11-30T23:59:59Z');
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.free })).status, 429);
    emu.control.setClock('2026-12-01T00:00:01Z');
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.free })).status, 200);
    const u = emu.control.getUsage(DEMO_KEYS.free);
    assert.equal(u.used, 1);
    assert.equal(u.resetsOn, '2027-01-01');
  });

  it('setPlan changes the page size cap and the pool', async () => {
    const k = emu.control.provisionKey({ plan: 'free' });
    emu.control.setPlan(k, 'deep');
    const r = await call<{ page_size: number }>(emu.url, `${S}&page_size=700`, { key: k });
    assert.equal(r.body.page_size, 700);
    assert.equal(emu.control.getUsage(k).included, 2000);
  });

  it('per-second limit: 429 with Retry-After: 1 and the exact message; classes are separate', async () => {
    emu.control.setRateLimits(true);
    const k = emu.control.provisionKey({ plan: 'pro' });
    const burst = await Promise.all([1, 2, 3].map(() => call<{ detail: string }>(emu.url, S, { key: k })));
    const limited = burst.filter((r) => r.status === 429);
    assert.equal(burst.filter((r) => r.status === 200).length, 1);
    assert.equal(limited.length, 2);
    for (const r of limited) {
      assert.deepEqual(r.body, { detail: RATE_MESSAGE });
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.equal(emu.control.getUsage(k).used, 1, 'rate-limited requests cost nothing');
    // Listing has its own 1/s budget; polling allows 3/s.
    assert.equal((await call(emu.url, '/v1/threads', { key: k })).status, 200);
    const polls = await Promise.all([1, 2, 3, 4].map(() => call(emu.url, '/v1/threads/th_unknown', { key: k })));
    assert.deepEqual(polls.map((p) => p.status).sort(), [404, 404, 404, 429]);
    // Another key is not affected.
    assert.equal((await call(emu.url, S, { key: DEMO_KEYS.teams })).status, 200);
  });

  it('per-key custom limits (enterprise) and disabling limits', async () => {
    emu.control.setRateLimits(true);
    const k = emu.control.provisionKey({ plan: 'enterprise', rateLimits: { search: 5 } });
    const burst = await Promise.all([1, 2, 3, 4, 5].map(() => call(emu.url, S, { key: k })));
    assert.ok(burst.every((r) => r.status === 200));
    emu.control.setRateLimits(false);
    const free = await Promise.all([1, 2, 3, 4, 5].map(() => call(emu.url, S, { key: DEMO_KEYS.pro })));
    assert.ok(free.every((r) => r.status === 200));
  });
});
