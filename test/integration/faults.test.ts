// 5xx, dropped connections, unreadable bodies, timeouts, aborts and a closed port, driven through
// the client against the emulator's fault injection over real HTTP. Free GETs are retried; a
// search is retried only when it provably never reached the service; thread POSTs are never
// blindly repeated: the client finds out whether they took effect.
import { strict as assert } from 'node:assert';
import { connect, createServer, type Socket } from 'node:net';
import { ApiError, createClient, type Client, type ThreadDispatch } from '../../src/api';
import { DEMO_KEYS } from '../emulator';
import { intercepting, startHarness, type Harness } from './harness';

const MSG = 'Does creatine supplementation improve memory in vegetarians?';

/**
 * A TCP relay in front of the emulator that holds what the client sends for `delayMs` before
 * passing it on, and still passes it on when the client has given up (a slow network or a busy
 * service: the request is in flight when the client's timeout fires).
 */
async function slowRelay(
  target: string,
  delayMs: number,
): Promise<{ origin: string; answered(): boolean; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let answers = 0;
  const server = createServer((down) => {
    const up = connect(Number(port), hostname);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    down.on('data', (chunk) => void setTimeout(() => up.write(chunk), delayMs));
    down.on('close', () => void setTimeout(() => up.end(), delayMs + 1000));
    up.on('data', (chunk) => {
      answers++;
      if (!down.destroyed) down.write(chunk);
    });
    up.on('close', () => down.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port: p } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${p}`,
    answered: () => answers > 0,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

describe('integration: faults, retries and POST reconciliation', function () {
  this.timeout(30_000);
  let h: Harness;
  let client: Client;
  let key: string;
  const ctl = () => h.emu.control;
  const statuses = (route: string) =>
    ctl()
      .requests()
      .filter((r) => r.route === route)
      .map((r) => r.status);

  before(async function () {
    this.timeout(60_000);
    h = await startHarness({ speed: 500 });
  });
  beforeEach(() => {
    ctl().reset();
    ctl().setSpeed(500);
    key = h.provision({ plan: 'pro', label: 'faults' });
    // random = 1: the shortest jittered backoff (375 ms, then 750 ms) keeps the file fast.
    client = h.client({ apiKey: key, random: () => 1 });
  });
  after(async () => {
    h.assertNoKeyLeaked();
    await h.close();
  });

  describe('5xx on GETs: free ones retried (at most twice); a search, which may have been charged, not', () => {
    it('search: a 503 is not retried (the client cannot tell it from one after charging); the error says it may have cost a call', async () => {
      ctl().injectFault({ route: 'search', kind: 'status_before', status: 503 });
      const e = await h.expectError(client.search({ query: 'sleep' }), 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.deepEqual(statuses('search'), [503]);
      assert.equal(ctl().charges().length, 0);
      assert.ok(
        h.lines.some((l) => /^warn GET \/v1\/search\?query=sleep 503 \d+ms$/.test(l)),
        h.lines.join('\n'),
      );
    });

    it('getThread and listThreads: two 5xx in a row → third attempt succeeds', async () => {
      const d = await client.createThread({ input_message: MSG });
      ctl().clearRequests();
      ctl().injectFault({ route: 'get_thread', kind: 'status_before', status: 502, times: 2 });
      ctl().injectFault({ route: 'list_threads', kind: 'status_before', status: 504, times: 2 });
      assert.equal((await client.getThread(d.thread_id)).thread_id, d.thread_id);
      assert.deepEqual(statuses('get_thread'), [502, 502, 200]);
      assert.equal((await client.listThreads()).threads.length, 1);
      assert.deepEqual(statuses('list_threads'), [504, 504, 200]);
    });

    it('a 5xx that persists on a free GET: kind server with the status after 1 + 2 attempts', async () => {
      ctl().injectFault({ route: 'list_threads', kind: 'status_before', status: 503, times: 5 });
      const e = await h.expectError(client.listThreads(), 'server');
      assert.equal(e.status, 503);
      assert.equal(e.mayHaveTakenEffect, false);
      assert.match(e.message, /503/);
      assert.deepEqual(statuses('list_threads'), [503, 503, 503]);
      assert.equal(ctl().charges().length, 0);
    });
  });

  describe('5xx and dropped connections on thread POSTs: reconciled, never duplicated', () => {
    it('create_thread: 500 after the thread was created → the client lists and polls, and returns that thread (one POST, one thread)', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'status_after', status: 500 });
      const d = await client.createThread({ input_message: MSG, mode: 'pro' });
      const threads = ctl().threads(key);
      assert.equal(threads.length, 1, 'no duplicate');
      assert.equal(d.thread_id, threads[0]!.threadId);
      assert.equal(d.reconciled, true);
      assert.equal(d.status, 'running');
      assert.equal(d.mode, 'pro');
      assert.deepEqual(statuses('create_thread'), [500]);
      assert.ok(
        statuses('list_threads').length >= 1 && statuses('get_thread').length >= 1,
        'it looked before deciding',
      );
      // The reconciled dispatch is usable: waiting on it reaches the answer. (Without an earlier
      // dispatch this client has seen no polling hint, so the reconciled one carries the spec's 30 s.)
      assert.equal(d.poll_after_seconds, 30);
      const t = await client.waitForThread(d, { maxWaitSeconds: 20, pollAfterSeconds: 0 });
      assert.equal(t.status, 'idle');
      assert.equal(t.interactions[0]!.interaction_id, d.interaction_id);
    });

    it('create_thread: connection reset after the thread was created → reconciled, one thread', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'reset', afterEffect: true });
      const d = await client.createThread({ input_message: MSG });
      assert.deepEqual(
        ctl()
          .threads(key)
          .map((t) => t.threadId),
        [d.thread_id],
      );
      assert.equal(d.reconciled, true);
      assert.equal(statuses('create_thread').length, 1);
    });

    it('create_thread: 503 before anything happened → the client establishes nothing was created, sends once more, one thread', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'status_before', status: 503 });
      const d = await client.createThread({ input_message: MSG });
      assert.deepEqual(statuses('create_thread'), [503, 200]);
      assert.deepEqual(
        ctl()
          .threads(key)
          .map((t) => t.threadId),
        [d.thread_id],
      );
      assert.equal(d.reconciled, false);
      assert.ok(h.lines.some((l) => /positively not created; sending once more/.test(l)));
    });

    it('create_thread: 503 twice → one retry only, then a server error saying it may have been created; no thread exists', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'status_before', status: 503, times: 2 });
      const e = await h.expectError(client.createThread({ input_message: MSG }), 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /check the threads list/);
      assert.deepEqual(statuses('create_thread'), [503, 503]);
      assert.deepEqual(ctl().threads(key), []);
    });

    it('create_thread: when the list cannot be read either, it says so and does not send again', async () => {
      ctl().injectFault({ route: 'create_thread', kind: 'status_before', status: 502 });
      ctl().injectFault({ route: 'list_threads', kind: 'status_before', status: 503, times: 3 });
      const e = await h.expectError(client.createThread({ input_message: MSG }), 'server');
      assert.equal(e.mayHaveTakenEffect, true);
      assert.match(e.message, /could not tell/);
      assert.deepEqual(statuses('create_thread'), [502]);
      assert.ok(ctl().threads(key).length <= 1);
    });

    it('add_interaction: connection reset after the follow-up started → reconciled to the new interaction, no duplicate', async () => {
      const first = await client.createThread({ input_message: MSG });
      ctl().completeRuns();
      ctl().injectFault({ route: 'add_interaction', kind: 'reset', afterEffect: true });
      const d = await client.addInteraction(first.thread_id, { input_message: 'And in older adults?' });
      assert.equal(d.reconciled, true);
      assert.equal(statuses('add_interaction').length, 1, 'one POST');
      assert.equal(ctl().threads(key)[0]!.interactions, 2, 'exactly one follow-up');
      const t = await client.getThread(first.thread_id);
      assert.deepEqual(
        t.interactions.map((i) => i.interaction_id),
        [first.interaction_id, d.interaction_id],
      );
      assert.equal(d.status, 'running');
    });

    it('add_interaction: 500 after it took effect → reconciled; 503 before → sent once more; either way one new interaction each', async () => {
      const first = await client.createThread({ input_message: MSG });
      ctl().completeRuns();
      ctl().injectFault({ route: 'add_interaction', kind: 'status_after' });
      const a = await client.addInteraction(first.thread_id, { input_message: 'What about dose?' });
      assert.equal(a.reconciled, true);
      ctl().completeRuns();
      ctl().injectFault({ route: 'add_interaction', kind: 'status_before' });
      const b = await client.addInteraction(first.thread_id, { input_message: 'What about timing?' });
      assert.equal(b.reconciled, false);
      assert.deepEqual(statuses('add_interaction'), [500, 503, 200]);
      const t = await client.getThread(first.thread_id);
      assert.deepEqual(
        t.interactions.map((i) => i.interaction_id),
        [first.interaction_id, a.interaction_id, b.interaction_id],
      );
    });
    // After a TIMEOUT the request may still be on its way or being processed: a threads list
    // without it proves nothing, so the client must not send it again.
    it('create_thread: a timeout while the request is still in flight does not lead to a duplicate', async function () {
      this.timeout(15_000);
      const relay = await slowRelay(h.emu.url, 2500);
      try {
        let first = true;
        const c = h.client({
          apiKey: key,
          timeoutMs: 300,
          // Only the first POST goes through the slow relay; everything else goes straight to the emulator.
          dispatcher: intercepting((o) => {
            if (o.method !== 'POST' || !first) return o;
            first = false;
            return { ...o, origin: relay.origin };
          }),
        });
        let outcome: string;
        try {
          outcome = `returned ${(await c.createThread({ input_message: MSG })).thread_id}`;
        } catch (e) {
          assert.ok(e instanceof ApiError);
          h.texts.push(e.message);
          outcome = `failed: ${e.kind}, mayHaveTakenEffect ${String(e.mayHaveTakenEffect)}`;
        }
        // Let the held request reach the emulator and be answered (into the void).
        const deadline = Date.now() + 8000;
        while (Date.now() < deadline && !relay.answered()) await new Promise((r) => setTimeout(r, 100));
        const threads = ctl().threads(key);
        assert.ok(
          threads.length <= 1,
          `${threads.length} threads were created for one createThread call (client ${outcome}; create_thread requests: ${statuses('create_thread').join(', ')})`,
        );
        assert.equal(statuses('create_thread').length, 1, 'the POST was sent once');
        assert.match(outcome, /^failed: timeout, mayHaveTakenEffect true$|^returned /);
      } finally {
        await relay.close();
      }
    });
  });

  describe('unreadable bodies → invalid_response', () => {
    it('search: malformed JSON and a changed schema are invalid_response, not retried', async () => {
      for (const kind of ['malformed', 'schema'] as const) {
        ctl().clearRequests();
        ctl().injectFault({ route: 'search', kind });
        const e = await h.expectError(client.search({ query: 'sleep' }), 'invalid_response');
        assert.match(e.message, kind === 'malformed' ? /not JSON/ : /expected shape \(results/);
        assert.equal(statuses('search').length, 1, `${kind}: not retried`);
      }
    });

    it('getThread and listThreads: a changed schema is invalid_response', async () => {
      const d = await client.createThread({ input_message: MSG });
      ctl().injectFault({ route: 'get_thread', kind: 'schema' });
      ctl().injectFault({ route: 'list_threads', kind: 'malformed' });
      await h.expectError(client.getThread(d.thread_id), 'invalid_response');
      await h.expectError(client.listThreads(), 'invalid_response');
    });

    it('a truncated body (connection closed mid-body) is a network failure: a poll is retried and succeeds; a search, already charged, is not', async () => {
      const d = await client.createThread({ input_message: MSG });
      ctl().injectFault({ route: 'get_thread', kind: 'truncated' });
      assert.equal((await client.getThread(d.thread_id)).thread_id, d.thread_id);
      assert.deepEqual(statuses('get_thread'), [200, 200]);
      ctl().clearRequests();
      ctl().injectFault({ route: 'search', kind: 'truncated', times: 3 });
      const e = await h.expectError(client.search({ query: 'sleep' }), 'network');
      assert.equal(statuses('search').length, 1, 'not sent again');
      assert.equal(
        ctl()
          .charges()
          .filter((c) => c.reason === 'search').length,
        1,
      );
      assert.equal(e.status, undefined);
      assert.equal(e.mayHaveTakenEffect, true);
    });

    /** A create_thread whose 200 answer cannot be read: never a duplicate, and the user learns the thread exists. */
    async function unreadableCreate(kind: 'malformed' | 'truncated' | 'schema'): Promise<void> {
      const k = h.provision({ plan: 'pro', label: `unreadable-${kind}` });
      const c = h.client({ apiKey: k, random: () => 1 });
      ctl().injectFault({ route: 'create_thread', kind });
      let d: ThreadDispatch | undefined;
      let err: ApiError | undefined;
      try {
        d = await c.createThread({ input_message: MSG });
      } catch (e) {
        assert.ok(e instanceof ApiError);
        h.texts.push(e.message);
        err = e;
      }
      const threads = ctl().threads(k);
      assert.equal(threads.length, 1, `${kind}: the POST took effect once`);
      assert.equal(
        ctl()
          .requests()
          .filter((r) => r.route === 'create_thread' && r.keyLabel === `unreadable-${kind}`).length,
        1,
        `${kind}: one POST`,
      );
      if (d) assert.equal(d.thread_id, threads[0]!.threadId, `${kind}: returns the created thread`);
      else
        assert.equal(
          err?.mayHaveTakenEffect,
          true,
          `${kind}: the error must say the thread may exist (got "${err?.message ?? ''}")`,
        );
    }

    it('create_thread: a 200 with a malformed or truncated body → reconciled to the created thread, no duplicate', async () => {
      await unreadableCreate('malformed');
      await unreadableCreate('truncated');
    });

    // A 200 whose JSON has another shape took effect: the user must learn the thread exists.
    it('create_thread: a 200 with a changed schema → the user learns the thread exists', async () => {
      await unreadableCreate('schema');
    });
  });

  describe('timeouts, aborts, unreachable service', () => {
    it('an answer slower than the per-attempt timeout → timeout (a GET timeout is not retried: a slow search may have been charged)', async () => {
      const slow = h.client({ apiKey: key, timeoutMs: 200 });
      ctl().injectFault({ route: 'search', kind: 'delay', delayMs: 2500 });
      const e = await h.expectError(slow.search({ query: 'sleep' }), 'timeout');
      assert.equal(e.status, undefined);
      assert.match(e.message, /No answer from the service within 200 ms/);
      ctl().injectFault({ route: 'get_thread', kind: 'delay', delayMs: 2500 });
      await h.expectError(slow.getThread('th_missing'), 'timeout');
      assert.equal(
        ctl()
          .requests()
          .filter((r) => r.route === 'get_thread').length <= 1,
        true,
      );
    });

    it('abort: before sending (nothing sent), while in flight, and while waiting for a thread', async () => {
      const early = new AbortController();
      early.abort();
      await h.expectError(client.search({ query: 'sleep' }, { signal: early.signal }), 'aborted');
      assert.equal(ctl().requests().length, 0, 'nothing sent');

      ctl().injectFault({ route: 'search', kind: 'delay', delayMs: 2000 });
      const mid = new AbortController();
      const p = client.search({ query: 'sleep' }, { signal: mid.signal });
      setTimeout(() => mid.abort(), 100);
      await h.expectError(p, 'aborted');

      ctl().setSpeed(1);
      const d = await client.createThread({ input_message: MSG });
      const wait = new AbortController();
      const w = client.waitForThread(d, { signal: wait.signal, pollAfterSeconds: 1 });
      setTimeout(() => wait.abort(), 200);
      const e = await h.expectError(w, 'aborted');
      assert.equal(e.threadId, d.thread_id);
      assert.match(e.message, /keeps running/);
    });

    it('a closed port → network, retried for GETs, naming the address but never the key', async () => {
      const port = await new Promise<number>((ok) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const { port: p } = s.address() as { port: number };
          s.close(() => ok(p));
        });
      });
      const logs: string[] = [];
      const push = (m: string) => void logs.push(m);
      const c = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: DEMO_KEYS.pro,
        random: () => 1,
        logger: { debug: push, info: push, warn: push, error: push },
      });
      try {
        const e = await h.expectError(c.search({ query: 'sleep' }), 'network');
        assert.equal(e.status, undefined);
        assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
        assert.equal(logs.filter((l) => /retry \d/.test(l)).length, 2, 'retried twice');
        for (const l of logs) assert.ok(!l.includes(DEMO_KEYS.pro));
        // A POST that could not connect was never sent: it cannot have created anything, and the error says so.
        const once = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: DEMO_KEYS.pro, maxRetries: 0 });
        const p = await h.expectError(once.createThread({ input_message: MSG }), 'network');
        assert.equal(p.mayHaveTakenEffect, false);
        assert.match(p.message, /nothing was sent/);
        await once.close();
      } finally {
        await c.close();
      }
    });
  });
});
