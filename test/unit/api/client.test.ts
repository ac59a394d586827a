/**
 * The client over real HTTP against a tiny local server on 127.0.0.1 (not a mocked fetch):
 * auth headers, key hygiene, logging, retries, redirects, timeouts, aborts, proxies,
 * POST reconciliation and waitForThread. Waits use a fake clock (rate limits off), so no
 * assertion depends on real timing.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { inspect } from 'node:util';
import { ApiError, createClient, type Client, type ClientOptions } from '../../../src/api/index';
import { parseBody, ThreadDispatchSchema } from '../../../src/api/schemas';
import {
  captureLogger,
  dispatchBody,
  fakeClock,
  json,
  paper,
  searchBody,
  startServer,
  threadBody,
  type TestServer,
} from './helpers';

const KEY = 'sk-test-9f8e7d6c5b4a';
const OFF = { search: Infinity, list: Infinity, poll: Infinity };

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('api/client over HTTP', function () {
  let server: TestServer;
  let clients: Client[] = [];
  let log: ReturnType<typeof captureLogger>;
  let clock: ReturnType<typeof fakeClock>;

  const make = (o: Partial<ClientOptions> = {}): Client => {
    const c = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      rateLimits: OFF,
      logger: log,
      clock,
      random: () => 0,
      ...o,
    });
    clients.push(c);
    return c;
  };
  const reqs = (method: string, prefix: string) =>
    server.seen.filter((s) => s.method === method && s.url.startsWith(prefix));

  beforeEach(async () => {
    server = await startServer();
    log = captureLogger();
    clock = fakeClock();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
    await server.close();
  });

  describe('authentication and key hygiene', () => {
    it('sends the key only in x-api-key by default, never in the URL', async () => {
      server.handle((_q, res) => json(res, 200, searchBody()));
      await make().search({ query: 'sleep', study_types: ['rct'] });
      const s = server.seen[0]!;
      assert.equal(s.headers['x-api-key'], KEY);
      assert.equal(s.headers.authorization, undefined);
      assert.equal(s.url, '/v1/search?query=sleep&study_types=rct');
      assert.ok(!s.url.includes(KEY));
    });

    it("sends 'Authorization: Bearer' with authScheme bearer, and reads an async key per request", async () => {
      server.handle((_q, res) => json(res, 200, searchBody()));
      let n = 0;
      const c = make({ authScheme: 'bearer', apiKey: () => Promise.resolve(`${KEY}-${++n}`) });
      await c.search({ query: 'a' });
      await c.search({ query: 'b' });
      assert.deepEqual(
        server.seen.map((s) => s.headers.authorization),
        [`Bearer ${KEY}-1`, `Bearer ${KEY}-2`],
      );
      assert.equal(server.seen[0]!.headers['x-api-key'], undefined);
    });

    it('a missing key or an invalid request fails without sending anything', async () => {
      assert.equal(
        (await caught(make({ apiKey: () => Promise.resolve(undefined) }).search({ query: 'x' }))).kind,
        'unauthorized',
      );
      assert.equal((await caught(make({ apiKey: '  ' }).search({ query: 'x' }))).kind, 'unauthorized');
      const v = await caught(make().search({ query: 'x', page: 50, sjr_min: 9 }));
      assert.equal(v.kind, 'validation');
      assert.deepEqual(v.detail?.map((d) => d.loc.join('.')).sort(), ['query.page', 'query.sjr_min']);
      assert.equal((await caught(make().createThread({ input_message: '' }))).kind, 'validation');
      assert.equal((await caught(make().getThread('../etc'))).kind, 'validation');
      assert.equal(server.seen.length, 0);
    });

    it('the key never appears in an error message, stack, detail or log line, even when the service echoes it', async () => {
      const echo = `key ${KEY} is wrong`;
      const bodies: [number, unknown][] = [
        [401, { detail: echo }],
        [422, { detail: [{ loc: ['query', KEY], msg: echo, type: 'value_error' }] }],
        [500, { detail: echo }],
        [429, { detail: `Too many requests for ${KEY}` }],
        [403, echo],
      ];
      for (const [status, body] of bodies) {
        server.handle((_q, res) =>
          typeof body === 'string' ? res.writeHead(status).end(body) : json(res, status, body),
        );
        const e = await caught(make({ maxRetries: 0 }).search({ query: 'x' }));
        for (const text of [e.message, e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e.detail ?? [])])
          assert.ok(!text.includes(KEY), `${status}: ${text}`);
        assert.match(e.message, /\[redacted\]/);
      }
      const net = await caught(
        make({ baseUrl: 'http://127.0.0.1:1', maxRetries: 0 }).search({ query: KEY.slice(0, 3) }),
      );
      assert.equal(net.kind, 'network');
      assert.ok(!inspect(net).includes(KEY));
      assert.ok(log.lines.length > 0);
      for (const line of log.lines) assert.ok(!line.includes(KEY), line);
    });
  });

  describe('search and logging', () => {
    it('returns the parsed page and logs method, path with query, status, duration and calls charged', async () => {
      const { volume: _v, ...noVolume } = paper();
      server.handle((_q, res) =>
        json(res, 200, searchBody([...Array.from({ length: 149 }, () => paper()), noVolume], { page_size: 150 })),
      );
      const r = await make().search({ query: 'sleep memory', page_size: 150 });
      assert.equal(r.results.length, 150);
      assert.equal(r.results[149]!.volume, undefined);
      const line = log.lines.find((l) => l.includes('GET /v1/search?query=sleep%20memory&page_size=150 200'));
      assert.ok(line, log.lines.join('\n'));
      assert.match(line, / \d+ms results=150 charged=2/);
      assert.ok(
        log.lines.some((l) => /lack spec-required fields.*volume ×1/.test(l)),
        'gap logged',
      );
    });

    it('logs through a logger whose methods live on its prototype (like a LogOutputChannel)', async () => {
      server.handle((_q, res) => json(res, 200, searchBody()));
      class Channel {
        lines: string[] = [];
        debug(m: string) {
          this.lines.push(m);
        }
        info(m: string) {
          this.lines.push(m);
        }
        warn(m: string) {
          this.lines.push(m);
        }
        error(m: string) {
          this.lines.push(m);
        }
      }
      const ch = new Channel();
      await make({ logger: ch }).search({ query: 'x' });
      assert.equal(ch.lines.length, 1);
      assert.match(ch.lines[0]!, /^GET \/v1\/search\?query=x 200 \d+ms results=1 charged=1$/);
    });

    it('quickSearch calls /v1/quick_search and warns once per client naming the removal date', async () => {
      server.handle((_q, res) => json(res, 200, searchBody()));
      const c = make();
      await c.quickSearch({ query: 'a' });
      await c.quickSearch({ query: 'b' });
      assert.equal(reqs('GET', '/v1/quick_search').length, 2);
      const warns = log.lines.filter((l) => l.startsWith('warn') && l.includes('deprecated'));
      assert.equal(warns.length, 1);
      assert.match(warns[0]!, /2027-02-07.*\/v1\/search/);
    });

    it('getThread and listThreads send the right query parameters', async () => {
      server.handle((req, res) =>
        json(
          res,
          200,
          req.url!.startsWith('/v1/threads?') ? { threads: [], has_more: false } : threadBody({ trace: 'log' }),
        ),
      );
      const c = make();
      const t = await c.getThread('th_1', { includeTrace: true, interactionId: 'in_0' });
      assert.equal(t.trace, 'log');
      await c.listThreads({ query: 'vitamin d', limit: 5, offset: 10 });
      assert.deepEqual(
        server.seen.map((s) => s.url),
        ['/v1/threads/th_1?include_trace=true&interaction_id=in_0', '/v1/threads?query=vitamin%20d&limit=5&offset=10'],
      );
    });

    it('a non-JSON or wrongly shaped 200 is invalid_response', async () => {
      server.handle((_q, res) => res.writeHead(200).end('<html>'));
      assert.equal((await caught(make().search({ query: 'x' }))).kind, 'invalid_response');
      server.handle((_q, res) => json(res, 200, { papers: [] }));
      assert.equal((await caught(make().search({ query: 'x' }))).kind, 'invalid_response');
    });
  });

  describe('retries', () => {
    it('retries a free GET (poll, list) after 5xx, at most twice, with backoff', async () => {
      let n = 0;
      server.handle((_q, res) => (++n < 3 ? json(res, 503, { detail: 'busy' }) : json(res, 200, threadBody())));
      await make().getThread('th_1');
      assert.equal(server.seen.length, 3);
      assert.deepEqual(clock.sleeps, [500, 1000]);
      server.seen.length = 0;
      server.handle((_q, res) => json(res, 500, { detail: 'down' }));
      const e = await caught(make().listThreads());
      assert.equal(e.kind, 'server');
      assert.equal(e.mayHaveTakenEffect, false, 'listing spends nothing');
      assert.equal(server.seen.length, 3);
    });

    it('does not retry a search after a 5xx (it may have been charged) and says so', async () => {
      server.handle((_q, res) => json(res, 503, { detail: 'busy' }));
      const e = await caught(make().search({ query: 'x' }));
      assert.equal(e.kind, 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /may already have been charged/);
      assert.equal(server.seen.length, 1);
      assert.deepEqual(clock.sleeps, []);
    });

    it('retries a per-second 429 honouring Retry-After; never a monthly 429 or 401/402/403/409/422', async () => {
      let n = 0;
      server.handle((_q, res) =>
        ++n === 1
          ? json(res, 429, { detail: 'Too many requests. Slow down to the published rate.' }, { 'retry-after': '1' })
          : json(res, 200, searchBody()),
      );
      await make().search({ query: 'x' });
      assert.equal(server.seen.length, 2);
      assert.deepEqual(clock.sleeps, [1000]);
      const cases: [number, unknown, string][] = [
        [
          429,
          { detail: 'You have used all included calls for this month. Your usage resets on 2026-12-01.' },
          'quota_exhausted',
        ],
        [401, { detail: 'Invalid key.' }, 'unauthorized'],
        [402, { detail: 'Billing past due.' }, 'payment_required'],
        [403, { detail: 'Excerpts need a paid plan.', code: 'feature_not_allowed' }, 'feature_not_allowed'],
        [409, { detail: 'Running.' }, 'conflict'],
        [422, { detail: [{ loc: ['query', 'page'], msg: 'bad', type: 'x' }] }, 'validation'],
      ];
      for (const [status, body, kind] of cases) {
        server.seen.length = 0;
        server.handle((_q, res) => json(res, status, body, { 'retry-after': '1' }));
        const e = await caught(make().search({ query: 'x' }));
        assert.equal(e.kind, kind);
        assert.equal(server.seen.length, 1, `${status} not retried`);
        if (kind === 'quota_exhausted') assert.equal(e.resetDate, '2026-12-01');
      }
    });

    it('ignores a Retry-After beyond 60 s and uses its own backoff', async () => {
      let n = 0;
      server.handle((_q, res) =>
        ++n === 1
          ? json(res, 429, { detail: 'Too many requests.' }, { 'retry-after': '3600' })
          : json(res, 200, searchBody()),
      );
      await make().search({ query: 'x' });
      assert.deepEqual(clock.sleeps, [500]);
    });

    it('a dropped connection on a GET is a network error, retried', async () => {
      let n = 0;
      server.handle((req, res) => (++n < 3 ? req.socket.destroy() : json(res, 200, threadBody())));
      await make().getThread('th_1');
      assert.equal(server.seen.length, 3);
    });
  });

  describe('transport', () => {
    it('does not follow a redirect, so the key never reaches another origin', async () => {
      const other = await startServer();
      try {
        other.handle((_q, res) => json(res, 200, searchBody()));
        server.handle((_q, res) => res.writeHead(302, { location: `${other.url}/v1/search?query=x` }).end());
        const e = await caught(make().search({ query: 'x' }));
        assert.equal(e.kind, 'invalid_response');
        assert.match(e.message, /redirect/);
        assert.equal(other.seen.length, 0);
        assert.equal(server.seen.length, 1);
      } finally {
        await other.close();
      }
    });

    it('per-attempt timeout → timeout (a GET timeout is not retried); caller abort → aborted', async () => {
      server.handle(() => {}); // never answers
      const e = await caught(make({ timeoutMs: 100 }).search({ query: 'x' }));
      assert.equal(e.kind, 'timeout');
      assert.equal(server.seen.length, 1);
      const ac = new AbortController();
      server.handle(() => ac.abort());
      assert.equal((await caught(make().getThread('th_1', { signal: ac.signal }))).kind, 'aborted');
      assert.equal((await caught(make().listThreads({ signal: AbortSignal.abort() }))).kind, 'aborted');
    });

    it('a request queued behind the rate limit can be aborted before it is sent', async () => {
      server.handle((_q, res) => json(res, 200, { threads: [], has_more: false }));
      const c = make({ rateLimits: { list: 1 }, clock: undefined });
      await c.listThreads();
      const ac = new AbortController();
      const p = c.listThreads({ signal: ac.signal });
      ac.abort();
      assert.equal((await caught(p)).kind, 'aborted');
      assert.equal(server.seen.length, 1);
    });

    it('honours an explicit proxy, and HTTP_PROXY / NO_PROXY from the environment', async () => {
      let tunnels = 0;
      const proxy = createServer((_q, res) => res.writeHead(405).end());
      const sockets = new Set<Socket>();
      proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
        tunnels++;
        const [host, port] = (req.url ?? '').split(':');
        const up = connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          up.write(head);
          up.pipe(client).pipe(up);
        });
        sockets.add(up).add(client);
        up.on('error', () => client.destroy());
        client.on('error', () => up.destroy());
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
      try {
        server.handle((_q, res) => json(res, 200, searchBody()));
        await make({ proxy: proxyUrl }).search({ query: 'x' });
        assert.equal(tunnels, 1);
        process.env.HTTP_PROXY = proxyUrl;
        delete process.env.NO_PROXY;
        await make().search({ query: 'x' });
        assert.equal(tunnels, 2);
        process.env.NO_PROXY = '127.0.0.1';
        await make().search({ query: 'x' });
        assert.equal(tunnels, 2);
        assert.equal(server.seen.length, 3);
        assert.equal(server.seen[0]!.headers['x-api-key'], KEY);
      } finally {
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        await Promise.all(clients.map((c) => c.close()));
        clients = [];
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => proxy.close(() => r()));
      }
    });
  });

  describe('POST reconciliation', () => {
    /** A small thread service; `fault` decides what happens to each POST. */
    function threadService(
      fault: (
        n: number,
      ) => 'ok' | 'after' | 'before' | 'drop-after' | 'hang-after' | 'garbled-after' | 'reshaped-after',
    ) {
      const threads = new Map<
        string,
        {
          preview: string;
          last: string;
          interactions: { interaction_id: string; status: 'running' | 'idle'; mode: 'pro' }[];
        }
      >();
      let posts = 0;
      let failList = false;
      server.handle((req: IncomingMessage, res: ServerResponse, raw: string) => {
        const url = req.url ?? '';
        if (req.method === 'POST') {
          const mode = fault(++posts);
          if (mode === 'before') return json(res, 500, { detail: 'Internal error.' });
          const body = JSON.parse(raw) as { input_message: string };
          const m = /^\/v1\/threads\/([^/]+)\/interactions$/.exec(url);
          const id = m ? m[1]! : `th_${threads.size + 1}`;
          // A generated preview, unlike the brief (as the service may write it).
          const t = threads.get(id) ?? {
            preview: `Summary of a question (${body.input_message.length} characters)`,
            last: '',
            interactions: [],
          };
          const iid = `in_${id}_${t.interactions.length + 1}`;
          t.interactions.forEach((i) => (i.status = 'idle'));
          t.interactions.push({ interaction_id: iid, status: 'running', mode: 'pro' });
          t.last = new Date().toISOString();
          threads.set(id, t);
          if (mode === 'after') return json(res, 502, { detail: 'Bad gateway.' });
          if (mode === 'drop-after') return req.socket.destroy();
          if (mode === 'hang-after') return;
          if (mode === 'reshaped-after')
            return json(res, 200, { data: dispatchBody({ thread_id: id, interaction_id: iid }) });
          if (mode === 'garbled-after')
            return res.writeHead(200, { 'content-type': 'application/json' }).end('{"thread_id": "th_');
          return json(res, 200, dispatchBody({ thread_id: id, interaction_id: iid }));
        }
        if (url.startsWith('/v1/threads?')) {
          if (failList) return json(res, 500, { detail: 'list down' });
          const list = [...threads].reverse().map(([id, t]) => ({
            thread_id: id,
            title: 'T',
            url: 'u',
            status: 'running',
            preview: t.preview,
            interaction_count: t.interactions.length,
            last_activity_at: t.last,
          }));
          return json(res, 200, { threads: list, has_more: false });
        }
        const id = /^\/v1\/threads\/([^/?]+)/.exec(url)?.[1] ?? '';
        const t = threads.get(id);
        if (!t) return json(res, 404, { detail: 'Thread not found.' });
        return json(res, 200, threadBody({ thread_id: id, status: t.interactions.at(-1)!.status }, t.interactions));
      });
      return { threads, posts: () => posts, failList: () => void (failList = true) };
    }
    const MSG = 'Does creatine improve short-term memory in healthy adults?';

    it('create: 5xx after the thread was created → list + poll, return it, no second POST', async () => {
      const svc = threadService(() => 'after');
      const d = await make().createThread({ input_message: MSG });
      assert.equal(d.reconciled, true);
      assert.equal(d.thread_id, 'th_1');
      assert.equal(d.interaction_id, 'in_th_1_1');
      assert.equal(svc.posts(), 1);
      assert.equal(svc.threads.size, 1);
      assert.equal(reqs('GET', '/v1/threads?').length, 2, 'listed before sending and after the failure');
      assert.equal(reqs('GET', '/v1/threads/th_1').length, 1);
    });

    it('create: dropped connection after creation → reconciled, no duplicate', async () => {
      const svc = threadService(() => 'drop-after');
      const d = await make().createThread({ input_message: MSG, mode: 'pro' });
      assert.equal(d.reconciled, true);
      assert.equal(svc.posts(), 1);
    });

    it('create: timeout after the thread was created → reconciled, no duplicate', async () => {
      const svc = threadService(() => 'hang-after');
      const d = await make({ timeoutMs: 200 }).createThread({ input_message: MSG });
      assert.equal(d.reconciled, true);
      assert.equal(svc.posts(), 1);
    });

    it('create: a 200 with an unreadable body took effect → reconciled, never sent again', async () => {
      const svc = threadService(() => 'garbled-after');
      const d = await make().createThread({ input_message: MSG });
      assert.equal(d.reconciled, true);
      assert.equal(d.thread_id, 'th_1');
      assert.equal(svc.posts(), 1);
    });

    it('create: a 200 of a changed shape took effect → reconciled, never sent again', async () => {
      const svc = threadService(() => 'reshaped-after');
      const d = await make().createThread({ input_message: MSG });
      assert.equal(d.reconciled, true);
      assert.equal(svc.posts(), 1);
    });

    it('create: 5xx before anything happened, other new threads listed → still positively absent, one retry', async () => {
      const svc = threadService((n) => (n === 3 ? 'before' : 'ok'));
      const c = make();
      await c.createThread({ input_message: 'Another question entirely about caffeine and sleep' });
      await c.createThread({ input_message: 'A third question about exercise and mood in adolescents' });
      const d = await c.createThread({ input_message: MSG });
      assert.equal(d.reconciled, false);
      assert.equal(svc.posts(), 4);
      assert.equal(svc.threads.size, 3);
    });

    it('create: 5xx before anything happened → positively absent → exactly one retry', async () => {
      const svc = threadService((n) => (n === 1 ? 'before' : 'ok'));
      const d = await make().createThread({ input_message: MSG });
      assert.equal(d.reconciled, false);
      assert.equal(svc.posts(), 2);
      assert.equal(svc.threads.size, 1);
    });

    it('create: when it cannot tell, it says so and does not retry', async () => {
      const svc = threadService(() => 'before');
      svc.failList();
      const e = await caught(make().createThread({ input_message: MSG }));
      assert.equal(e.kind, 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /may have been created: check the threads list/);
      assert.equal(svc.posts(), 1);
    });

    it('create: absent twice → one retry only, then an uncertain error', async () => {
      const svc = threadService(() => 'before');
      const e = await caught(make().createThread({ input_message: MSG }));
      assert.equal(e.kind, 'server');
      assert.equal(svc.posts(), 2);
    });

    it('follow-up: snapshot, 5xx after it took effect → reconciled with the new interaction, one POST', async () => {
      const svc = threadService((n) => (n === 1 ? 'ok' : 'after'));
      const first = await make().createThread({ input_message: MSG });
      svc.threads.get(first.thread_id)!.interactions[0]!.status = 'idle';
      const d = await make().addInteraction(first.thread_id, { input_message: 'And in older adults?' });
      assert.equal(d.reconciled, true);
      assert.equal(d.interaction_id, 'in_th_1_2');
      assert.equal(svc.posts(), 2);
      assert.equal(svc.threads.get('th_1')!.interactions.length, 2);
    });

    it('follow-up: 409 is a conflict, not reconciled or retried', async () => {
      server.handle((req, res) =>
        req.method === 'POST'
          ? json(res, 409, { detail: 'Still running.' })
          : json(res, 200, threadBody({ status: 'running' })),
      );
      const e = await caught(make().addInteraction('th_1', { input_message: 'More?' }));
      assert.equal(e.kind, 'conflict');
      assert.equal(reqs('POST', '/v1/threads').length, 1);
      assert.equal(reqs('GET', '/v1/threads').length, 1); // only the snapshot
    });
  });

  describe('waitForThread', () => {
    it('polls until idle, calling onUpdate, honouring poll_after_seconds from the dispatch', async () => {
      let n = 0;
      server.handle((_q, res) => json(res, 200, threadBody({ status: ++n < 3 ? 'running' : 'idle' })));
      const updates: string[] = [];
      const dispatch = parseBody(
        ThreadDispatchSchema,
        dispatchBody({ poll_after_seconds: 2, max_wait_seconds: 60 }),
        'test',
      );
      const t = await make().waitForThread(dispatch, { onUpdate: (x) => updates.push(x.status) });
      assert.equal(t.status, 'idle');
      assert.deepEqual(updates, ['running', 'running', 'idle']);
      assert.deepEqual(clock.sleeps, [2000, 2000]);
    });

    it('given a dispatch, an idle thread that does not show the new interaction yet is not final', async () => {
      let n = 0;
      const old = [{ interaction_id: 'in_1', status: 'idle', mode: 'pro' }];
      server.handle((_q, res) =>
        json(
          res,
          200,
          ++n === 1
            ? threadBody({ status: 'idle' }, old)
            : threadBody({ status: 'idle' }, [...old, { interaction_id: 'in_2', status: 'idle', mode: 'pro' }]),
        ),
      );
      const dispatch = parseBody(
        ThreadDispatchSchema,
        dispatchBody({ interaction_id: 'in_2', poll_after_seconds: 1 }),
        'test',
      );
      const t = await make().waitForThread(dispatch);
      assert.equal(t.interactions.length, 2);
      assert.equal(server.seen.length, 2);
    });

    it("returns a failed thread; a pollAfterSeconds option of 0 is bounded to 0.1 s, a dispatch's 0 to 1 s", async () => {
      let n = 0;
      server.handle((_q, res) => json(res, 200, threadBody({ status: ++n % 2 ? 'running' : 'failed' })));
      const t = await make().waitForThread('th_1', { pollAfterSeconds: 0 });
      assert.equal(t.status, 'failed');
      assert.deepEqual(clock.sleeps, [100]);
      const stored = {
        ...parseBody(ThreadDispatchSchema, dispatchBody(), 'test'),
        poll_after_seconds: -1,
        max_wait_seconds: Number.NaN,
      };
      await make().waitForThread(stored);
      assert.deepEqual(clock.sleeps, [100, 1000], 'a dispatch that did not come through the parser is bounded too');
    });

    it('keeps polling through a transient failure (after the GET retries), stops on a real one', async () => {
      let n = 0;
      server.handle((_q, res) =>
        ++n <= 3 ? json(res, 503, { detail: 'busy' }) : json(res, 200, threadBody({ status: 'idle' })),
      );
      const t = await make().waitForThread('th_1', { pollAfterSeconds: 1 });
      assert.equal(t.status, 'idle');
      assert.equal(server.seen.length, 4);
      assert.ok(log.lines.some((l) => /poll failed \(server\); polling on/.test(l)));
      server.handle((_q, res) => json(res, 404, { detail: 'Thread not found.' }));
      assert.equal((await caught(make().waitForThread('th_1', { pollAfterSeconds: 1 }))).kind, 'not_found');
    });

    it('throws timeout after max_wait, saying the thread keeps running on the service', async () => {
      server.handle((_q, res) => json(res, 200, threadBody({ status: 'running' })));
      const e = await caught(make().waitForThread('th_1', { pollAfterSeconds: 30, maxWaitSeconds: 100 }));
      assert.equal(e.kind, 'timeout');
      assert.equal(e.threadId, 'th_1');
      assert.match(e.message, /still running after 100 s.*keeps running on the service/);
      assert.equal(server.seen.length, 5); // t = 0, 30, 60, 90, 100
    });

    it('can be aborted while waiting', async () => {
      const ac = new AbortController();
      server.handle((_q, res) => {
        json(res, 200, threadBody({ status: 'running' }));
        ac.abort();
      });
      const e = await caught(make().waitForThread('th_1', { signal: ac.signal, pollAfterSeconds: 1 }));
      assert.equal(e.kind, 'aborted');
    });
  });
});
