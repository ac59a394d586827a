// The MCP server at /mcp, driven by the MCP SDK's own client (the reference client) over real HTTP: the tool and its
// schema, the three ways in (none, a bearer key, refused keys), the shared pool, tool errors, the study-type vocabulary.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_KEYS, MONTHLY_MESSAGE, RATE_MESSAGE, matchesFilters, startEmulator, type RunningEmulator } from './index';
import { call, paperIdOf, type SearchBody } from './testHelpers';

// Written out from the spec, not imported, so a drift in the emulator's table fails here.
const SPEC_PARAMS = [
  'query',
  'year_min',
  'year_max',
  'study_types',
  'sjr_max',
  'sjr_min',
  'human',
  'controlled',
  'sample_size_min',
  'citation_min',
  'medical_mode',
  'exclude_preprints',
  'open_access',
  'duration_min',
  'duration_max',
  'country',
  'include_full_text_chunks',
];
const SPEC_STUDY_TYPES = [
  'rct',
  'meta-analysis',
  'systematic review',
  'literature review',
  'case report',
  'non-rct experimental',
  'non-rct observational study',
  'non-rct in vitro',
  'animal',
];
/** The corpus types each MCP value selects (README, "MCP study types"). */
const SELECTS: Record<string, string[]> = {
  rct: ['rct'],
  'meta-analysis': ['meta-analysis'],
  'systematic review': ['systematic review'],
  'literature review': ['literature review'],
  'case report': ['case report', 'case study'],
  'non-rct experimental': ['non-rct experimental', 'non-randomized experimental study'],
  'non-rct observational study': [
    'non-rct observational study',
    'cohort study',
    'case-control study',
    'cross-sectional study',
    'longitudinal / panel data study',
  ],
  'non-rct in vitro': ['non-rct in vitro', 'bench experiment'],
  animal: ['animal'],
};

type Paper = Record<string, unknown>;

