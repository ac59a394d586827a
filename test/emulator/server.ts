// The emulator's HTTP server (node:http only): routing, authentication, the monthly pool,
// per-second rate limits, the endpoints, fault injection and the control interface.
import * as http from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { previewOf, runAgent, titleFrom, type AgentOutput, type Citation } from './agent';
import { mulberry32, type Paper } from './corpus';
import { getEngine, type Hit, SearchEngine } from './engine';
// Types only: the SDK behind ./mcp and ./oauth loads on the first request that needs it.
import type * as Mcp from './mcp';
import type * as OAuth from './oauth';
import { type OAuthGrantInfo, OAuthGrants, type OAuthLifetimes, OAUTH_SCOPES } from './oauthState';
import { MCP_ANONYMOUS_PAGE_SIZE, MCP_PAGE_SIZE, validateMcpSearch } from './mcpTool';
import {
  type ThreadBody,
  type ValidationItem,
  validateGetThread,
  validateList,
  validateSearch,
  validateThreadBody,
  validateThreadId,
} from './validation';

export type Plan = 'free' | 'pro' | 'teams' | 'enterprise' | 'deep';
export const PLANS: Record<Plan, { included: number; max: number; maxPageSize: number }> = {
  free: { included: 30, max: 30, maxPageSize: 10 },
  pro: { included: 500, max: 1000, maxPageSize: 300 },
  teams: { included: 500, max: 1000, maxPageSize: 300 },
  enterprise: { included: 500, max: 1000, maxPageSize: 500 },
  deep: { included: 2000, max: 10000, maxPageSize: 750 },
};
/** Calls charged when a thread run finishes idle (a failed run costs nothing). */
export const THREAD_COST = { pro: 5, deep: 20 } as const;
/** Agent run time at speed 1. */
export const RUN_MS = { pro: 45_000, deep: 180_000 } as const;
const MAX_WAIT_S = { pro: 180, deep: 600 } as const;
export const STATUS_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const QUICK_SEARCH_SUNSET = Date.UTC(2027, 1, 7);
export const BODY_LIMIT = 1024 * 1024;
/** The request and charge logs keep the latest entries only (long demo sessions). */
const LOG_LIMIT = 20_000;

export type DemoKeyName = 'free' | 'pro' | 'teams' | 'enterprise' | 'deep' | 'revoked' | 'pastDue';
/** Keys provisioned in every emulator (and restored by reset()). Not secrets. */
export const DEMO_KEYS: Readonly<Record<DemoKeyName, string>> = {
  free: 'demo-free-key-0000000000000001',
  pro: 'demo-pro-key-00000000000000002',
  teams: 'demo-teams-key-000000000000003',
  enterprise: 'demo-enterprise-key-0000000004',
  deep: 'demo-deep-key-0000000000000005',
  revoked: 'demo-revoked-key-0000000000006',
  pastDue: 'demo-pastdue-key-0000000000007',
};

export const MONTHLY_MESSAGE = (resetsOn: string): string =>
  `You have used all included calls for this month. Your usage resets on ${resetsOn}.`;
export const RATE_MESSAGE = 'Too many requests. Slow down to the published rate.';

export type RouteName = 'search' | 'quick_search' | 'create_thread' | 'get_thread' | 'add_interaction' | 'list_threads';
export type RateClass = 'search' | 'list' | 'poll';
const ROUTE_CLASS: Record<RouteName, RateClass> = {
  search: 'search',
  quick_search: 'search',
  create_thread: 'search',
  add_interaction: 'search',
  list_threads: 'list',
  get_thread: 'poll',
};

export type RateLimitOption = boolean | { search?: number; list?: number; poll?: number };

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** ISO start of the emulated clock (default: real time). */
  now?: string;
  controlApi?: boolean;
  rateLimits?: RateLimitOption;
  speed?: number;
  corpusSize?: number;
  /** Request lines on stdout only when explicitly false (the CLI); code is quiet by default. */
  quiet?: boolean;
  /** Whether /mcp answers requests without credentials (default true, as the spec has it); false: 401 and OAuth. */
  mcpAnonymous?: boolean;
}

/** Forms in which the `echo_key` fault writes the key it received back into its answer. */
export const KEY_ENCODINGS = ['raw', 'upper', 'lower', 'percent', 'json_u', 'base64', 'html'] as const;
export type KeyEncoding = (typeof KEY_ENCODINGS)[number];

export interface FaultSpec {
  route: RouteName;
  kind:
    | 'delay'
    | 'status_before'
    | 'status_after'
    | 'reset'
    | 'truncated'
    | 'malformed'
    | 'schema'
    | 'hints'
    | 'echo_key'
    | 'nested_loc'
    | 'body'
    | 'oversize'
    | 'duplicate_ids';
  status?: number;
  delayMs?: number;
  /** How many matching requests the fault applies to (default 1; Infinity = until cleared). */
  times?: number;
  /** For 'reset': destroy the socket after the request took effect (default false: before). */
  afterEffect?: boolean;
  /** For 'hints': the polling hints written into the dispatch instead of the real ones. */
  pollAfterSeconds?: number;
  maxWaitSeconds?: number;
  /** For 'echo_key': the form of the echoed key (default 'all': every form, in every field). */
  encoding?: KeyEncoding | 'all';
  /** For 'nested_loc': how deeply the `loc` of the 422 is nested (default 100,000). */
  depth?: number;
  /**
   * For 'body': the JSON answered with `status` (default 422) before any effect. For 'status_before' and
   * 'status_after': the JSON body to answer instead of the standard error body (e.g. a 422 whose `msg` or `loc`
   * carries hostile text, or a 200 list naming one thread twice).
   */
  body?: unknown;
  /** For 'oversize': bytes of the chunked 200 body (default 600 MiB). */
  bytes?: number;
}

