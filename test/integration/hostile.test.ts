// The client against a hostile or careless service: odd but legal answers, faults after the call
// was charged, endless chunked bodies, keys echoed back in every encoding, deeply nested JSON,
// Markdown links in service text, duplicate thread ids and absurd polling hints. Each test counts
// what the emulator charged and received, checks the error's kind and that no field of any error
// carries the key, and bounds memory and time where a naive client would not.
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { Agent } from 'undici';
import { ApiError, createClient, type Client } from '../../src/api';
import { KEY_ENCODINGS, type RouteName } from '../emulator';
import { startHarness, type Harness } from './harness';
import { VSCODE_LINK } from '../vscodeLinks';

const MSG = 'Does creatine supplementation improve memory in vegetarians?';

/** Every text an error carries: message, stack, code, detail items and the inspected object. */
function errorTexts(e: ApiError): string[] {
  const detail = (e.detail ?? []).flatMap((d) => [d.msg, d.type, ...d.loc.map(String)]);
  return [e.message, e.stack ?? '', e.code ?? '', ...detail, inspect(e, { depth: 4 })];
}

/**
 * The text with every encoding a key could hide in undone (percent escapes, `\uXXXX`, HTML numeric
 * entities, base64 runs at each alignment) and folded to lower case: a key found in it was leaked.
 */