describe('emulator: MCP server', function () {
  let emu: RunningEmulator;
  const clients: Client[] = [];
  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, now: '2026-11-20T10:00:00Z', speed: 1000 });
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'emulator-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${emu.url}/mcp`), { requestInit: { headers } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const bearer = (key: string): Promise<Client> => connect({ authorization: `Bearer ${key}` });

  async function search(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name: 'search', arguments: args })) as CallToolResult;
  }
  /** The papers of a successful call; its text block is the same JSON as its structured content. */
  async function papers(client: Client, args: Record<string, unknown>): Promise<Paper[]> {
    const r = await search(client, args);
    assert.notEqual(r.isError, true, `tool error: ${JSON.stringify(r.content)}`);
    const first = r.content[0];
    assert.ok(first && first.type === 'text');
    assert.deepEqual(JSON.parse(first.text), r.structuredContent);
    const results = (r.structuredContent as { results: Paper[] }).results;
    assert.ok(Array.isArray(results));
    return results;
  }
  /** The text of a tool error. */
  async function toolError(client: Client, args: Record<string, unknown>): Promise<string> {
    const r = await search(client, args);
    assert.equal(r.isError, true, `expected a tool error for ${JSON.stringify(args)}`);
    const first = r.content[0];
    assert.ok(first && first.type === 'text');
    return first.text;
  }
  async function rest(key: string, params: Record<string, string | number | boolean>): Promise<Paper[]> {
    const q = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const r = await call<SearchBody>(emu.url, `/v1/search?${q.toString()}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.results;
  }
  const urls = (ps: Paper[]): string[] => ps.map((p) => String(p.url));
  const mcpPosts = (): ReturnType<RunningEmulator['control']['requests']> =>
    emu.control.requests().filter((e) => e.route === 'mcp' && e.method === 'POST');

  describe('the tool', () => {
    it('tools/list shows one tool, search, taking exactly the spec parameters', async () => {
      const client = await connect();
      assert.equal(client.getServerVersion()?.name, 'research-service-emulator');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['search'],
      );
      const s = tools[0]!.inputSchema as unknown as {
        properties: Record<string, { type: string; items?: { enum?: string[] }; minimum?: number; maximum?: number }>;
        required: string[];
        additionalProperties: boolean;
      };
      assert.deepEqual(Object.keys(s.properties), SPEC_PARAMS);
      assert.deepEqual(s.required, ['query']);
      assert.equal(s.additionalProperties, false);
      assert.deepEqual(s.properties.study_types!.items!.enum, SPEC_STUDY_TYPES);
      assert.deepEqual([s.properties.sjr_max!.minimum, s.properties.sjr_max!.maximum], [1, 4]);
      assert.equal(s.properties.sample_size_min!.minimum, 1);
      for (const n of ['year_min', 'year_max', 'citation_min', 'duration_min', 'duration_max'])
        assert.equal(s.properties[n]!.type, 'integer', n);
      for (const n of ['human', 'controlled', 'medical_mode', 'exclude_preprints', 'open_access'])
        assert.equal(s.properties[n]!.type, 'boolean', n);
      assert.ok(tools[0]!.outputSchema, 'declares its structured result');
      assert.ok(tools[0]!.description && /3 papers/.test(tools[0]!.description));
    });

    it('ranks as GET /v1/search does, with the same records', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const viaMcp = await papers(client, { query: 'creatine cognition' });
      const viaRest = await rest(DEMO_KEYS.teams, { query: 'creatine cognition' });
      assert.equal(viaMcp.length, 20);
      assert.deepEqual(viaMcp, viaRest);
    });

    it('every filter reaches the ranking as on /v1/search, and each one changes the result', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const base = urls(await papers(client, { query: 'sleep' }));
      const cases: Record<string, number | boolean | string>[] = [
        { year_min: 2020 },
        { year_max: 2015 },
        { sjr_max: 1 },
        { sjr_min: 3 },
        { human: true },
        { controlled: true },
        { sample_size_min: 500 },
        { citation_min: 50 },
        { medical_mode: true },
        { exclude_preprints: true },
        { open_access: true },
        { duration_min: 100 },
        { duration_max: 60 },
        { country: 'US' },
      ];
      for (const f of cases) {
        const viaMcp = await papers(client, { query: 'sleep', ...f });
        const viaRest = await rest(DEMO_KEYS.teams, { query: 'sleep', ...f });
        const name = Object.keys(f)[0]!;
        assert.ok(viaMcp.length > 0, name);
        assert.deepEqual(urls(viaMcp), urls(viaRest), name);
        assert.notDeepEqual(urls(viaMcp), base, `${name} filters something`);
      }
      // All at once, and every paper passes the filter predicate.
      const all = { year_min: 2005, sjr_max: 3, human: true, exclude_preprints: true, country: 'us,gb,de,zz' };
      const viaMcp = await papers(client, { query: 'sleep', ...all });
      assert.deepEqual(urls(viaMcp), urls(await rest(DEMO_KEYS.teams, { query: 'sleep', ...all })));
      assert.ok(viaMcp.length > 0);
      for (const p of viaMcp) {
        const paper = emu.control.paper(paperIdOf(p.url))!;
        assert.ok(
          matchesFilters(paper, { ...all, country: ['US', 'GB', 'DE'] }),
          `${String(p.title)} passes the filters`,
        );
      }
    });

    it('unknown country codes are ignored and null counts as not given, as on /v1/search', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const base = urls(await papers(client, { query: 'sleep' }));
      assert.deepEqual(urls(await papers(client, { query: 'sleep', country: 'ZZ,QQ' })), base);
      assert.deepEqual(urls(await papers(client, { query: 'sleep', year_min: null, human: null })), base);
    });

    it('excerpts on paid plans, the same as /v1/search gives', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const args = { query: 'sleep deprivation memory', include_full_text_chunks: true };
      const viaMcp = await papers(client, args);
      assert.ok(
        viaMcp.some((p) => Array.isArray(p.full_text_chunks) && p.full_text_chunks.length > 0),
        'some paper carries excerpts',
      );
      assert.deepEqual(viaMcp, await rest(DEMO_KEYS.teams, args));
      assert.ok(
        (await papers(client, { query: 'sleep deprivation memory' })).every((p) => !('full_text_chunks' in p)),
        'absent when not asked for',
      );
    });
  });

  describe('without credentials', () => {
    it('at most 3 papers, the top 3 of the same ranking, in the free shape; nothing charged anywhere', async () => {
      const client = await connect();
      const viaMcp = await papers(client, { query: 'creatine cognition' });
      assert.equal(viaMcp.length, 3);
      assert.deepEqual(viaMcp, (await rest(DEMO_KEYS.free, { query: 'creatine cognition' })).slice(0, 3));
      assert.ok(!('study_type' in viaMcp[0]!), 'no paid fields without an account');
      emu.control.clearRequests(); // the REST search above was charged to the free key
      await papers(client, { query: 'sleep', study_types: ['rct'] });
      assert.deepEqual(emu.control.charges(), []);
      const calls = mcpPosts().filter((e) => e.rpc?.[0]?.method === 'tools/call');
      assert.equal(calls.length, 1);
      assert.deepEqual(
        [calls[0]!.auth, calls[0]!.keyKind, calls[0]!.keyLabel, calls[0]!.charged],
        ['none', 'none', null, 0],
      );
      for (const k of ['pro', 'free', 'teams', 'enterprise', 'deep'] as const)
        assert.equal(emu.control.getUsage(DEMO_KEYS[k]).used, k === 'free' ? 1 : 0);
    });

    it('no per-second limit and no pool', async () => {
      emu.control.setRateLimits(true);
      const client = await connect();
      const rs = await Promise.all([1, 2, 3, 4].map(() => search(client, { query: 'sleep' })));
      assert.ok(rs.every((r) => r.isError !== true));
    });

    it('x-api-key is not read on /mcp: such a request is anonymous', async () => {
      const client = await connect({ 'x-api-key': DEMO_KEYS.pro });
      assert.equal((await papers(client, { query: 'sleep' })).length, 3);
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 0);
      assert.ok(mcpPosts().every((e) => e.auth === 'none' && e.keyLabel === null));
    });

    it('excerpts need a paid plan: a tool error naming the field', async () => {
      const client = await connect();
      const text = await toolError(client, { query: 'sleep', include_full_text_chunks: true });
      assert.match(text, /^include_full_text_chunks: .*paid plans/);
    });
  });

  describe('with a bearer API key', () => {
    it("the key's page size cap: pro 20, free 10, a custom enterprise maximum of 5", async () => {
      const custom = emu.control.provisionKey({ plan: 'enterprise', maxPageSize: 5 });
      const want: [string, number][] = [
        [DEMO_KEYS.pro, 20],
        [DEMO_KEYS.free, 10],
        [custom, 5],
      ];
      for (const [key, n] of want) {
        const client = await bearer(key);
        assert.equal((await papers(client, { query: 'sleep' })).length, n);
      }
    });

    it('any plan may use a bearer key here (REST takes Bearer only from enterprise keys)', async () => {
      assert.equal((await call(emu.url, '/v1/search?query=sleep', { bearer: DEMO_KEYS.pro })).status, 401);
      const client = await bearer(DEMO_KEYS.pro);
      const ps = await papers(client, { query: 'sleep' });
      assert.equal(typeof ps[0]!.study_type, 'string', 'paid fields for a paid plan');
    });

    it('one call per search, from the pool /v1/search uses; connecting and listing cost nothing', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      await client.listTools();
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 0);
      await papers(client, { query: 'sleep' });
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 1);
      await rest(DEMO_KEYS.pro, { query: 'sleep' });
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 2);
      await papers(client, { query: 'caffeine', study_types: ['rct'] });
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 3);
      assert.deepEqual(
        emu.control.charges().map((c) => [c.keyLabel, c.reason, c.calls]),
        [
          ['demo:pro', 'mcp', 1],
          ['demo:pro', 'search', 1],
          ['demo:pro', 'mcp', 1],
        ],
      );
      // The request log names the tool call, its arguments and how it was authenticated (never the key).
      const calls = mcpPosts().filter((e) => e.rpc?.[0]?.method === 'tools/call');
      assert.deepEqual(
        calls.map((e) => [e.auth, e.keyKind, e.keyLabel, e.charged, e.status]),
        [
          ['bearer', 'pro', 'demo:pro', 1, 200],
          ['bearer', 'pro', 'demo:pro', 1, 200],
        ],
      );
      assert.deepEqual(calls[1]!.rpc, [
        {
          method: 'tools/call',
          id: calls[1]!.rpc![0]!.id,
          tool: 'search',
          arguments: { query: 'caffeine', study_types: ['rct'] },
          isError: false,
        },
      ]);
      assert.deepEqual(
        mcpPosts().map((e) => e.rpc?.[0]?.method),
        ['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call'],
      );
      assert.ok(!JSON.stringify(emu.control.requests()).includes(DEMO_KEYS.pro), 'the log never holds a key');
    });

    it('429 once the pool is spent, word for word as on /v1/search, shared both ways; nothing charged', async () => {
      emu.control.setUsage(DEMO_KEYS.free, 29);
      const client = await bearer(DEMO_KEYS.free);
      await papers(client, { query: 'sleep' });
      assert.equal(emu.control.getUsage(DEMO_KEYS.free).used, 30);
      assert.equal(await toolError(client, { query: 'sleep' }), MONTHLY_MESSAGE('2026-12-01'));
      const r = await call<{ detail: string }>(emu.url, '/v1/search?query=sleep', { key: DEMO_KEYS.free });
      assert.equal(r.status, 429);
      assert.equal(r.body.detail, MONTHLY_MESSAGE('2026-12-01'));
      assert.equal(emu.control.getUsage(DEMO_KEYS.free).used, 30);
      const refused = mcpPosts().at(-1)!;
      assert.deepEqual([refused.charged, refused.rpc?.[0]?.isError], [0, true]);
      // The other way: REST spends a pool, then MCP is refused; a new month opens it again.
      emu.control.setUsage(DEMO_KEYS.pro, 499);
      await rest(DEMO_KEYS.pro, { query: 'sleep' });
      const pro = await bearer(DEMO_KEYS.pro);
      assert.equal(await toolError(pro, { query: 'sleep' }), MONTHLY_MESSAGE('2026-12-01'));
      emu.control.setClock('2026-12-01T00:00:01Z');
      assert.equal((await papers(pro, { query: 'sleep' })).length, 20);
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 1);
    });

    it('the per-second limit is shared with /v1/search and comes back as a tool error', async () => {
      emu.control.setRateLimits(true);
      const client = await bearer(DEMO_KEYS.teams);
      await rest(DEMO_KEYS.teams, { query: 'sleep' });
      assert.equal(await toolError(client, { query: 'sleep' }), RATE_MESSAGE);
      assert.equal(emu.control.getUsage(DEMO_KEYS.teams).used, 1, 'the refused call costs nothing');
    });

    it('revoked keys get 401 and past-due keys 402, as on the REST API; nothing charged', async () => {
      const refusedWith = async (key: string): Promise<StreamableHTTPError> => {
        const e = await bearer(key).then(
          () => undefined,
          (x: unknown) => x,
        );
        assert.ok(e instanceof StreamableHTTPError, `connect fails: ${String(e)}`);
        return e;
      };
      const revoked = await refusedWith(DEMO_KEYS.revoked);
      assert.equal(revoked.code, 401);
      assert.match(revoked.message, /revoked_api_key/);
      const pastDue = await refusedWith(DEMO_KEYS.pastDue);
      assert.equal(pastDue.code, 402);
      assert.match(pastDue.message, /payment_required/);
      const unknown = await refusedWith('not-a-key');
      assert.equal(unknown.code, 401);
      assert.match(unknown.message, /invalid_token/);
      assert.deepEqual(
        mcpPosts().map((e) => [e.status, e.keyKind]),
        [
          [401, 'revoked'],
          [402, 'pastDue'],
          [401, 'invalid'],
        ],
      );
      assert.deepEqual(emu.control.charges(), []);
    });

    it('a key revoked or past due after connecting: the next call is refused over HTTP', async () => {
      const k = emu.control.provisionKey({ plan: 'pro' });
      const client = await bearer(k);
      await papers(client, { query: 'sleep' });
      emu.control.setKeyStatus(k, 'pastDue');
      await assert.rejects(search(client, { query: 'sleep' }), (e: unknown) => {
        assert.ok(e instanceof StreamableHTTPError);
        assert.equal(e.code, 402);
        return true;
      });
      emu.control.setKeyStatus(k, 'revoked');
      await assert.rejects(
        search(client, { query: 'sleep' }),
        (e: unknown) => e instanceof StreamableHTTPError && e.code === 401,
      );
      assert.equal(emu.control.getUsage(k).used, 1);
    });

    it('401 answers carry a Bearer challenge; a non-Bearer Authorization header is refused', async () => {
      const post = (authorization: string): Promise<Response> =>
        fetch(`${emu.url}/mcp`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      const revoked = await post(`Bearer ${DEMO_KEYS.revoked}`);
      assert.equal(revoked.status, 401);
      assert.match(revoked.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
      const basic = await post(`Basic ${Buffer.from(`x:${DEMO_KEYS.pro}`).toString('base64')}`);
      assert.equal(basic.status, 401);
      assert.equal(((await basic.json()) as { code: string }).code, 'invalid_authorization');
      assert.match(basic.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_request"/);
    });
  });

  describe('tool errors', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 7 }, 'query'],
      [{ query: 'sleep', year_min: '2020' }, 'year_min'],
      [{ query: 'sleep', year_max: 2020.5 }, 'year_max'],
      [{ query: 'sleep', sjr_max: 5 }, 'sjr_max'],
      [{ query: 'sleep', sjr_min: 0 }, 'sjr_min'],
      [{ query: 'sleep', sample_size_min: 0 }, 'sample_size_min'],
      [{ query: 'sleep', citation_min: 'many' }, 'citation_min'],
      [{ query: 'sleep', duration_min: true }, 'duration_min'],
      [{ query: 'sleep', duration_max: '30' }, 'duration_max'],
      [{ query: 'sleep', human: 'yes' }, 'human'],
      [{ query: 'sleep', controlled: 1 }, 'controlled'],
      [{ query: 'sleep', medical_mode: 'true' }, 'medical_mode'],
      [{ query: 'sleep', exclude_preprints: 0 }, 'exclude_preprints'],
      [{ query: 'sleep', open_access: [] }, 'open_access'],
      [{ query: 'sleep', include_full_text_chunks: 'yes' }, 'include_full_text_chunks'],
      [{ query: 'sleep', study_types: 'rct' }, 'study_types'],
      [{ query: 'sleep', study_types: ['rct', 'cohort study'] }, 'study_types[1]'],
      [{ query: 'sleep', country: ['US'] }, 'country'],
      [{ query: 'sleep', page_size: 5 }, 'page_size'],
      [{ query: 'sleep', domain: 'med' }, 'domain'],
      [{ query: 'sleep', study_type: ['rct'] }, 'study_type'],
    ];
    it('each bad argument is a tool error whose one problem names the field; nothing charged', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      for (const [args, field] of cases) {
        const lines = (await toolError(client, args)).split('\n');
        assert.equal(lines[0], 'Invalid arguments for the search tool:', JSON.stringify(args));
        assert.equal(lines.length, 2, `one problem for ${JSON.stringify(args)}: ${lines.join(' | ')}`);
        assert.ok(lines[1]!.startsWith(`${field}: `), `${JSON.stringify(args)} → ${lines[1]}`);
      }
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 0);
      assert.ok(mcpPosts().every((e) => e.charged === 0));
    });

    it('every problem at once, and the study-type error lists the nine values', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const text = await toolError(client, {
        query: '',
        year_min: 'x',
        sjr_max: 9,
        study_types: ['cohort study'],
        month_min: 3,
      });
      const fields = text
        .split('\n')
        .slice(1)
        .map((l) => l.slice(0, l.indexOf(':')));
      assert.deepEqual(fields.sort(), ['month_min', 'query', 'sjr_max', 'study_types[0]', 'year_min']);
      for (const t of SPEC_STUDY_TYPES) assert.ok(text.includes(`"${t}"`), t);
    });

    it('an unknown tool is a protocol error (invalid params)', async () => {
      const client = await connect();
      await assert.rejects(
        client.callTool({ name: 'search_papers', arguments: { query: 'x' } }),
        /-32602.*search_papers/,
      );
    });

    it('GET and DELETE answer 405 (a stateless server: no stream, no session); a body that is not JSON, 400', async () => {
      for (const method of ['GET', 'DELETE']) {
        const r = await fetch(`${emu.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        assert.equal(r.status, 405, method);
        assert.equal(r.headers.get('allow'), 'POST');
      }
      const bad = await fetch(`${emu.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc": "2.0", "id": 1, "method": ',
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
    });
  });

  it('the REST emulator never loads the SDK; /mcp loads it, and express only with the first OAuth request', async () => {
    const script = `
      const { startEmulator } = require(${JSON.stringify(join(__dirname, 'index.ts'))});
      const loaded = (name) => Object.keys(require.cache).filter((k) => k.includes('/node_modules/' + name + '/')).length;
      const both = () => [loaded('@modelcontextprotocol/sdk'), loaded('express')];
      (async () => {
        const emu = await startEmulator({ port: 0, corpusSize: 50 });
        await fetch(emu.url + '/v1/search?query=sleep');
        const rest = both();
        await fetch(emu.url + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json',
          accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
        const mcp = both();
        await fetch(emu.url + '/.well-known/oauth-authorization-server');
        console.log(JSON.stringify([rest, mcp, both()]));
        await emu.close();
      })();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], {
      timeout: 30_000,
    });
    const [rest, mcp, oauth] = JSON.parse(stdout) as [number, number][];
    assert.deepEqual(rest, [0, 0]);
    assert.ok(mcp![0] > 0);
    assert.equal(mcp![1], 0);
    assert.ok(oauth![1] > 0);
  });

  describe('the MCP study types', () => {
    it('each of the nine selects its corpus types, ranked as /v1/search ranks those types', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      for (const t of SPEC_STUDY_TYPES) {
        const viaMcp = await papers(client, { query: 'sleep', study_types: [t] });
        assert.ok(viaMcp.length >= 18, `${t}: ${viaMcp.length} papers`);
        for (const p of viaMcp) assert.ok(SELECTS[t]!.includes(String(p.study_type)), `${t} → ${String(p.study_type)}`);
        const viaRest = await rest(DEMO_KEYS.teams, { query: 'sleep', study_types: SELECTS[t]!.join(',') });
        assert.deepEqual(urls(viaMcp), urls(viaRest), t);
      }
    });

    it('a coarse value selects the finer designs it covers (a cohort study is a non-RCT observational study)', async () => {
      const client = await bearer(DEMO_KEYS.pro);
      const finer = async (t: string): Promise<Set<string>> =>
        new Set(
          (await papers(client, { query: 'sleep', study_types: [t] }))
            .map((p) => String(p.study_type))
            .filter((s) => s !== t),
        );
      assert.ok((await finer('case report')).has('case study'));
      assert.ok((await finer('non-rct experimental')).has('non-randomized experimental study'));
      assert.ok((await finer('non-rct observational study')).has('cohort study'));
      assert.ok((await finer('non-rct in vitro')).has('bench experiment'));
      // Several values together select the union; case and spacing are forgiven as on /v1/search.
      const both = await papers(client, { query: 'sleep', study_types: ['RCT', ' meta-analysis '] });
      assert.deepEqual(new Set(both.map((p) => p.study_type)), new Set(['rct', 'meta-analysis']));
    });
  });
});