/** The key in one of the forms a careless service could echo it in. */
export function encodeKey(key: string, encoding: KeyEncoding): string {
  const bytes = [...Buffer.from(key, 'utf8')];
  switch (encoding) {
    case 'raw':
      return key;
    case 'upper':
      return key.toUpperCase();
    case 'lower':
      return key.toLowerCase();
    case 'percent':
      return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    case 'json_u':
      return [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    case 'base64':
      // As in an echoed Basic credential: the key does not start on a base64 group boundary.
      return `Basic ${Buffer.from(`apikey:${key}`).toString('base64')}`;
    case 'html':
      return bytes.map((b) => `&#${b};`).join('');
  }
}

export interface ProvisionOptions {
  plan: Plan;
  additionalUsage?: boolean;
  used?: number;
  status?: 'active' | 'revoked' | 'pastDue';
  /** Enterprise "unlimited access": never refused by the monthly pool. */
  unlimited?: boolean;
  /** Enterprise custom page size maximum. */
  maxPageSize?: number;
  /** Per-key custom per-second limits (enterprise). */
  rateLimits?: { search?: number; list?: number; poll?: number };
  /** A label for the request log (never the key). */
  label?: string;
}

export interface UsageInfo {
  plan: Plan;
  used: number;
  included: number;
  cap: number;
  resetsOn: string;
  additionalUsage: boolean;
  unlimited: boolean;
}

/** One JSON-RPC message of a POST to /mcp, as the request log shows it. */
export interface McpRpcLogEntry {
  /** `initialize`, `notifications/initialized`, `tools/list`, `tools/call`, ... (or `invalid` for a non-request). */
  method: string;
  /** The JSON-RPC id (absent for notifications). */
  id?: string | number;
  /** tools/call: the tool's name and its arguments as sent. */
  tool?: string;
  arguments?: unknown;
  /** tools/call of `search`: whether the result was a tool error, and its text. */
  isError?: boolean;
  error?: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  route: RouteName | 'mcp' | 'oauth' | 'control' | 'unknown';
  /** Plan of the key, or 'none' | 'invalid' | 'revoked' | 'pastDue' — never the key itself. */
  keyKind: string;
  /** Label of the key ('demo:pro', 'key#3', ...) — never the key itself. */
  keyLabel: string | null;
  /** `bearer`: an API key as a bearer token; `oauth`: an access token the emulator issued (/mcp only). */
  auth: 'x-api-key' | 'bearer' | 'oauth' | 'none';
  status: number;
  charged: number;
  fault: FaultSpec['kind'] | null;
  /** /mcp only: the JSON-RPC messages of the POST. */
  rpc?: McpRpcLogEntry[];
}

export interface ChargeEntry {
  at: string;
  keyLabel: string;
  reason: 'search' | 'quick_search' | 'thread' | 'mcp';
  calls: number;
  threadId?: string;
  interactionId?: string;
}

export interface RunOutcomeOptions {
  outcome?: 'idle' | 'failed';
  /** Run time in ms of emulated time (already speed-independent). */
  durationMs?: number;
  /** Apply to the running (or next) interaction of this thread; otherwise to the next dispatched runs. */
  threadId?: string;
  times?: number;
}

export interface EmulatorControl {
  now(): Date;
  setClock(iso: string | Date): void;
  advance(ms: number): void;
  setSpeed(speed: number): void;
  setRateLimits(limits: RateLimitOption): void;
  setPlan(key: string, plan: Plan): void;
  setUsage(key: string, used: number): void;
  getUsage(key: string): UsageInfo;
  setAdditionalUsage(key: string, on: boolean): void;
  setKeyStatus(key: string, status: 'active' | 'revoked' | 'pastDue'): void;
  provisionKey(opts: ProvisionOptions): string;
  injectFault(fault: FaultSpec): void;
  clearFaults(): void;
  failNextRun(threadId?: string): void;
  setRunOutcome(opts: RunOutcomeOptions): void;
  /** Forget the run outcomes set for threads not created yet (a test's leftovers would shape the next test's run). */
  clearRunOutcomes(): void;
  /** Finish every running interaction now (by its planned outcome). */
  completeRuns(): void;
  requests(): RequestLogEntry[];
  charges(): ChargeEntry[];
  clearRequests(): void;
  /**
   * Thread ids per key label (for assertions such as "no duplicate thread was created"), with the planned length of the
   * latest run (`runMs`).
   */
  threads(
    key?: string,
  ): { threadId: string; title: string | null; interactions: number; status: string; runMs: number }[];
  corpus(): readonly Paper[];
  paper(id: string): Paper | undefined;
  /** Whether /mcp serves requests without credentials (false: 401 with the OAuth challenge). */
  setMcpAnonymous(on: boolean): void;
  /** Grant every OAuth authorization at once to this key's account, without the consent page (null: show the page). */
  oauthAutoApprove(key: string | null): void;
  setOAuthLifetimes(l: Partial<OAuthLifetimes>): void;
  /** The OAuth grants, with the account's label (never a token or a key). */
  oauthGrants(): OAuthGrantInfo[];
  reset(): void;
}

interface KeyState {
  key: string;
  label: string;
  plan: Plan;
  status: 'active' | 'revoked' | 'pastDue';
  used: number;
  month: string;
  additionalUsage: boolean;
  unlimited: boolean;
  maxPageSize: number | undefined;
  rateLimits: { search?: number; list?: number; poll?: number } | undefined;
}

interface Interaction {
  id: string;
  mode: 'pro' | 'deep';
  body: ThreadBody;
  createdAt: number;
  durationMs: number;
  outcome: 'idle' | 'failed';
  output: AgentOutput;
  settled: boolean;
}

interface Thread {
  id: string;
  owner: string; // key label
  title: string | null;
  createdAt: number;
  interactions: Interaction[];
}

interface Outcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  charged?: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const monthOf = (ms: number): string => iso(ms).slice(0, 7);
function firstOfNextMonth(ms: number): string {
  const d = new Date(ms);
  return iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).slice(0, 10);
}
const err = (status: number, detail: string, code: string, headers?: Record<string, string>): Outcome => ({
  status,
  body: { detail, code },
  headers,
});
const invalid = (items: ValidationItem[]): Outcome => ({ status: 422, body: { detail: items } });

const CONTROL_METHODS = new Set([
  'now',
  'setClock',
  'advance',
  'setSpeed',
  'setRateLimits',
  'setPlan',
  'setUsage',
  'getUsage',
  'setAdditionalUsage',
  'setKeyStatus',
  'provisionKey',
  'injectFault',
  'clearFaults',
  'failNextRun',
  'setRunOutcome',
  'clearRunOutcomes',
  'completeRuns',
  'requests',
  'charges',
  'clearRequests',
  'threads',
  'setMcpAnonymous',
  'oauthAutoApprove',
  'setOAuthLifetimes',
  'oauthGrants',
  'reset',
]);

/** The OAuth routes (oauth.ts); everything else unknown stays a 404 of the REST API. */
const OAUTH_PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/authorize',
  '/authorize/decision',
  '/token',
  '/register',
  '/revoke',
]);

export class EmulatorServer {
  readonly engine: SearchEngine;
  private readonly server: http.Server;
  private readonly opts: Required<Pick<EmulatorOptions, 'host' | 'controlApi'>> & EmulatorOptions;
  // Mutable state (see reset()).
  private clockBase = 0;
  private clockReal = 0;
  private speed = 1;
  private limits: { search: number; list: number; poll: number } = { search: 1, list: 1, poll: 3 };
  private keys = new Map<string, KeyState>();
  private threadsById = new Map<string, Thread>();
  private faults: (FaultSpec & { left: number })[] = [];
  private log: RequestLogEntry[] = [];
  private chargeLog: ChargeEntry[] = [];
  private rateWindows = new Map<string, number[]>();
  private pendingOutcomes: RunOutcomeOptions[] = [];
  private rng = mulberry32(7);
  private keyCounter = 0;
  private readonly sockets = new Set<Socket>();
  private baseUrl = '';
  private mcpAnonymous = true;
  private oauth!: OAuthGrants;
  private oauthHandler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  readonly control: EmulatorControl;

