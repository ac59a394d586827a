/**
 * Shared harness for the integration tests: one emulator per test file (real HTTP on 127.0.0.1,
 * port 0, a fixed emulated clock), clients wired to it with a capturing logger, and a record of
 * every logged line and every error text so that a file can assert at the end that no key ever
 * appeared in any of them.
 */
import { strict as assert } from 'node:assert';
import { Agent, type Dispatcher } from 'undici';
import { ApiError, createClient, type ApiErrorKind, type Client, type ClientOptions } from '../../src/api';
import {
  DEMO_KEYS,
  startEmulator,
  type EmulatorOptions,
  type ProvisionOptions,
  type RunningEmulator,
} from '../emulator';

/** The emulated start time used by every file (a Friday in November 2026). */
export const NOW = '2026-11-20T10:00:00Z';

/** Client rate limits out of the way (the emulator's are off too, except where a test turns them on). */
export const NO_LIMITS = { search: Infinity, list: Infinity, poll: Infinity } as const;

export interface Harness {
  emu: RunningEmulator;
  /** Every line logged by every client of this harness, as `level message`. */
  lines: string[];
  /** Every error message and stack seen by `expectError` / `settle`. */
  texts: string[];
  /** A client on the emulator (pro key, no client rate limits, the emulated clock, capturing logger). */
  client(options?: Partial<ClientOptions>): Client;
  /** Provision a fresh key (its own account, so thread lists are isolated) and remember it as a secret. */
  provision(options: ProvisionOptions): string;
  /** Await a rejection, check it is an ApiError of `kind`, and record its text for the leak check. */
  expectError(p: Promise<unknown>, kind: ApiErrorKind): Promise<ApiError>;
  /** Fail if any key appears in a log line, error text, or anything the emulator received besides the auth header. */
  assertNoKeyLeaked(): void;
  close(): Promise<void>;
}

export async function startHarness(options: EmulatorOptions = {}): Promise<Harness> {
  const emu = await startEmulator({ port: 0, rateLimits: false, now: NOW, quiet: true, ...options });
  const lines: string[] = [];
  const texts: string[] = [];
  const secrets = new Set<string>(Object.values(DEMO_KEYS));
  const clients: Client[] = [];
  const dispatchers: Dispatcher[] = [];
  const logger = {
    debug: (m: string) => void lines.push(`debug ${m}`),
    info: (m: string) => void lines.push(`info ${m}`),
    warn: (m: string) => void lines.push(`warn ${m}`),
    error: (m: string) => void lines.push(`error ${m}`),
  };
  const record = (e: unknown): void => {
    if (e instanceof Error) texts.push(e.message, e.stack ?? '');
    if (e instanceof ApiError && e.detail) texts.push(JSON.stringify(e.detail));
  };

  return {
    emu,
    lines,
    texts,
    client(o = {}) {
      const c = createClient({
        baseUrl: emu.url,
        apiKey: DEMO_KEYS.pro,
        rateLimits: NO_LIMITS,
        logger,
        now: () => emu.control.now(),
        ...o,
      });
      clients.push(c);
      if (o.dispatcher) dispatchers.push(o.dispatcher);
      return c;
    },
    provision(o) {
      const key = emu.control.provisionKey(o);
      secrets.add(key);
      return key;
    },
    async expectError(p, kind) {
      let caught: unknown;
      try {
        await p;
      } catch (e) {
        caught = e;
      }
      record(caught);
      assert.ok(
        caught instanceof ApiError,
        `expected an ApiError of kind ${kind}, got ${caught === undefined ? 'success' : caught instanceof Error ? caught.message : typeof caught}`,
      );
      assert.equal(caught.kind, kind, `kind (message: ${caught.message})`);
      assert.ok(caught.message.length > 20, 'a message a person can act on');
      return caught;
    },
    assertNoKeyLeaked() {
      // The emulator logs the query it received; a key in the URL would show up there.
      const received = JSON.stringify(emu.control.requests().map((r) => ({ path: r.path, query: r.query })));
      for (const key of secrets) {
        for (const line of lines)
          assert.ok(!line.includes(key), `a log line contains a key: ${line.replace(key, '<KEY>')}`);
        for (const t of texts) assert.ok(!t.includes(key), 'an error message or stack contains a key');
        assert.ok(!received.includes(key), 'a key reached the service outside its header');
      }
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all(dispatchers.map((d) => d.close()));
      await emu.close();
    },
  };
}

/**
 * A dispatcher that changes each request on the way out (path, headers, body): a stand-in for a
 * service rule the client cannot know about, or for a proxy that drops a header. The client
 * still builds and sends the request and maps the answer itself.
 */
export function intercepting(change: (opts: Dispatcher.DispatchOptions) => Dispatcher.DispatchOptions): Dispatcher {
  return new Agent().compose((dispatch) => (opts, handler) => dispatch(change(opts), handler));
}

/** Paper id of a result URL (`…/papers/<slug>/<id>/`). */
export function paperId(url: string | null | undefined): string {
  const m = /\/papers\/[^/]+\/([0-9a-f]+)\/?$/.exec(String(url));
  assert.ok(m, `paper url has an id: ${String(url)}`);
  return m[1]!;
}

export const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));
