// Small helpers shared by the emulator's own tests (real HTTP with node's fetch).
import { strict as assert } from 'node:assert';

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = Record<string, unknown>>(
  base: string,
  path: string,
  opts: {
    key?: string;
    bearer?: string;
    method?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key !== undefined) headers['x-api-key'] = opts.key;
  if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, {
    method: opts.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function qs(params: Record<string, string | number | boolean | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.set(k, String(v));
  return u.toString();
}

export interface SearchBody {
  results: Record<string, unknown>[];
  page: number;
  page_size: number;
  is_end: boolean;
  next_page: number | null;
}

export interface DetailItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The `loc[1]` field names of a 422 body. */
export function locFields(body: unknown): string[] {
  const d = (body as { detail: DetailItem[] }).detail;
  assert.ok(Array.isArray(d), '422 detail must be an array');
  for (const item of d) {
    assert.ok(
      Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string',
      'each item has loc, msg, type',
    );
  }
  return d.map((i) => String(i.loc[i.loc[0] === 'body' && i.loc[1] === 'filters' ? 2 : 1]));
}

export const paperIdOf = (url: unknown): string => {
  const m = /\/papers\/[^/]+\/([0-9a-f]+)\/?$/.exec(String(url));
  assert.ok(m, `paper url has an id: ${String(url)}`);
  return m[1]!;
};

export const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));