  constructor(opts: EmulatorOptions) {
    this.opts = { ...opts, host: opts.host ?? '127.0.0.1', controlApi: opts.controlApi ?? false };
    this.engine = getEngine(opts.corpusSize ?? 5000);
    this.resetState();
    this.server = http.createServer(
      { requestTimeout: 15_000, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 },
      (req, res) => {
        this.handle(req, res).catch((e: unknown) => {
          // Last line of defence: never crash, always answer.
          try {
            if (!res.headersSent)
              this.send(res, { status: 500, body: { detail: 'Internal emulator error.', code: 'internal_error' } });
            else res.destroy();
          } catch {
            /* ignore */
          }
          if (this.opts.quiet === false)
            console.error('emulator: handler error', e instanceof Error ? e.message : String(e));
        });
      },
    );
    this.server.keepAliveTimeout = 5_000;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('clientError', (_e, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    this.control = this.makeControl();
  }

  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, this.opts.host, () => {
        const a = this.server.address() as AddressInfo;
        const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
        this.baseUrl = `http://${host}:${a.port}`;
        resolve(this.baseUrl);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }

  // ---------------------------------------------------------------- state

  private resetState(): void {
    this.clockBase = this.opts.now !== undefined ? Date.parse(this.opts.now) : Date.now();
    if (Number.isNaN(this.clockBase)) throw new Error(`Invalid emulator start time: ${this.opts.now}`);
    this.clockReal = performance.now();
    this.speed = this.opts.speed && this.opts.speed > 0 ? this.opts.speed : 1;
    this.setLimits(this.opts.rateLimits ?? true);
    this.keys = new Map();
    this.threadsById = new Map();
    this.faults = [];
    this.log = [];
    this.chargeLog = [];
    this.rateWindows = new Map();
    this.pendingOutcomes = [];
    this.rng = mulberry32(7);
    this.keyCounter = 0;
    this.mcpAnonymous = this.opts.mcpAnonymous ?? true;
    this.oauth = new OAuthGrants(
      () => this.nowMs(),
      () => `${this.baseUrl}/mcp`,
    );
    const month = monthOf(this.nowMs());
    const demo = (name: DemoKeyName, plan: Plan, status: KeyState['status'] = 'active'): void => {
      this.keys.set(DEMO_KEYS[name], {
        key: DEMO_KEYS[name],
        label: `demo:${name}`,
        plan,
        status,
        used: 0,
        month,
        additionalUsage: false,
        unlimited: false,
        maxPageSize: undefined,
        rateLimits: undefined,
      });
    };
    demo('free', 'free');
    demo('pro', 'pro');
    demo('teams', 'teams');
    demo('enterprise', 'enterprise');
    demo('deep', 'deep');
    demo('revoked', 'pro', 'revoked');
    demo('pastDue', 'pro', 'pastDue');
  }

  private setLimits(l: RateLimitOption): void {
    if (l === true) this.limits = { search: 1, list: 1, poll: 3 };
    else if (l === false) this.limits = { search: Infinity, list: Infinity, poll: Infinity };
    else this.limits = { search: l.search ?? 1, list: l.list ?? 1, poll: l.poll ?? 3 };
  }

  nowMs(): number {
    return this.clockBase + (performance.now() - this.clockReal);
  }

  private hex(n: number): string {
    let s = '';
    while (s.length < n)
      s += Math.floor(this.rng() * 0x10000)
        .toString(16)
        .padStart(4, '0');
    return s.slice(0, n);
  }

  private keyState(key: string): KeyState {
    const k = this.keys.get(key);
    if (!k) throw new Error('Unknown key (not provisioned in this emulator).');
    this.rollMonth(k);
    return k;
  }

  private rollMonth(k: KeyState): void {
    const m = monthOf(this.nowMs());
    if (k.month !== m) {
      k.month = m;
      k.used = 0;
    }
  }

  private usage(k: KeyState): UsageInfo {
    this.rollMonth(k);
    const p = PLANS[k.plan];
    const cap = k.plan === 'free' ? p.included : k.additionalUsage ? p.max : p.included;
    return {
      plan: k.plan,
      used: k.used,
      included: p.included,
      cap,
      resetsOn: firstOfNextMonth(this.nowMs()),
      additionalUsage: k.additionalUsage,
      unlimited: k.unlimited,
    };
  }

  private poolExhausted(k: KeyState): Outcome | undefined {
    const u = this.usage(k);
    if (k.unlimited || u.used < u.cap) return undefined;
    return { status: 429, body: { detail: MONTHLY_MESSAGE(u.resetsOn) } };
  }

  private charge(k: KeyState, calls: number, reason: ChargeEntry['reason'], extra: Partial<ChargeEntry> = {}): void {
    this.rollMonth(k);
    k.used += calls;
    this.chargeLog.push({ at: iso(this.nowMs()), keyLabel: k.label, reason, calls, ...extra });
    if (this.chargeLog.length > LOG_LIMIT) this.chargeLog.splice(0, this.chargeLog.length - LOG_LIMIT);
  }

  /** Settle finished runs: charge idle ones once. Called before every request and control read. */
  private settle(): void {
    const now = this.nowMs();
    for (const t of this.threadsById.values()) {
      const i = t.interactions[t.interactions.length - 1];
      if (!i || i.settled || now < i.createdAt + i.durationMs) continue;
      i.settled = true;
      const k = [...this.keys.values()].find((x) => x.label === t.owner);
      if (i.outcome === 'idle' && k)
        this.charge(k, THREAD_COST[i.mode], 'thread', { threadId: t.id, interactionId: i.id });
    }
  }

  private statusOf(i: Interaction, now = this.nowMs()): 'running' | 'idle' | 'failed' {
    return now < i.createdAt + i.durationMs ? 'running' : i.outcome;
  }

  // ---------------------------------------------------------------- HTTP

  private send(res: http.ServerResponse, o: Outcome): void {
    const text = JSON.stringify(o.body);
    res.writeHead(o.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...(o.headers ?? {}),
    });
    res.end(text);
  }

  private route(method: string, path: string): { name: RouteName; threadId?: string } | { error: Outcome } {
    const seg = path.split('/');
    const m = method.toUpperCase();
    const allow = (
      name: RouteName,
      want: string,
      threadId?: string,
    ): { name: RouteName; threadId?: string } | { error: Outcome } =>
      m === want
        ? { name, threadId }
        : { error: err(405, 'Method Not Allowed', 'method_not_allowed', { allow: want }) };
    if (path === '/v1/search') return allow('search', 'GET');
    if (path === '/v1/quick_search') return allow('quick_search', 'GET');
    if (path === '/v1/threads') {
      if (m === 'GET') return { name: 'list_threads' };
      if (m === 'POST') return { name: 'create_thread' };
      return { error: err(405, 'Method Not Allowed', 'method_not_allowed', { allow: 'GET, POST' }) };
    }
    if (seg.length === 4 && seg[1] === 'v1' && seg[2] === 'threads' && seg[3] !== '')
      return allow('get_thread', 'GET', seg[3]);
    if (seg.length === 5 && seg[1] === 'v1' && seg[2] === 'threads' && seg[3] !== '' && seg[4] === 'interactions')
      return allow('add_interaction', 'POST', seg[3]);
    return { error: err(404, 'Not Found', 'not_found') };
  }

  private readBody(req: http.IncomingMessage): Promise<{ text: string } | { tooLarge: true } | { aborted: true }> {
    return new Promise((resolve) => {
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > BODY_LIMIT) {
        resolve({ tooLarge: true });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      req.on('data', (c: Buffer) => {
        if (done) return;
        size += c.length;
        if (size > BODY_LIMIT) {
          done = true;
          resolve({ tooLarge: true });
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (done) return;
        done = true;
        resolve({ text: Buffer.concat(chunks).toString('utf8') });
      });
      const fail = (): void => {
        if (done) return;
        done = true;
        resolve({ aborted: true });
      };
      req.on('error', fail);
      req.on('aborted', fail);
      req.on('close', () => {
        if (!req.complete) fail();
      });
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    const method = req.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      this.send(res, err(400, 'Malformed request target.', 'bad_request'));
      return;
    }
    let path = url.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      /* keep the raw path: bad percent-encoding */
    }
    const query: Record<string, string | string[]> = {};
    for (const k of new Set(url.searchParams.keys())) {
      const all = url.searchParams.getAll(k);
      query[k] = all.length === 1 ? all[0]! : all;
    }
    const entry: RequestLogEntry = {
      at: iso(this.nowMs()),
      method,
      path,
      query,
      route: 'unknown',
      keyKind: 'none',
      keyLabel: null,
      auth: 'none',
      status: 0,
      charged: 0,
      fault: null,
    };
    const finish = (o: Outcome): void => {
      entry.status = o.status;
      this.record(entry);
      this.printLine(entry);
    };

    if (path.startsWith('/_emulator/') || path === '/_emulator') {
      entry.route = 'control';
      if (!this.opts.controlApi) {
        const o = err(404, 'Not Found', 'not_found');
        this.send(res, o);
        return;
      }
      const body = method === 'POST' ? await this.readBody(req) : { text: '' };
      const o = this.handleControl(method, path, 'text' in body ? body.text : '');
      this.send(res, o);
      return;
    }

    if (path === '/mcp') {
      await this.handleMcp(req, res, entry, finish);
      return;
    }
    if (OAUTH_PATHS.has(path)) {
      this.handleOAuth(req, res, entry);
      return;
    }

    const r = this.route(method, path);
    if ('error' in r) {
      if (method !== 'HEAD') this.send(res, r.error);
      else res.writeHead(r.error.status).end();
      finish(r.error);
      return;
    }
    entry.route = r.name;

    // Fault injection (one fault per request, first match wins).
    const fault = this.takeFault(r.name);
    if (fault) entry.fault = fault.kind;
    if (fault?.kind === 'delay') await new Promise((ok) => setTimeout(ok, fault.delayMs ?? 1000));
    if (fault?.kind === 'status_before') {
      const o = this.faultStatus(fault.status ?? 503, fault.body);
      this.send(res, o);
      finish(o);
      return;
    }
    if (fault?.kind === 'echo_key' || fault?.kind === 'nested_loc' || fault?.kind === 'body') {
      const status = fault.status ?? 422;
      if (fault.kind === 'nested_loc') {
        // Written as text: JSON.stringify would overflow the stack on this value.
        const depth = Math.max(1, fault.depth ?? 100_000);
        const text = `{"detail":[{"loc":${'['.repeat(depth)}"query"${']'.repeat(depth)},"msg":"Input should be valid","type":"value_error"}]}`;
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
        finish({ status, body: null });
        return;
      }
      const o =
        fault.kind === 'body' ? { status, body: fault.body } : this.echoKey(req, status, fault.encoding ?? 'all');
      this.send(res, o);
      finish(o);
      return;
    }
    if (fault?.kind === 'reset' && !fault.afterEffect) {
      req.socket.destroy();
      finish({ status: 0, body: null });
      return;
    }

    let bodyText = '';
    if (method === 'POST') {
      const b = await this.readBody(req);
      if ('aborted' in b) {
        finish({ status: 0, body: null });
        return;
      }
      if ('tooLarge' in b) {
        const o = err(413, `Request body too large (limit ${BODY_LIMIT} bytes).`, 'payload_too_large', {
          connection: 'close',
        });
        this.send(res, o);
        finish(o);
        return;
      }
      bodyText = b.text;
    }

    this.settle();
    let outcome = this.authenticate(req, entry);
    let key: KeyState | undefined;
    if ('key' in outcome) {
      key = outcome.key;
      const limited = this.rateLimit(key, ROUTE_CLASS[r.name]);
      outcome = limited ?? this.dispatch(r.name, r.threadId, url.searchParams, bodyText, key);
    }
    const o = outcome;
    entry.charged = o.charged ?? 0;

    if (fault?.kind === 'hints' && o.status === 200 && typeof o.body === 'object' && o.body !== null) {
      const d = o.body as Record<string, unknown>;
      if (fault.pollAfterSeconds !== undefined) d.poll_after_seconds = fault.pollAfterSeconds;
      if (fault.maxWaitSeconds !== undefined) d.max_wait_seconds = fault.maxWaitSeconds;
    }
    if (fault?.kind === 'duplicate_ids' && o.status === 200) {
      const l = o.body as { threads?: unknown[] };
      if (Array.isArray(l.threads)) l.threads = l.threads.flatMap((t) => [t, { ...(t as object) }]);
    }
    if (fault?.kind === 'oversize' && o.status === 200) {
      this.streamOversize(res, fault.bytes ?? 600 * 1024 * 1024);
      finish(o);
      return;
    }

    if (fault && ['status_after', 'reset', 'truncated', 'malformed', 'schema'].includes(fault.kind)) {
      if (fault.kind === 'status_after') {
        const f = this.faultStatus(fault.status ?? 500, fault.body);
        this.send(res, f);
        finish(f);
        return;
      }
      if (fault.kind === 'reset') {
        req.socket.destroy();
        finish({ status: 0, body: null });
        return;
      }
      const text = JSON.stringify(fault.kind === 'schema' ? { data: o.body, note: 'schema changed' } : o.body);
      if (fault.kind === 'truncated') {
        const half = Buffer.from(text).subarray(0, Math.max(1, Math.floor(Buffer.byteLength(text) / 2)));
        res.writeHead(o.status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.write(half);
        setTimeout(() => req.socket.destroy(), 20);
        finish(o);
        return;
      }
      const body =
        fault.kind === 'malformed'
          ? `${text.slice(0, Math.max(1, Math.floor(text.length / 3)))}\u0000}{<html>oops`
          : text;
      res.writeHead(o.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        ...(o.headers ?? {}),
      });
      res.end(body);
      finish(o);
      return;
    }
    if (method === 'HEAD') res.writeHead(o.status).end();
    else this.send(res, o);
    finish(o);
  }

  private record(entry: RequestLogEntry): void {
    this.log.push(entry);
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }

  /**
   * Logs a request whose answer someone else (the SDK) writes: logged now, before the answer, since a client may read
   * the log as soon as it has its result; the status is filled in when the head is written.
   */
  private recordAnswered(entry: RequestLogEntry, res: http.ServerResponse): void {
    this.record(entry);
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      entry.status = args[0];
      return writeHead(...args);
    }) as typeof res.writeHead;
    res.once('finish', () => this.printLine(entry));
  }