function decodedForms(text: string): string[] {
  const pct = text.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  const ju = text.replace(/\\u([0-9a-f]{4})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  const html = text.replace(/&#(\d+);/g, (_m, d: string) => String.fromCharCode(Number(d)));
  const b64 = [...text.matchAll(/[A-Za-z0-9+/]{12,}={0,2}/g)].flatMap((m) =>
    [0, 1, 2, 3].map((o) => Buffer.from(m[0].slice(o), 'base64').toString('latin1')),
  );
  return [text, pct, ju, html, ...b64].map((t) => t.toLowerCase());
}

function assertNoKey(e: ApiError, key: string, what: string): void {
  for (const t of errorTexts(e))
    for (const form of decodedForms(t))
      assert.ok(!form.includes(key.toLowerCase()), `${what}: the key survives in ${JSON.stringify(t.slice(0, 200))}`);
}

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('integration: a hostile service', function () {
  this.timeout(60_000);
  let h: Harness;
  let client: Client;
  let key: string;
  const ctl = () => h.emu.control;
  const sent = (route: RouteName) =>
    ctl()
      .requests()
      .filter((r) => r.route === route);
  const charged = () =>
    ctl()
      .charges()
      .filter((c) => c.reason !== 'thread')
      .reduce((n, c) => n + c.calls, 0);

  before(async function () {
    this.timeout(60_000);
    h = await startHarness({ speed: 500 });
  });
  beforeEach(() => {
    ctl().reset();
    ctl().setSpeed(500);
    key = h.provision({ plan: 'pro', label: 'hostile' });
    client = h.client({ apiKey: key, random: () => 1 });
  });
  after(async () => {
    h.assertNoKeyLeaked();
    await h.close();
  });

  describe('money: a search that may have been charged is never sent again by itself', () => {
    const afterEffect: [string, Parameters<Harness['emu']['control']['injectFault']>[0], string][] = [
      ['a 500 after charging', { route: 'search', kind: 'status_after', status: 500 }, 'server'],
      ['a 502 after charging', { route: 'search', kind: 'status_after', status: 502 }, 'server'],
      ['a connection reset after charging', { route: 'search', kind: 'reset', afterEffect: true }, 'network'],
      ['a truncated body after charging', { route: 'search', kind: 'truncated' }, 'network'],
      ['an unreadable body after charging', { route: 'search', kind: 'malformed' }, 'invalid_response'],
    ];
    for (const [what, fault, kind] of afterEffect) {
      it(`${what}: one request, one call charged, ${kind}, mayHaveTakenEffect and a message saying it may have cost a call`, async () => {
        ctl().injectFault({ ...fault, times: 5 });
        const e = await h.expectError(client.search({ query: 'sleep' }), kind as ApiError['kind']);
        assert.equal(sent('search').length, 1, 'sent once');
        assert.equal(charged(), 1, 'one call spent, not three');
        assert.equal(e.mayHaveTakenEffect, true);
        assert.match(e.message, /may (already )?have (been charged|cost)/);
      });
    }

    it('quick_search: the same rule (a 5xx after charging is not retried)', async () => {
      ctl().injectFault({ route: 'quick_search', kind: 'status_after', status: 503, times: 3 });
      const e = await h.expectError(client.quickSearch({ query: 'sleep' }), 'server');
      assert.equal(sent('quick_search').length, 1);
      assert.equal(charged(), 1);
      assert.equal(e.mayHaveTakenEffect, true);
    });

    it('a 5xx the client cannot tell from one after charging is not retried either; nothing was charged here', async () => {
      ctl().injectFault({ route: 'search', kind: 'status_before', status: 503, times: 3 });
      const e = await h.expectError(client.search({ query: 'sleep' }), 'server');
      assert.equal(sent('search').length, 1);
      assert.equal(charged(), 0);
      assert.equal(e.mayHaveTakenEffect, true, 'the client cannot know, so it says it may have cost a call');
    });

    it('the per-second 429 (rejected before anything) is retried: one call charged in the end', async () => {
      ctl().setRateLimits({ search: 1 });
      try {
        await client.search({ query: 'sleep' });
        const r = await client.search({ query: 'caffeine' });
        assert.ok(r.results.length > 0);
        assert.deepEqual(
          sent('search').map((x) => x.status),
          [200, 429, 200],
        );
        assert.equal(charged(), 2);
      } finally {
        ctl().setRateLimits(false);
      }
    });

    it('connection refused (nothing sent): a search and a thread POST are retried, then fail saying nothing was sent', async () => {
      const port = await new Promise<number>((ok) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const { port: p } = s.address() as { port: number };
          s.close(() => ok(p));
        });
      });
      const lines: string[] = [];
      const push = (m: string) => void lines.push(m);
      const c = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: key,
        random: () => 1,
        logger: { debug: push, info: push, warn: push, error: push },
      });
      try {
        const s = await h.expectError(c.search({ query: 'sleep' }), 'network');
        assert.equal(s.mayHaveTakenEffect, false);
        assert.equal(lines.filter((l) => /retry \d/.test(l)).length, 2, 'retried twice');
        lines.length = 0;
        const t = await h.expectError(c.createThread({ input_message: MSG }), 'network');
        assert.equal(t.mayHaveTakenEffect, false, 'a POST that never left cannot have created anything');
        assert.match(t.message, /nothing was sent/);
        assert.ok(lines.filter((l) => /POST \/v1\/threads .*retry \d/.test(l)).length === 2, lines.join('\n'));
      } finally {
        await c.close();
      }
    });

    it('polls and lists (free) keep their retries after a 5xx', async () => {
      const d = await client.createThread({ input_message: MSG });
      ctl().clearRequests();
      ctl().injectFault({ route: 'get_thread', kind: 'status_after', status: 500, times: 2 });
      ctl().injectFault({ route: 'list_threads', kind: 'reset', afterEffect: true, times: 2 });
      assert.equal((await client.getThread(d.thread_id)).thread_id, d.thread_id);
      assert.equal((await client.listThreads()).threads.length, 1);
      assert.deepEqual(
        sent('get_thread').map((r) => r.status),
        [500, 500, 200],
      );
      assert.equal(sent('list_threads').length, 3);
    });
  });

  describe('money: a thread is never created twice, whatever the service titles it', () => {
    it('titles and previews unlike the brief; a 500 after creation → that thread is returned, one POST, one thread', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'status_after', status: 500 });
      const d = await client.createThread({ input_message: MSG });
      const threads = ctl().threads(key);
      assert.deepEqual(
        threads.map((t) => t.threadId),
        [d.thread_id],
      );
      assert.ok(
        !threads[0]!.title!.startsWith(MSG.slice(0, 20)),
        `the emulator titles it otherwise: ${threads[0]!.title}`,
      );
      assert.equal(d.reconciled, true);
      assert.equal(sent('create_thread').length, 1);
    });

    it('the list repeats every entry (duplicate thread ids) → still found, one thread', async () => {
      await client.createThread({ input_message: 'An earlier question about sleep and memory.' });
      ctl().injectFault({ route: 'list_threads', kind: 'duplicate_ids', times: 5 });
      ctl().injectFault({ route: 'create_thread', kind: 'reset', afterEffect: true });
      const d = await client.createThread({ input_message: MSG });
      assert.equal(d.reconciled, true);
      assert.equal(ctl().threads(key).length, 2);
      const listed = await client.listThreads();
      assert.equal(listed.threads.length, 4, 'the client passes the duplicates on (the tree dedupes them)');
    });

    it('another window creates a thread meanwhile → the client cannot tell which is its own: it says so and does not resend', async () => {
      let lists = 0;
      const dispatcher = new Agent().compose((dispatch) => (opts, handler) => {
        if (opts.method === 'GET' && opts.path.startsWith('/v1/threads?') && ++lists === 2) {
          // Before the reconciling list reaches the service, "another window" creates a thread.
          void fetch(`${h.emu.url}/v1/threads`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ input_message: 'Another window asks about caffeine.' }),
          })
            .then((r) => r.text())
            .then(() => dispatch(opts, handler));
          return true;
        }
        return dispatch(opts, handler);
      });
      const c = h.client({ apiKey: key, dispatcher });
      ctl().injectFault({ route: 'create_thread', kind: 'status_after', status: 502 });
      const e = await h.expectError(c.createThread({ input_message: MSG }), 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /could not tell whether it took effect \(2 new threads appeared/);
      assert.equal(sent('create_thread').filter((r) => r.status === 502).length, 1, 'our POST was not sent again');
      assert.equal(ctl().threads(key).length, 2, "ours and the other window's, no third");
    });

    it('the list cannot be read before sending → after a 503 nothing is resent (no proof of absence)', async () => {
      ctl().injectFault({ route: 'list_threads', kind: 'status_before', status: 503, times: 3 });
      ctl().injectFault({ route: 'create_thread', kind: 'status_before', status: 503 });
      const e = await h.expectError(client.createThread({ input_message: MSG }), 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /before sending/);
      assert.equal(sent('create_thread').length, 1);
      assert.deepEqual(ctl().threads(key), []);
    });

    it('a 503 before anything happened, with other threads already listed → proved absent → sent once more, one new thread', async () => {
      await client.createThread({ input_message: 'An earlier question about sleep and memory.' });
      ctl().completeRuns();
      ctl().injectFault({ route: 'create_thread', kind: 'status_before', status: 503 });
      const d = await client.createThread({ input_message: MSG });
      assert.equal(d.reconciled, false);
      assert.deepEqual(
        sent('create_thread').map((r) => r.status),
        [200, 503, 200],
      );
      assert.equal(ctl().threads(key).length, 2);
    });
  });

  describe('polling hints', () => {
    it('absurd hints in the dispatch are bounded where they are parsed: poll 1..300 s, max wait 1..3600 s', async () => {
      const cases: [number, number, number, number][] = [
        [0, 0, 1, 1],
        [-30, -5, 1, 1],
        [3e6, 1e9, 300, 3600],
        [30, 600, 30, 600],
      ];
      for (const [poll, maxWait, wantPoll, wantMax] of cases) {
        ctl().injectFault({ route: 'create_thread', kind: 'hints', pollAfterSeconds: poll, maxWaitSeconds: maxWait });
        const d = await client.createThread({ input_message: `${MSG} (${poll})` });
        assert.deepEqual(
          [d.poll_after_seconds, d.max_wait_seconds],
          [wantPoll, wantMax],
          `poll ${poll}, max wait ${maxWait}`,
        );
      }
    });

    it("a dispatch asking to poll every 0 s or every 3×10⁶ s (past setTimeout's range) does not make waitForThread poll in a loop", async function () {
      ctl().setSpeed(1); // a 45 s run: still running while the test watches
      for (const poll of [0, 3e6]) {
        ctl().clearRequests();
        ctl().injectFault({ route: 'create_thread', kind: 'hints', pollAfterSeconds: poll, maxWaitSeconds: 1e9 });
        const d = await client.createThread({ input_message: `${MSG} (${poll})` });
        const ac = new AbortController();
        const waiting = client.waitForThread(d, { signal: ac.signal });
        await new Promise((r) => setTimeout(r, 600));
        ac.abort();
        await h.expectError(waiting, 'aborted');
        assert.ok(
          sent('get_thread').length <= 1,
          `poll_after_seconds ${poll}: ${sent('get_thread').length} polls in 0.6 s`,
        );
      }
    });

    it('waitForThread options are bounded the same way (a huge interval cannot overflow the timer)', async () => {
      ctl().setSpeed(1);
      const d = await client.createThread({ input_message: MSG });
      ctl().clearRequests();
      const ac = new AbortController();
      const waiting = client.waitForThread(d, { signal: ac.signal, pollAfterSeconds: 3e6, maxWaitSeconds: 1e12 });
      await new Promise((r) => setTimeout(r, 600));
      ac.abort();
      await h.expectError(waiting, 'aborted');
      assert.ok(sent('get_thread').length <= 1, `${sent('get_thread').length} polls in 0.6 s`);
    });
  });

  describe('service JSON and text', () => {
    it('a 422 whose loc is nested 100,000 deep: a validation error at once, never network, never retried', async () => {
      for (const route of ['search', 'get_thread', 'list_threads'] as const) {
        ctl().clearRequests();
        ctl().injectFault({ route, kind: 'nested_loc', times: 3 });
        const started = performance.now();
        const p =
          route === 'search'
            ? client.search({ query: 'sleep' })
            : route === 'get_thread'
              ? client.getThread('th_x')
              : client.listThreads();
        const e = await h.expectError(p, 'validation');
        assert.ok(performance.now() - started < 5000, 'bounded time');
        assert.equal(e.status, 422);
        assert.equal(sent(route).length, 1, `${route}: sent once`);
        assert.match(e.message, /nested too deeply|no details/);
      }
    });

    it('a 200 nested too deeply is invalid_response (a search: charged once, not retried)', async () => {
      const deep = {
        results: [],
        page: 0,
        is_end: true,
        extra: JSON.parse(`${'['.repeat(200)}1${']'.repeat(200)}`) as unknown,
      };
      ctl().injectFault({ route: 'search', kind: 'body', status: 200, body: deep });
      const e = await h.expectError(client.search({ query: 'sleep' }), 'invalid_response');
      assert.match(e.message, /nested too deeply/);
      assert.equal(sent('search').length, 1);
    });

    for (const encoding of [...KEY_ENCODINGS, 'all'] as const) {
      it(`the key echoed back (${encoding}) is in no field of any error`, async () => {
        for (const status of [401, 403, 422, 500]) {
          ctl().injectFault({ route: 'search', kind: 'echo_key', status, encoding });
          const e = await caught(client.search({ query: 'sleep' }));
          h.texts.push(...errorTexts(e));
          assertNoKey(e, key, `${encoding} ${status}`);
          assert.match(e.message + (e.code ?? ''), /\[redacted\]/, `${encoding} ${status}: redacted, not dropped`);
          // (A 5xx before any effect is reconciled as absent and sent again, successfully: no error to look at.)
          if (status >= 500) continue;
          ctl().injectFault({ route: 'create_thread', kind: 'echo_key', status, encoding });
          assertNoKey(await caught(client.createThread({ input_message: MSG })), key, `create ${encoding} ${status}`);
        }
        for (const line of h.lines)
          for (const form of decodedForms(line)) assert.ok(!form.includes(key.toLowerCase()), line);
      });
    }

    it('Markdown links in service text ([Renew](command:…), https:, file:) reach no error field as a link', async () => {
      const bodies: [number, unknown][] = [
        [
          422,
          {
            detail: [
              {
                loc: ['query', '[Renew](command:workbench.action.openSettings)'],
                msg: 'Expired: [Renew](command:workbench.action.quit) or [docs](https://evil.example/x "t")',
                type: '[x](file:///etc/passwd)',
              },
            ],
          },
        ],
        [403, { detail: 'Your plan ended. [Upgrade now](https://evil.example/pay)', code: '[c](command:x)' }],
        [500, { detail: '[Open](FILE:///home/me/.ssh/id_rsa) ](command:x) [a]\u0000(command:y)' }],
        [429, { detail: 'You have used all included calls for this month. [Buy more](command:research.buy)' }],
      ];
      for (const [status, body] of bodies) {
        ctl().injectFault({ route: 'search', kind: 'body', status, body });
        const e = await caught(client.search({ query: 'sleep' }));
        for (const t of errorTexts(e))
          assert.equal(t.match(VSCODE_LINK), null, `${status}: a link survives in ${t.slice(0, 300)}`);
        assert.match(e.message, /Renew|Upgrade now|Open|Buy more/, 'the words stay readable');
      }
    });

    it('a 10 MB message and 100,000 detail items are bounded in the error (and quick to handle)', async () => {
      const started = performance.now();
      ctl().injectFault({
        route: 'search',
        kind: 'body',
        status: 500,
        body: { detail: `${'a'.repeat(5_000_000)} ${key} ${'b'.repeat(5_000_000)}` },
      });
      const big = await caught(client.search({ query: 'sleep' }));
      assert.ok(big.message.length < 1000, `message of ${big.message.length} characters`);
      assertNoKey(big, key, 'big');
      const items = Array.from({ length: 100_000 }, (_, i) => ({
        loc: ['query', `f${i}`],
        msg: 'x'.repeat(50),
        type: 't',
      }));
      ctl().injectFault({ route: 'search', kind: 'body', status: 422, body: { detail: items } });
      const many = await caught(client.search({ query: 'sleep' }));
      assert.ok(many.message.length < 2000, `message of ${many.message.length} characters`);
      assert.ok((many.detail?.length ?? 0) <= 100, `${many.detail?.length} detail items kept`);
      assert.match(many.message, /and 99,?9\d\d more/);
      assert.ok(performance.now() - started < 10_000);
    });
  });

  describe('endless bodies', () => {
    it('a chunked 200 of 600 MB without Content-Length: invalid_response, charged once, not retried, memory bounded', async function () {
      this.timeout(120_000);
      ctl().injectFault({ route: 'search', kind: 'oversize', bytes: 600 * 1024 * 1024, times: 3 });
      global.gc?.();
      const rss = process.memoryUsage().rss;
      let peak = rss;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      try {
        const e = await h.expectError(client.search({ query: 'sleep' }), 'invalid_response');
        assert.match(e.message, /too large/);
        assert.equal(e.mayHaveTakenEffect, true);
      } finally {
        clearInterval(timer);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      const growthMb = (peak - rss) / 1024 / 1024;
      assert.ok(growthMb < 200, `memory grew by ${Math.round(growthMb)} MB for a 600 MB body`);
      assert.equal(sent('search').length, 1);
      assert.equal(charged(), 1);
    });
  });
});
