/**
 * Test helpers for the API client: a fake monotonic clock, a capturing logger, builders for
 * response bodies, and a tiny real HTTP server on 127.0.0.1 that records what it receives.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Clock } from '../../../src/api/scheduler';

/** Clock whose sleep returns at once after moving time forward; records every sleep. */
export function fakeClock(): Clock & { sleeps: number[]; t: number } {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw new Error('aborted');
      c.sleeps.push(ms);
      await new Promise((r) => setImmediate(r));
      c.t += Math.max(0, ms);
      if (signal?.aborted) throw new Error('aborted');
    },
  };
  return c;
}

export function captureLogger(): {
  lines: string[];
  debug(m: string): void;
  info(m: string): void;
  warn(m: string): void;
  error(m: string): void;
} {
  const lines: string[] = [];
  const push = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

export function paper(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    abstract: 'An abstract.',
    authors: ['Ada Lovelace', 'Émile Borel'],
    doi: '10.1000/xyz',
    journal_name: 'Journal of Tests',
    pages: '1-10',
    publish_year: 2020,
    title: 'A study',
    url: 'https://example.org/p/1',
    volume: '12',
    citation_count: 3,
    ...over,
  };
}

export function searchBody(
  results: unknown[] = [paper()],
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return { results, page: 0, page_size: 20, is_end: true, next_page: null, ...over };
}

export function dispatchBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    thread_id: 'th_1',
    interaction_id: 'in_1',
    status: 'running',
    mode: 'pro',
    url: 'https://example.org/t/th_1',
    poll_after_seconds: 0,
    max_wait_seconds: 5,
    created_at: new Date().toISOString(),
    title: null,
    ...over,
  };
}

export function threadBody(over: Record<string, unknown> = {}, interactions?: unknown[]): Record<string, unknown> {
  return {
    thread_id: 'th_1',
    title: 'A thread',
    status: 'idle',
    url: 'https://example.org/t/th_1',
    interactions: interactions ?? [
      {
        interaction_id: 'in_1',
        status: 'idle',
        mode: 'pro',
        response: 'Answer [1].',
        citations: [],
        stats: { retrieved: 10, screened: 5, included: 2 },
      },
    ],
    ...over,
  };
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface TestServer {
  url: string;
  seen: Seen[];
  handle(h: Handler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A real HTTP server on 127.0.0.1:0; the handler can be swapped per test. */
export async function startServer(): Promise<TestServer> {
  let handler: Handler = (_q, res) => json(res, 404, { detail: 'no handler' });
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handle: (h) => void (handler = h),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