  /** The OAuth routes, answered by oauth.ts (the SDK's authorization-server router over the emulator's state). */
  private handleOAuth(req: http.IncomingMessage, res: http.ServerResponse, entry: RequestLogEntry): void {
    entry.route = 'oauth';
    this.recordAnswered(entry, res);
    if (!this.oauthHandler) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { createOAuthHandler } = require('./oauth') as typeof OAuth;
      this.oauthHandler = createOAuthHandler({
        baseUrl: this.baseUrl,
        host: this.opts.host,
        grants: () => this.oauth,
        accounts: () => [...this.keys.values()].map((k) => ({ label: k.label, plan: k.plan, status: k.status })),
        accountKey: (label) => [...this.keys.values()].find((k) => k.label === label)?.key,
      });
    }
    this.oauthHandler(req, res);
  }

  /** The CLI's line per request (never a key). */
  private printLine(entry: RequestLogEntry): void {
    if (this.opts.quiet !== false) return;
    const rpc = entry.rpc
      ? ` ${entry.rpc.map((r) => (r.tool !== undefined ? `${r.method} ${r.tool.slice(0, 40)}` : r.method)).join(', ')}`
      : '';
    console.log(
      `${entry.at} ${entry.method} ${entry.path}${rpc} → ${entry.status}${entry.charged ? ` (charged ${entry.charged})` : ''}`,
    );
  }

  // ---------------------------------------------------------------- MCP

  /**
   * POST /mcp: the MCP server (Streamable HTTP, stateless). Order of checks as on the REST routes: method (405) → body
   * size (413) → authentication (401, then 402) → JSON (400) → the protocol; the per-second limit, validation, the
   * feature check and the monthly pool apply inside a `search` call, where they come back as tool errors.
   */
  private async handleMcp(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    entry: RequestLogEntry,
    finish: (o: Outcome) => void,
  ): Promise<void> {
    entry.route = 'mcp';
    if (entry.method !== 'POST') {
      // Stateless: no stream to offer on GET and no session to DELETE; the MCP spec allows 405 for both.
      const o = err(405, 'Method Not Allowed', 'method_not_allowed', { allow: 'POST' });
      if (entry.method === 'HEAD') res.writeHead(o.status, o.headers).end();
      else this.send(res, o);
      finish(o);
      return;
    }
    const b = await this.readBody(req);
    if ('aborted' in b) {
      finish({ status: 0, body: null });
      return;
    }
    if ('tooLarge' in b) {
      const o = err(413, `Request body too large (limit ${BODY_LIMIT} bytes).`, 'payload_too_large', {
        connection: 'close',
      });
      this.send(res, o);
      finish(o);
      return;
    }
    this.settle();
    const auth = this.authenticateMcp(req, entry);
    if (!('key' in auth)) {
      this.send(res, auth);
      finish(auth);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(b.text) as unknown;
    } catch {
      // The SDK's own answer to a body that is not JSON.
      const o = { status: 400, body: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null } };
      this.send(res, o);
      finish(o);
      return;
    }
    entry.rpc = (Array.isArray(body) ? body : [body]).map(describeRpc);
    this.recordAnswered(entry, res);
    const key = auth.key;
    const caller: Mcp.McpCaller = { search: (args, id) => this.mcpSearch(key, args, entry, id) };
    // Required here, not imported at the top: the SDK loads on the first /mcp request only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { serveMcp } = require('./mcp') as typeof Mcp;
    await serveMcp(req, res, body, caller);
  }

  /**
   * MCP credentials: none (anonymous: at most 3 papers, nothing charged, unless switched off), `Authorization: Bearer
   * <API key>` of any plan, or `Bearer <access token>` from the OAuth flow (the account it was granted for).
   * `x-api-key` is not read here: the spec names bearer tokens for MCP clients. Every 401 points at the
   * protected-resource metadata, where an MCP client starts OAuth (RFC 9728 §5.1).
   */
  private authenticateMcp(req: http.IncomingMessage, entry: RequestLogEntry): { key: KeyState | undefined } | Outcome {
    const metadata = `${this.baseUrl}/.well-known/oauth-protected-resource/mcp`;
    const scope = OAUTH_SCOPES.join(' ');
    const challenge = (error: string, description: string): Record<string, string> => ({
      'www-authenticate': `Bearer error="${error}", error_description="${description}", resource_metadata="${metadata}", scope="${scope}"`,
    });
    const authz = req.headers.authorization;
    if (authz === undefined) {
      if (this.mcpAnonymous) return { key: undefined };
      return err(401, 'Sign in: this server needs an access token or an API key.', 'missing_credentials', {
        'www-authenticate': `Bearer resource_metadata="${metadata}", scope="${scope}"`,
      });
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) {
      entry.keyKind = 'invalid';
      const d = 'Send the token as Authorization: Bearer <token>.';
      return err(401, d, 'invalid_authorization', challenge('invalid_request', d));
    }
    entry.auth = 'bearer';
    let k = this.keys.get(m[1]!);
    if (!k) {
      const t = this.oauth.verify(m[1]!);
      if (t === 'expired') {
        entry.auth = 'oauth';
        entry.keyKind = 'invalid';
        const d = 'The access token expired.';
        return err(401, d, 'token_expired', challenge('invalid_token', d));
      }
      k = t && this.keys.get(t.account);
      if (!k) {
        entry.keyKind = 'invalid';
        const d = 'The token is neither an API key nor an access token this server issued.';
        return err(401, d, 'invalid_token', challenge('invalid_token', d));
      }
      entry.auth = 'oauth';
    }
    entry.keyLabel = k.label;
    if (k.status === 'revoked') {
      entry.keyKind = 'revoked';
      const d = 'This API key has been revoked. Create a new key in the dashboard.';
      return err(401, d, 'revoked_api_key', challenge('invalid_token', d));
    }
    if (k.status === 'pastDue') {
      entry.keyKind = 'pastDue';
      return err(402, 'Billing is past due. API calls are paused until payment is resolved.', 'payment_required');
    }
    entry.keyKind = k.plan;
    return { key: k };
  }

  /**
   * The `search` tool: the per-second limit → validation → the excerpt feature → the monthly pool → the same ranking
   * and result records as GET /v1/search. Refusals are tool errors whose text is the REST answer's (the two 429s word
   * for word), so a model can tell the writer; nothing refused is charged.
   */
  private mcpSearch(
    k: KeyState | undefined,
    args: unknown,
    entry: RequestLogEntry,
    id: string | number,
  ): ReturnType<Mcp.McpCaller['search']> {
    const rpc = entry.rpc?.find((r) => r.method === 'tools/call' && r.id === id);
    const fail = (text: string): ReturnType<Mcp.McpCaller['search']> => {
      if (rpc) {
        rpc.isError = true;
        rpc.error = text;
      }
      return { content: [{ type: 'text', text }], isError: true };
    };
    if (k) {
      const limited = this.rateLimit(k, 'search');
      if (limited) return fail(RATE_MESSAGE);
    }
    const v = validateMcpSearch(args);
    if (!v.ok) return fail(`Invalid arguments for the search tool:\n${v.problems.join('\n')}`);
    const a = v.args;
    if (a.includeFullTextChunks && (!k || k.plan === 'free'))
      return fail('include_full_text_chunks: full-text excerpts are available on paid plans only.');
    if (k) {
      const refused = this.poolExhausted(k);
      if (refused) return fail((refused.body as { detail: string }).detail);
    }
    const cap = k ? (k.maxPageSize ?? PLANS[k.plan].maxPageSize) : MCP_ANONYMOUS_PAGE_SIZE;
    const page = this.engine.search(a.query, a.filters).slice(0, Math.min(MCP_PAGE_SIZE, cap));
    const excerpts = a.includeFullTextChunks
      ? this.engine.excerpts(
          a.query,
          page.map((h) => h.paper),
        )
      : undefined;
    const paid = k !== undefined && k.plan !== 'free';
    const results = page.map((h, i) => this.result(h, i, paid, false, excerpts));
    if (k) {
      const calls = Math.max(1, Math.ceil(results.length / 100));
      this.charge(k, calls, 'mcp');
      entry.charged += calls;
    }
    if (rpc) rpc.isError = false;
    const body = { results };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  }

  /**
   * The `echo_key` answer: the key the request carried, in one form or all, in the detail, the code and (422) every
   * item field.
   */
  private echoKey(req: http.IncomingMessage, status: number, encoding: KeyEncoding | 'all'): Outcome {
    const x = req.headers['x-api-key'];
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    const key = (typeof x === 'string' && x.trim()) || bearer || '';
    const forms = (encoding === 'all' ? KEY_ENCODINGS : [encoding]).map((e) => encodeKey(key, e));
    if (status === 422) {
      return {
        status,
        body: {
          detail: forms.map((f) => ({
            loc: ['query', f],
            msg: `The key ${f} is not valid for this parameter`,
            type: f,
          })),
          code: forms[0],
        },
      };
    }
    return { status, body: { detail: `Request rejected for key ${forms.join(' / ')}.`, code: forms[0] } };
  }

  /**
   * A 200 without Content-Length (chunked) of `bytes` bytes, written as the client reads it and stopped when it goes
   * away.
   */
  private streamOversize(res: http.ServerResponse, bytes: number): void {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let sent = 0;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.write('{"results":[{"title":"');
    const pump = (): void => {
      while (sent < bytes) {
        if (res.destroyed) return;
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end('"}],"page":0,"is_end":true}');
    };
    pump();
  }

  private faultStatus(status: number, body?: unknown): Outcome {
    if (body !== undefined) return { status, body };
    const detail =
      status === 503
        ? 'The service is temporarily unavailable. Try again later.'
        : status === 502
          ? 'Bad gateway.'
          : status === 504
            ? 'Gateway timeout.'
            : 'Internal server error.';
    const code =
      status === 503
        ? 'service_unavailable'
        : status === 502
          ? 'bad_gateway'
          : status === 504
            ? 'gateway_timeout'
            : 'internal_error';
    return { status, body: { detail, code } };
  }

  private takeFault(route: RouteName): (FaultSpec & { left: number }) | undefined {
    const i = this.faults.findIndex((f) => f.route === route && f.left > 0);
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    f.left -= 1;
    if (f.left <= 0) this.faults.splice(i, 1);
    return f;
  }

  private authenticate(req: http.IncomingMessage, entry: RequestLogEntry): { key: KeyState } | Outcome {
    const x = req.headers['x-api-key'];
    const authz = req.headers.authorization;
    let key: string | undefined;
    if (typeof x === 'string' && x.trim() !== '') {
      key = x.trim();
      entry.auth = 'x-api-key';
    } else if (typeof authz === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
      if (m) {
        key = m[1];
        entry.auth = 'bearer';
      }
    }
    if (!key) return err(401, 'Missing API key. Send it in the x-api-key header.', 'missing_api_key');
    const k = this.keys.get(key);
    if (!k) {
      entry.keyKind = 'invalid';
      return err(401, 'Invalid API key.', 'invalid_api_key');
    }
    entry.keyLabel = k.label;
    if (k.status === 'revoked') {
      entry.keyKind = 'revoked';
      return err(401, 'This API key has been revoked. Create a new key in the dashboard.', 'revoked_api_key');
    }
    if (entry.auth === 'bearer' && k.plan !== 'enterprise') {
      entry.keyKind = k.plan;
      return err(
        401,
        'Bearer authentication is accepted only for enterprise keys. Send the key in the x-api-key header.',
        'bearer_not_allowed',
      );
    }
    if (k.status === 'pastDue') {
      entry.keyKind = 'pastDue';
      return err(402, 'Billing is past due. API calls are paused until payment is resolved.', 'payment_required');
    }
    entry.keyKind = k.plan;
    return { key: k };
  }

  private rateLimit(k: KeyState, cls: RateClass): Outcome | undefined {
    const limit = k.rateLimits?.[cls] ?? this.limits[cls];
    if (!Number.isFinite(limit)) return undefined;
    const id = `${k.label}:${cls}`;
    const now = performance.now();
    const w = (this.rateWindows.get(id) ?? []).filter((t) => now - t < 1000);
    if (w.length >= limit) {
      this.rateWindows.set(id, w);
      return { status: 429, body: { detail: RATE_MESSAGE }, headers: { 'retry-after': '1' } };
    }
    w.push(now);
    this.rateWindows.set(id, w);
    return undefined;
  }

  private dispatch(
    name: RouteName,
    threadId: string | undefined,
    q: URLSearchParams,
    bodyText: string,
    k: KeyState,
  ): Outcome {
    switch (name) {
      case 'search':
        return this.search(q, k, 'search');
      case 'quick_search':
        if (this.nowMs() >= QUICK_SEARCH_SUNSET) {
          return err(
            410,
            'GET /v1/quick_search was removed on 2027-02-07. Use GET /v1/search instead.',
            'endpoint_removed',
          );
        }
        return this.search(q, k, 'quick_search');
      case 'create_thread':
        return this.createThread(bodyText, k);
      case 'add_interaction':
        return this.addInteraction(threadId!, bodyText, k);
      case 'get_thread':
        return this.getThread(threadId!, q, k);
      case 'list_threads':
        return this.listThreads(q, k);
    }
  }

  // ---------------------------------------------------------------- search

  private search(q: URLSearchParams, k: KeyState, reason: 'search' | 'quick_search'): Outcome {
    const v = validateSearch(q);
    if (!v.ok) return invalid(v.items);
    const p = v.params;
    if (p.include_full_text_chunks && k.plan === 'free') {
      return err(
        403,
        'Full-text excerpts (include_full_text_chunks) are available on paid plans only.',
        'feature_not_allowed',
      );
    }
    const refused = this.poolExhausted(k);
    if (refused) return refused;
    const maxSize = k.maxPageSize ?? PLANS[k.plan].maxPageSize;
    const size = Math.min(p.page_size, maxSize);
    const hits = this.engine.search(p.query, p.filters);
    const start = p.page * size;
    const page = hits.slice(start, start + size);
    const more = hits.length > start + size;
    const nextOk = p.page + 1 <= 49 && (p.page + 2) * p.page_size <= 1000;
    const next = more && nextOk ? p.page + 1 : null;
    const excerpts = p.include_full_text_chunks
      ? this.engine.excerpts(
          p.query,
          page.map((h) => h.paper),
        )
      : undefined;
    const results = page.map((h, i) =>
      this.result(h, start + i, k.plan !== 'free', p.include_semantic_score, excerpts),
    );
    const calls = Math.max(1, Math.ceil(results.length / 100));
    this.charge(k, calls, reason);
    const headers: Record<string, string> =
      reason === 'quick_search'
        ? {
            deprecation: 'true',
            sunset: 'Sun, 07 Feb 2027 00:00:00 GMT',
            link: '</v1/search>; rel="successor-version"',
          }
        : {};
    return {
      status: 200,
      body: { results, page: p.page, page_size: size, is_end: next === null, next_page: next },
      headers,
      charged: calls,
    };
  }

  private result(
    h: Hit,
    rank: number,
    paid: boolean,
    withScore: boolean,
    excerpts: Map<number, string[]> | undefined,
  ): Record<string, unknown> {
    const p = h.paper;
    const r: Record<string, unknown> = {
      title: p.title,
      abstract: p.abstract,
      authors: p.authors,
      doi: p.doi,
      journal_name: p.journal,
    };
    if (p.pages !== undefined) r.pages = p.pages;
    if (p.volume !== undefined) r.volume = p.volume;
    r.publish_year = p.year;
    r.url = p.url;
    r.citation_count = p.citationCount;
    if (withScore && rank < 50) r.semantic_score = Math.round((h.score / (h.score + 5)) * 10000) / 10000;
    if (paid) {
      r.study_type = p.studyType;
      r.takeaway = p.takeaway;
      r.sjr_best_quartile = p.sjrQuartile;
    }
    r.publisher_name = p.publisher;
    if (excerpts) r.full_text_chunks = excerpts.get(p.index) ?? null;
    r.sample_size = p.sampleSize;
    r.study_count = p.studyCount;
    r.population_type = p.populationType;
    r.is_preprint = p.isPreprint;
    r.countries_of_study = p.countries;
    r.study_duration_days = p.durationDays;
    r.influential_citation_count = p.influentialCitationCount;
    r.institutions = p.institutions;
    r.publish_date = p.publishDate;
    return r;
  }

  // ---------------------------------------------------------------- threads

  private parseJson(text: string): { ok: true; value: unknown } | { ok: false; items: ValidationItem[] } {
    if (text.trim() === '') return { ok: false, items: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] };
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (e) {
      const pos = /position (\d+)/.exec(e instanceof Error ? e.message : '')?.[1];
      return {
        ok: false,
        items: [{ loc: ['body', pos !== undefined ? Number(pos) : 0], msg: 'JSON decode error', type: 'json_invalid' }],
      };
    }
  }

  private threadUrl(id: string): string {
    return `https://consensus.app/threads/${id}`;
  }

  private startRun(t: Thread, body: ThreadBody): Interaction {
    const earlier = t.interactions
      .filter((i) => this.statusOf(i) === 'idle')
      .map((i) => ({ input_message: i.body.input_message, citations: i.output.citations }));
    const output = runAgent(this.engine, body, earlier);
    let outcome: 'idle' | 'failed' = 'idle';
    let durationMs = RUN_MS[body.mode] / this.speed;
    const idx = this.pendingOutcomes.findIndex((o) => o.threadId === undefined || o.threadId === t.id);
    if (idx >= 0) {
      const o = this.pendingOutcomes[idx]!;
      if (o.outcome) outcome = o.outcome;
      if (o.durationMs !== undefined) durationMs = o.durationMs;
      o.times = (o.times ?? 1) - 1;
      if (o.times <= 0) this.pendingOutcomes.splice(idx, 1);
    }
    const i: Interaction = {
      id: `in_${this.hex(20)}`,
      mode: body.mode,
      body,
      createdAt: this.nowMs(),
      durationMs,
      outcome,
      output,
      settled: false,
    };
    t.interactions.push(i);
    return i;
  }

  private dispatchResponse(t: Thread, i: Interaction): Outcome {
    const s = this.speed;
    return {
      status: 200,
      body: {
        thread_id: t.id,
        interaction_id: i.id,
        status: 'running',
        mode: i.mode,
        url: this.threadUrl(t.id),
        poll_after_seconds: Math.round(30 / s),
        max_wait_seconds: Math.max(1, Math.round(MAX_WAIT_S[i.mode] / s)),
        created_at: iso(i.createdAt),
        title: t.title,
      },
    };
  }

  private createThread(text: string, k: KeyState): Outcome {
    const j = this.parseJson(text);
    if (!j.ok) return invalid(j.items);
    const v = validateThreadBody(j.value);
    if (!v.ok) return invalid(v.items);
    if (v.body.mode === 'deep' && k.plan === 'free')
      return err(403, 'Deep mode requires a paid plan.', 'feature_not_allowed');
    const refused = this.poolExhausted(k);
    if (refused) return refused;
    const t: Thread = {
      id: `th_${this.hex(24)}`,
      owner: k.label,
      title: titleFrom(v.body.input_message),
      createdAt: this.nowMs(),
      interactions: [],
    };
    this.threadsById.set(t.id, t);
    const i = this.startRun(t, v.body);
    return this.dispatchResponse(t, i);
  }

  private findThread(id: string, k: KeyState): Thread | undefined {
    const t = this.threadsById.get(id);
    return t && t.owner === k.label ? t : undefined;
  }

  private addInteraction(id: string, text: string, k: KeyState): Outcome {
    const items = validateThreadId(id);
    const j = this.parseJson(text);
    let body: ThreadBody | undefined;
    if (!j.ok) items.push(...j.items);
    else {
      const v = validateThreadBody(j.value);
      if (!v.ok) items.push(...v.items);
      else body = v.body;
    }
    if (items.length > 0 || !body) return invalid(items);
    const t = this.findThread(id, k);
    if (!t) return err(404, 'Thread not found.', 'not_found');
    const latest = t.interactions[t.interactions.length - 1];
    if (latest && this.statusOf(latest) === 'running') {
      return err(
        409,
        'The latest interaction of this thread is still running. Wait until it is idle or failed before sending a follow-up.',
        'interaction_running',
      );
    }
    if (body.mode === 'deep' && k.plan === 'free')
      return err(403, 'Deep mode requires a paid plan.', 'feature_not_allowed');
    const refused = this.poolExhausted(k);
    if (refused) return refused;
    const i = this.startRun(t, body);
    return this.dispatchResponse(t, i);
  }

  private lastActivity(t: Thread, now: number): number {
    let last = t.createdAt;
    for (const i of t.interactions) {
      last = Math.max(last, i.createdAt);
      const end = i.createdAt + i.durationMs;
      if (end <= now) last = Math.max(last, end);
    }
    return last;
  }

  private getThread(id: string, q: URLSearchParams, k: KeyState): Outcome {
    const items = validateThreadId(id);
    const v = validateGetThread(q);
    if (!v.ok) items.push(...v.items);
    if (items.length > 0 || !v.ok) return invalid(items);
    const t = this.findThread(id, k);
    if (!t) return err(404, 'Thread not found.', 'not_found');
    const now = this.nowMs();
    const latest = t.interactions[t.interactions.length - 1]!;
    const selected = v.interactionId !== undefined ? t.interactions.find((i) => i.id === v.interactionId) : latest;
    if (!selected) return err(404, 'Interaction not found in this thread.', 'not_found');
    const interactions = t.interactions.map((i) => {
      const status = this.statusOf(i, now);
      const frac = Math.min(1, (now - i.createdAt) / Math.max(1, i.durationMs));
      const s = i.output.stats;
      const stats =
        status === 'idle'
          ? s
          : status === 'failed'
            ? { retrieved: s.retrieved, screened: s.screened, included: 0 }
            : {
                retrieved: frac >= 0.1 ? s.retrieved : 0,
                screened: frac >= 0.3 ? s.screened : 0,
                included: frac >= 0.85 ? s.included : 0,
              };
      const out: Record<string, unknown> = {
        interaction_id: i.id,
        status,
        mode: i.mode,
        input_message: i.body.input_message,
        created_at: iso(i.createdAt),
        stats,
      };
      if (i === selected) {
        out.response = status === 'idle' ? i.output.response : null;
        out.citations = status === 'idle' ? i.output.citations : [];
        if (status === 'failed')
          out.error = 'The research agent could not complete this run. Send the question again as a follow-up.';
      }
      return out;
    });
    const body: Record<string, unknown> = {
      thread_id: t.id,
      title: t.title ?? 'Untitled thread',
      status: this.statusOf(latest, now),
      url: this.threadUrl(t.id),
      created_at: iso(t.createdAt),
      last_activity_at: iso(this.lastActivity(t, now)),
      interactions,
    };
    if (v.includeTrace) body.trace = this.trace(selected, now);
    return { status: 200, body };
  }

  private trace(i: Interaction, now: number): string {
    const elapsed = now - i.createdAt;
    const status = this.statusOf(i, now);
    const lines: string[] = [];
    for (const s of i.output.steps) {
      const at = s.at * i.durationMs;
      if (status === 'failed' && s.at > 0.6) break;
      if (status === 'running' && at > elapsed) break;
      lines.push(`[+${(at / 1000).toFixed(1)}s] ${s.text}`);
    }
    if (status === 'failed')
      lines.push(
        `[+${((0.6 * i.durationMs) / 1000).toFixed(1)}s] error: the agent run failed (reading step timed out); nothing was charged.`,
      );
    return lines.join('\n');
  }

  private listThreads(q: URLSearchParams, k: KeyState): Outcome {
    const v = validateList(q);
    if (!v.ok) return invalid(v.items);
    const now = this.nowMs();
    const needle = v.query?.trim().toLowerCase();
    const all = [...this.threadsById.values()]
      .filter((t) => t.owner === k.label)
      .map((t) => ({ t, last: this.lastActivity(t, now), title: t.title ?? 'Untitled thread' }))
      .filter((x) => !needle || x.title.toLowerCase().includes(needle))
      .sort((a, b) => b.last - a.last || b.t.createdAt - a.t.createdAt || (a.t.id < b.t.id ? -1 : 1));
    const page = all.slice(v.offset, v.offset + v.limit);
    const threads = page.map(({ t, last, title }) => {
      const latest = t.interactions[t.interactions.length - 1]!;
      const s: Record<string, unknown> = { thread_id: t.id, title, url: this.threadUrl(t.id) };
      if (now - last <= STATUS_WINDOW_MS) s.status = this.statusOf(latest, now);
      s.preview = previewOf(latest.body.input_message, this.statusOf(latest, now), latest.output.response);
      s.interaction_count = t.interactions.length;
      s.last_activity_at = iso(last);
      return s;
    });
    return { status: 200, body: { threads, has_more: v.offset + v.limit < all.length } };
  }

  // ---------------------------------------------------------------- control

  private makeControl(): EmulatorControl {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const keyOf = (key: string): KeyState => this.keyState(key);
    return {
      now: () => new Date(self.nowMs()),
      setClock(at) {
        const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
        if (Number.isNaN(ms)) throw new Error(`Invalid time: ${String(at)}`);
        // Keep running interactions' remaining time consistent with the jump.
        self.clockBase = ms;
        self.clockReal = performance.now();
      },
      advance(ms) {
        self.clockBase += ms;
      },
      setSpeed(speed) {
        if (!(speed > 0)) throw new Error('speed must be > 0');
        self.speed = speed;
      },
      setRateLimits(l) {
        self.setLimits(l);
        self.rateWindows.clear();
      },
      setPlan(key, plan) {
        if (!(plan in PLANS)) throw new Error(`Unknown plan: ${plan}`);
        keyOf(key).plan = plan;
      },
      setUsage(key, used) {
        const k = keyOf(key);
        k.used = used;
        k.month = monthOf(self.nowMs());
      },
      getUsage(key) {
        self.settle();
        return self.usage(keyOf(key));
      },
      setAdditionalUsage(key, on) {
        const k = keyOf(key);
        if (on && k.plan === 'free') throw new Error('Additional usage cannot be enabled on free plans.');
        k.additionalUsage = on;
      },
      setKeyStatus(key, status) {
        keyOf(key).status = status;
      },
      provisionKey(o) {
        if (!(o.plan in PLANS)) throw new Error(`Unknown plan: ${o.plan}`);
        if (o.additionalUsage && o.plan === 'free')
          throw new Error('Additional usage cannot be enabled on free plans.');
        self.keyCounter += 1;
        const key = `emu-${o.plan}-${self.keyCounter}-${self.hex(24)}`;
        self.keys.set(key, {
          key,
          label: o.label ?? `key#${self.keyCounter}`,
          plan: o.plan,
          status: o.status ?? 'active',
          used: o.used ?? 0,
          month: monthOf(self.nowMs()),
          additionalUsage: o.additionalUsage ?? false,
          unlimited: o.unlimited ?? false,
          maxPageSize: o.maxPageSize,
          rateLimits: o.rateLimits,
        });
        return key;
      },
      injectFault(f) {
        self.faults.push({ ...f, left: f.times ?? 1 });
      },
      clearFaults() {
        self.faults = [];
      },
      failNextRun(threadId) {
        this.setRunOutcome({ outcome: 'failed', threadId });
      },
      setRunOutcome(o) {
        if (o.threadId) {
          const t = self.threadsById.get(o.threadId);
          const latest = t?.interactions[t.interactions.length - 1];
          if (latest && self.statusOf(latest) === 'running') {
            if (o.outcome) latest.outcome = o.outcome;
            if (o.durationMs !== undefined) latest.durationMs = o.durationMs;
            return;
          }
        }
        self.pendingOutcomes.push({ ...o, times: o.times ?? 1 });
      },
      clearRunOutcomes() {
        self.pendingOutcomes = [];
      },
      completeRuns() {
        const now = self.nowMs();
        for (const t of self.threadsById.values()) {
          const i = t.interactions[t.interactions.length - 1];
          if (i && self.statusOf(i, now) === 'running') i.durationMs = Math.max(0, now - i.createdAt);
        }
        self.settle();
      },
      requests: () => self.log.map((e) => (e.rpc ? { ...e, rpc: e.rpc.map((r) => ({ ...r })) } : { ...e })),
      charges: () => {
        self.settle();
        return self.chargeLog.map((c) => ({ ...c }));
      },
      clearRequests() {
        self.log = [];
        self.chargeLog = [];
      },
      threads(key) {
        const label = key !== undefined ? keyOf(key).label : undefined;
        return [...self.threadsById.values()]
          .filter((t) => label === undefined || t.owner === label)
          .map((t) => ({
            threadId: t.id,
            title: t.title,
            interactions: t.interactions.length,
            status: self.statusOf(t.interactions[t.interactions.length - 1]!),
            runMs: t.interactions[t.interactions.length - 1]!.durationMs,
          }));
      },
      corpus: () => self.engine.papers,
      paper: (id) => self.engine.byId.get(id),
      setMcpAnonymous(on) {
        self.mcpAnonymous = on;
      },
      oauthAutoApprove(key) {
        self.oauth.autoApprove = key === null ? undefined : keyOf(key).key;
      },
      setOAuthLifetimes(l) {
        for (const [k, v] of Object.entries(l) as [keyof OAuthLifetimes, unknown][]) {
          if (!(k in self.oauth.lifetimes) || typeof v !== 'number' || !(v > 0))
            throw new Error(`Invalid OAuth lifetime: ${String(k)}`);
          self.oauth.lifetimes[k] = v;
        }
      },
      oauthGrants: () => self.oauth.info((key) => self.keys.get(key)?.label ?? '(unknown)'),
      reset() {
        self.resetState();
      },
    };
  }

  private handleControl(method: string, path: string, text: string): Outcome {
    const name = path.slice('/_emulator/'.length);
    if (!CONTROL_METHODS.has(name)) return err(404, `Unknown control method: ${name.slice(0, 60)}`, 'not_found');
    let args: unknown[] = [];
    if (method === 'POST' && text.trim() !== '') {
      try {
        const v = JSON.parse(text) as unknown;
        args = Array.isArray(v) ? v : [v];
      } catch {
        return err(400, 'Control body must be JSON (an array of arguments).', 'bad_request');
      }
    } else if (method !== 'GET' && method !== 'POST')
      return err(405, 'Method Not Allowed', 'method_not_allowed', { allow: 'GET, POST' });
    try {
      this.settle();
      const fn = (this.control as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!;
      const result = fn.apply(this.control, args);
      return { status: 200, body: { result: result instanceof Date ? result.toISOString() : (result ?? null) } };
    } catch (e) {
      return err(400, e instanceof Error ? e.message : String(e), 'bad_request');
    }
  }
}

export { SearchEngine };
export type { Citation };

/** A JSON-RPC message of an MCP POST, for the request log. */
function describeRpc(m: unknown): McpRpcLogEntry {
  if (typeof m !== 'object' || m === null || typeof (m as { method?: unknown }).method !== 'string')
    return { method: 'invalid' };
  const r = m as { method: string; id?: unknown; params?: { name?: unknown; arguments?: unknown } };
  const out: McpRpcLogEntry = { method: r.method.slice(0, 100) };
  if (typeof r.id === 'string' || typeof r.id === 'number') out.id = r.id;
  if (r.method === 'tools/call' && typeof r.params === 'object' && r.params !== null) {
    if (typeof r.params.name === 'string') out.tool = r.params.name;
    out.arguments = r.params.arguments;
  }
  return out;
}
