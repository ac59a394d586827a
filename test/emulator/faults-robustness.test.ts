// Fault injection, the HTTP control API, and robustness against hostile clients.
import { strict as assert } from 'node:assert';
import * as net from 'node:net';
import { DEMO_KEYS, encodeKey, KEY_ENCODINGS, startEmulator, type RunningEmulator } from './index';
import { call } from './testHelpers';

/** Send raw bytes and collect whatever comes back until the socket closes (or a short timeout). */
function raw(
  url: string,
  payload: string | Buffer,
  opts: { endAfterWrite?: boolean; waitMs?: number } = {},
): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(u.port), u.hostname);
    let out = '';
    const done = (): void => {
      s.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, opts.waitMs ?? 300);
    s.on('data', (d) => (out += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.on('connect', () => {
      s.write(payload);
      if (opts.endAfterWrite) s.end();
    });
  });
}

describe('emulator: faults and robustness', function () {
  let emu: RunningEmulator;
  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({
      port: 0,
      rateLimits: false,
      speed: 1000,
      controlApi: true,
      now: '2026-11-20T10:00:00Z',
    });
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());

  const S = '/v1/search?query=sleep';
  const key = DEMO_KEYS.pro;

  it('status_before: 5xx without effect; status_after: thread created and then 5xx', async () => {
    emu.control.injectFault({ route: 'create_thread', kind: 'status_before', status: 503 });
    const a = await call<{ code: string }>(emu.url, '/v1/threads', {
      key,
      body: { input_message: 'sleep and memory' },
    });
    assert.equal(a.status, 503);
    assert.equal(a.body.code, 'service_unavailable');
    assert.equal(emu.control.threads(key).length, 0);

    // A run long enough to still be running when listed, and not charged before the search below, on a loaded machine.
    emu.control.setRunOutcome({ durationMs: 600_000 });
    emu.control.injectFault({ route: 'create_thread', kind: 'status_after' });
    const b = await call(emu.url, '/v1/threads', { key, body: { input_message: 'sleep and memory' } });
    assert.equal(b.status, 500);
    assert.equal(emu.control.threads(key).length, 1, 'the thread exists although the client saw a 500');
    const listed = await call<{ threads: { title: string; preview: string }[] }>(emu.url, '/v1/threads', { key });
    assert.match(listed.body.threads[0]!.title, /sleep and memory/i);
    assert.notEqual(listed.body.threads[0]!.title, 'Sleep and memory', 'a generated title');
    assert.equal(
      listed.body.threads[0]!.preview,
      'Looking into sleep and memory',
      'a running thread: a rephrasing, not the brief',
    );

    emu.control.injectFault({ route: 'search', kind: 'status_after', status: 502 });
    assert.equal((await call(emu.url, S, { key })).status, 502);
    assert.equal(emu.control.getUsage(key).used, 1, 'the search was charged');
    const log = emu.control.requests().filter((e) => e.route === 'search');
    assert.deepEqual(
      log.map((e) => [e.status, e.charged, e.fault]),
      [[502, 1, 'status_after']],
    );
    assert.equal((await call(emu.url, S, { key })).status, 200, 'faults apply once by default');
  });

  it('hostile answers: hints, echo_key, nested_loc, body, duplicate_ids (before or without any charge)', async () => {
    emu.control.injectFault({ route: 'create_thread', kind: 'hints', pollAfterSeconds: -5, maxWaitSeconds: 1e9 });
    const d = await call<{ thread_id: string; poll_after_seconds: number; max_wait_seconds: number }>(
      emu.url,
      '/v1/threads',
      { key, body: { input_message: 'sleep and memory' } },
    );
    assert.deepEqual([d.status, d.body.poll_after_seconds, d.body.max_wait_seconds], [200, -5, 1e9]);
    assert.equal(emu.control.threads(key).length, 1, 'the thread was created as usual');

    emu.control.injectFault({ route: 'search', kind: 'echo_key' });
    const e = await call<{ detail: { loc: string[]; msg: string; type: string }[]; code: string }>(emu.url, S, { key });
    assert.equal(e.status, 422);
    const forms = KEY_ENCODINGS.map((f) => encodeKey(key, f));
    assert.deepEqual(
      e.body.detail.map((i) => i.loc[1]),
      forms,
    );
    assert.ok(e.body.detail.every((i, n) => i.type === forms[n] && i.msg.includes(forms[n])));
    assert.equal(e.body.code, key);
    assert.ok(forms.includes('%' + [...Buffer.from(key)].map((b) => b.toString(16).toUpperCase()).join('%')));
    assert.ok(e.text.includes('\\\\u0064\\\\u0065'), 'json_u: literal backslash-u escapes inside the string');
    emu.control.injectFault({ route: 'list_threads', kind: 'echo_key', status: 401, encoding: 'upper' });
    const u = await call<{ detail: string; code: string }>(emu.url, '/v1/threads', { key });
    assert.deepEqual([u.status, u.body.code], [401, key.toUpperCase()]);
    assert.match(u.body.detail, new RegExp(key.toUpperCase()));

    emu.control.injectFault({ route: 'search', kind: 'nested_loc', depth: 50_000 });
    const n = await call(emu.url, S, { key });
    assert.equal(n.status, 422);
    assert.ok(n.text.startsWith(`{"detail":[{"loc":${'['.repeat(1000)}`));
    assert.equal(n.text.length, 50_000 * 2 + 79, 'the nesting as asked');

    emu.control.injectFault({
      route: 'search',
      kind: 'body',
      status: 403,
      body: { detail: '[Renew](command:workbench.action.quit)', code: 'x' },
    });
    const b = await call<{ detail: string }>(emu.url, S, { key });
    assert.deepEqual([b.status, b.body.detail], [403, '[Renew](command:workbench.action.quit)']);

    emu.control.injectFault({ route: 'list_threads', kind: 'duplicate_ids' });
    const l = await call<{ threads: { thread_id: string }[] }>(emu.url, '/v1/threads', { key });
    assert.deepEqual(
      l.body.threads.map((t) => t.thread_id),
      [d.body.thread_id, d.body.thread_id],
    );
    emu.control.completeRuns();
    assert.deepEqual(
      emu.control.charges().map((c) => c.reason),
      ['thread'],
      'only the thread run; no search was charged',
    );
  });

  it('oversize: the search is charged, then a chunked 200 without Content-Length is streamed as the client reads, until it goes away', async function () {
    this.timeout(10_000);
    emu.control.injectFault({ route: 'search', kind: 'oversize', bytes: 64 * 1024 * 1024 });
    const res = await fetch(`${emu.url}${S}`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const reader = res.body!.getReader();
    let got = 0;
    while (got < 3 * 1024 * 1024) got += (await reader.read()).value?.length ?? 0;
    await reader.cancel();
    assert.equal(emu.control.getUsage(key).used, 1, 'charged before the body');
    const all = await (await fetch(`${emu.url}${S}`, { headers: { 'x-api-key': key } })).text();
    assert.ok(all.length < 1e6, 'the fault applied once');
  });

  it('times, delay, and clearFaults', async () => {
    emu.control.injectFault({ route: 'search', kind: 'status_before', status: 500, times: 2 });
    assert.equal((await call(emu.url, S, { key })).status, 500);
    assert.equal((await call(emu.url, S, { key })).status, 500);
    assert.equal((await call(emu.url, S, { key })).status, 200);
    emu.control.injectFault({ route: 'get_thread', kind: 'status_before', times: Infinity });
    emu.control.clearFaults();
    assert.equal((await call(emu.url, '/v1/threads/th_x', { key })).status, 404);
    emu.control.injectFault({ route: 'list_threads', kind: 'delay', delayMs: 30 });
    const r = await call(emu.url, '/v1/threads', { key });
    assert.equal(r.status, 200);
    assert.equal(emu.control.requests().at(-1)!.fault, 'delay');
  });

  it('reset destroys the connection (before or after the effect)', async () => {
    emu.control.injectFault({ route: 'search', kind: 'reset' });
    await assert.rejects(fetch(`${emu.url}${S}`, { headers: { 'x-api-key': key } }));
    assert.equal(emu.control.getUsage(key).used, 0);
    emu.control.injectFault({ route: 'create_thread', kind: 'reset', afterEffect: true });
    await assert.rejects(
      fetch(`${emu.url}/v1/threads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ input_message: 'coffee and liver disease' }),
      }),
    );
    assert.equal(emu.control.threads(key).length, 1);
  });

  it('truncated, malformed and schema-changed bodies', async () => {
    emu.control.injectFault({ route: 'search', kind: 'truncated' });
    await assert.rejects(async () => {
      const res = await fetch(`${emu.url}${S}`, { headers: { 'x-api-key': key } });
      await res.text();
    });
    emu.control.injectFault({ route: 'search', kind: 'malformed' });
    const m = await call(emu.url, S, { key });
    assert.equal(m.status, 200);
    assert.throws(() => JSON.parse(m.text) as unknown);
    emu.control.injectFault({ route: 'get_thread', kind: 'schema' });
    const d = await call<{ thread_id: string }>(emu.url, '/v1/threads', { key, body: { input_message: 'coffee' } });
    const s = await call<Record<string, unknown>>(emu.url, `/v1/threads/${d.body.thread_id}`, { key });
    assert.equal(s.status, 200);
    assert.ok(!('thread_id' in s.body) && !('interactions' in s.body), 'valid JSON of another shape');
  });

  it('the HTTP control API works when enabled and is absent otherwise', async () => {
    const post = (name: string, args: unknown[]) =>
      call<{ result: unknown }>(emu.url, `/_emulator/${name}`, { body: args });
    assert.equal((await post('setClock', ['2027-03-01T00:00:00Z'])).status, 200);
    assert.equal((await call<{ result: string }>(emu.url, '/_emulator/now')).body.result.slice(0, 10), '2027-03-01');
    const k = (await post('provisionKey', [{ plan: 'teams' }])).body.result as string;
    assert.equal((await post('setUsage', [k, 7])).status, 200);
    const u = (await post('getUsage', [k])).body.result as { used: number; plan: string };
    assert.deepEqual([u.plan, u.used], ['teams', 7]);
    assert.equal((await post('injectFault', [{ route: 'search', kind: 'status_before', status: 504 }])).status, 200);
    assert.equal((await call(emu.url, S, { key: k })).status, 504);
    const reqs = (await call<{ result: { path: string }[] }>(emu.url, '/_emulator/requests')).body.result;
    assert.ok(reqs.some((e) => e.path === '/v1/search'));
    assert.equal((await post('nope', [])).status, 404);
    assert.equal((await post('setPlan', [k, 'gold'])).status, 400);
    const closed = await startEmulator({ port: 0, rateLimits: false });
    try {
      assert.equal((await call(closed.url, '/_emulator/now')).status, 404);
    } finally {
      await closed.close();
    }
  });

  it('unknown routes are 404 JSON; wrong methods 405; HEAD and OPTIONS do not crash', async () => {
    const nf = await call<{ detail: string; code: string }>(emu.url, '/v2/search', { key });
    assert.equal(nf.status, 404);
    assert.equal(nf.body.code, 'not_found');
    assert.equal((await call(emu.url, '/', { key })).status, 404);
    const m = await call(emu.url, '/v1/search', { key, method: 'DELETE' });
    assert.equal(m.status, 405);
    assert.equal(m.headers.get('allow'), 'GET');
    assert.equal((await call(emu.url, S, { key, method: 'HEAD' })).status, 405);
    assert.equal((await call(emu.url, S, { key, method: 'OPTIONS' })).status, 405);
  });

  it('rejects bodies over 1 MB with 413', async () => {
    const r = await call<{ code: string }>(emu.url, '/v1/threads', {
      key,
      rawBody: JSON.stringify({ input_message: 'x'.repeat(1_100_000) }),
    });
    assert.equal(r.status, 413);
    assert.equal(r.body.code, 'payload_too_large');
  });

  it('survives a batch of hostile requests and still answers', async function () {
    this.timeout(20_000);
    const hostile: Promise<unknown>[] = [];
    const paths = [
      '/v1/search?query=%E0%A4%A',
      '/v1/search?query=%',
      '/v1/threads/%ZZ',
      '/v1/threads/%2e%2e%2f',
      '/v1/search?query=\u0000',
      `/v1/search?query=${'a'.repeat(8000)}`,
      '/v1/search?query=x&page=99999999999999999999',
      '/v1/search?query=x&page_size=-0',
      '/v1/search?query=x&year_min=1e3',
      '/v1/search?query=x&study_types=,,,',
      '/v1/search?query=x&country=,,',
      '/v1/threads?limit=1&limit=2&offset=NaN',
      '/v1/search?query=💡🧪&domain=',
      '/v1/threads/th_x?interaction_id=%00',
      '/v1/search?query=x&query=&query=y',
      '//v1//search',
      '/v1/threads/a/b/c/d',
    ];
    for (const p of paths) hostile.push(call(emu.url, p, { key }).catch(() => undefined));
    const bodies = [
      'null',
      '[]',
      '"string"',
      '1e999',
      '{"input_message": {"$ne": 1}}',
      '{"input_message": "x", "filters": []}',
      '{"input_message": "x", "filters": {"year_min": "abc", "human": "maybe", "study_types": 5}}',
      '{"input_message": "x", "attachments": {"paper_ids": "abc"}}',
      '{"input_message": "x", "attachments": {"paper_ids": [null, 1]}}',
      '{"__proto__": {"polluted": true}, "input_message": "x"}',
      '{"input_message": "\\ud800"}',
      '\u0000\u0001',
      '{'.repeat(5000),
    ];
    for (const b of bodies) {
      hostile.push(call(emu.url, '/v1/threads', { key, rawBody: b }).catch(() => undefined));
      hostile.push(call(emu.url, '/v1/threads/th_abc/interactions', { key, rawBody: b }).catch(() => undefined));
    }
    hostile.push(
      call(emu.url, '/v1/threads', {
        key,
        rawBody: '{"input_message":"x"}',
        headers: { 'content-type': 'text/plain' },
      }),
    );
    hostile.push(call(emu.url, S, { headers: { 'x-api-key': '\u00ff\u00fe' } }).catch(() => undefined));
    hostile.push(call(emu.url, S, { headers: { authorization: 'Bearer' } }).catch(() => undefined));
    // Raw sockets: garbage, a truncated body, a lying Content-Length, a slow half request.
    hostile.push(raw(emu.url, 'GARBAGE\r\n\r\n'));
    hostile.push(
      raw(
        emu.url,
        `POST /v1/threads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Length: 100\r\n\r\n{"input_mes`,
        { endAfterWrite: true },
      ),
    );
    hostile.push(
      raw(emu.url, `POST /v1/threads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Length: 5000000\r\n\r\n{}`),
    );
    hostile.push(raw(emu.url, 'GET /v1/search?query=x HTTP/1.1\r\nHost: x\r\n'));
    hostile.push(
      raw(
        emu.url,
        `GET /v1/search?query=x HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      ),
    );
    hostile.push(raw(emu.url, Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x01])));
    const results = await Promise.all(hostile);
    const statuses = results
      .filter((r): r is { status: number } => typeof r === 'object' && r !== null && 'status' in r)
      .map((r) => r.status);
    assert.ok(
      statuses.every((s) => s < 500),
      `no 5xx from hostile input: ${statuses.join(',')}`,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    const ok = await call<{ results: unknown[] }>(emu.url, S, { key });
    assert.equal(ok.status, 200);
    assert.ok(ok.body.results.length > 0);
  });
});
