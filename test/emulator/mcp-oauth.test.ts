// OAuth 2.0 for the MCP server: discovery (RFC 9728, RFC 8414), registration (RFC 7591), the authorization code with
// PKCE S256 through the consent page or control's auto-approval, tokens bound to an account, expiry, refresh,
// revocation. End to end with the MCP SDK's own client, and step by step over raw HTTP for what it never gets wrong.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_KEYS, startEmulator, type RunningEmulator } from './index';

const REDIRECT = 'http://127.0.0.1:33418/callback';

interface FormReply {
  status: number;
  body: Record<string, string>;
  headers: Headers;
}

/** The reference client's side of OAuth, in memory; the "browser" follows /authorize without following its redirect. */
class TestOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  code: string | undefined;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'Emulator test client',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed): void {
    this.info = i;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(t: OAuthTokens): void {
    this.saved = t;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    const r = await fetch(url, { redirect: 'manual' });
    assert.equal(r.status, 302, `auto-approval redirects at once: ${await r.text()}`);
    this.code = new URL(r.headers.get('location')!).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

const pkce = (): { verifier: string; challenge: string } => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describe('emulator: MCP server, OAuth 2.0', function () {
  let emu: RunningEmulator;
  let mcp: string;
  const clients: Client[] = [];
  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, now: '2026-11-20T10:00:00Z', speed: 1000 });
    mcp = `${emu.url}/mcp`;
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  const getJson = async <T>(path: string): Promise<{ status: number; body: T; headers: Headers }> => {
    const r = await fetch(`${emu.url}${path}`);
    return { status: r.status, body: (await r.json()) as T, headers: r.headers };
  };
  const postForm = async <T = Record<string, string>>(
    path: string,
    form: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Headers }> => {
    const r = await fetch(`${emu.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    const text = await r.text();
    return { status: r.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as T, headers: r.headers };
  };
  const register = async (
    meta: Record<string, unknown> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const r = await fetch(`${emu.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'raw client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        ...meta,
      }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}): string =>
    `${emu.url}/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'search',
      state: 'st-1',
      resource: mcp,
      ...extra,
    }).toString()}`;
  const location = (r: Response | { headers: Headers }): URL => new URL(r.headers.get('location')!);
  /** Register, authorize (auto-approved for `key`'s account) and exchange: a token response and the client id. */
  async function grant(key: string): Promise<{ clientId: string; tokens: Record<string, string | number> }> {
    emu.control.oauthAutoApprove(key);
    const clientId = String((await register()).body.client_id);
    const { verifier, challenge } = pkce();
    const a = await fetch(authorizeUrl(clientId, challenge), { redirect: 'manual' });
    assert.equal(a.status, 302);
    const code = location(a).searchParams.get('code')!;
    const t = await postForm<Record<string, string | number>>('/token', {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource: mcp,
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    return { clientId, tokens: t.body };
  }
  /** A raw tools/list on /mcp with this bearer token. */
  const mcpWith = (token: string): Promise<Response> =>
    fetch(mcp, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  async function connectWith(provider: TestOAuthProvider): Promise<Client> {
    const client = new Client({ name: 'emulator-oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider }));
    clients.push(client);
    return client;
  }
  async function resultsOf(client: Client): Promise<unknown[]> {
    const r = (await client.callTool({ name: 'search', arguments: { query: 'sleep' } })) as CallToolResult;
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    return (r.structuredContent as { results: unknown[] }).results;
  }

  describe('discovery', () => {
    it('protected-resource metadata (RFC 9728) at the resource path and the root', async () => {
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const r = await getJson<Record<string, unknown>>(path);
        assert.equal(r.status, 200, path);
        assert.equal(r.body.resource, mcp, path);
        assert.deepEqual(r.body.authorization_servers, [`${emu.url}/`], path);
        assert.deepEqual(r.body.scopes_supported, ['search'], path);
        assert.equal(r.headers.get('access-control-allow-origin'), '*', `${path}: readable from a browser`);
      }
    });

    it('authorization-server metadata (RFC 8414): code with PKCE S256, refresh, registration, revocation', async () => {
      const { status, body } = await getJson<Record<string, unknown>>('/.well-known/oauth-authorization-server');
      assert.equal(status, 200);
      assert.equal(body.issuer, `${emu.url}/`);
      assert.equal(body.authorization_endpoint, `${emu.url}/authorize`);
      assert.equal(body.token_endpoint, `${emu.url}/token`);
      assert.equal(body.registration_endpoint, `${emu.url}/register`);
      assert.equal(body.revocation_endpoint, `${emu.url}/revoke`);
      assert.deepEqual(body.response_types_supported, ['code']);
      assert.deepEqual(body.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(body.grant_types_supported, ['authorization_code', 'refresh_token']);
      assert.deepEqual(body.scopes_supported, ['search']);
    });

    it('every 401 of /mcp points at the metadata; without credentials only when anonymous use is off', async () => {
      const metadata = `resource_metadata="${emu.url}/.well-known/oauth-protected-resource/mcp"`;
      const unknown = await mcpWith('rd_at_not-a-token');
      assert.equal(unknown.status, 401);
      assert.equal(((await unknown.json()) as { code: string }).code, 'invalid_token');
      const challenge = unknown.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer error="invalid_token"/);
      assert.ok(challenge.includes(metadata), challenge);
      const revoked = await mcpWith(DEMO_KEYS.revoked);
      assert.ok(revoked.headers.get('www-authenticate')?.includes(metadata));

      const anonymous = (): Promise<Response> =>
        fetch(mcp, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      assert.equal((await anonymous()).status, 200);
      emu.control.setMcpAnonymous(false);
      const r = await anonymous();
      assert.equal(r.status, 401);
      assert.equal(((await r.json()) as { code: string }).code, 'missing_credentials');
      assert.equal(r.headers.get('www-authenticate'), `Bearer ${metadata}, scope="search"`);
      assert.equal((await mcpWith(DEMO_KEYS.pro)).status, 200, 'an API key still works');
    });
  });

  describe('registration (RFC 7591)', () => {
    it('registers public and confidential clients; refuses metadata without redirect URIs', async () => {
      const pub = await register();
      assert.equal(pub.status, 201);
      assert.equal(typeof pub.body.client_id, 'string');
      assert.equal(pub.body.client_secret, undefined, 'a public client gets no secret');
      assert.deepEqual(pub.body.redirect_uris, [REDIRECT]);
      const conf = await register({ token_endpoint_auth_method: 'client_secret_post' });
      assert.equal(conf.status, 201);
      assert.equal(typeof conf.body.client_secret, 'string');
      assert.notEqual(conf.body.client_id, pub.body.client_id);
      const bad = await fetch(`${emu.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'no redirects' }),
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { error: string }).error, 'invalid_client_metadata');
    });
  });

  describe('the SDK client, end to end', () => {
    it('401 → discovery → registration → auto-approved code → tokens → searches on the bound account', async () => {
      emu.control.setMcpAnonymous(false);
      emu.control.oauthAutoApprove(DEMO_KEYS.free);
      const provider = new TestOAuthProvider();
      const first = new Client({ name: 'emulator-oauth-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
      await assert.rejects(first.connect(transport), UnauthorizedError);
      assert.ok(provider.code, 'the authorization answered with a code');
      await transport.finishAuth(provider.code);
      assert.ok(provider.saved?.access_token && provider.saved.refresh_token);
      assert.equal(provider.saved.expires_in, 3600);

      const client = await connectWith(provider);
      assert.equal((await resultsOf(client)).length, 10, "the free account's page size");
      assert.equal(emu.control.getUsage(DEMO_KEYS.free).used, 1, "one call from the free account's pool");
      const call = emu.control.requests().find((e) => e.rpc?.[0]?.method === 'tools/call')!;
      assert.deepEqual([call.auth, call.keyKind, call.keyLabel, call.charged], ['oauth', 'free', 'demo:free', 1]);
      assert.deepEqual(
        emu.control
          .requests()
          .map((e) => `${e.method} ${e.path} ${e.status}`)
          .slice(0, 6),
        [
          'POST /mcp 401',
          'GET /.well-known/oauth-protected-resource/mcp 200',
          'GET /.well-known/oauth-authorization-server 200',
          'POST /register 201',
          'GET /authorize 302',
          `GET /.well-known/oauth-protected-resource/mcp 200`,
        ],
      );
      const grants = emu.control.oauthGrants();
      assert.equal(grants.length, 1);
      assert.deepEqual(
        [grants[0]!.clientName, grants[0]!.accountLabel, grants[0]!.scopes, grants[0]!.revoked],
        ['Emulator test client', 'demo:free', ['search'], false],
      );
      const log = JSON.stringify([emu.control.requests(), grants]);
      assert.ok(!log.includes(provider.saved.access_token) && !log.includes(provider.saved.refresh_token));
      assert.ok(!log.includes(DEMO_KEYS.free), 'never a key');
    });

    it('an expired access token is refreshed by the client on its own; the call then goes through', async () => {
      emu.control.setMcpAnonymous(false);
      emu.control.oauthAutoApprove(DEMO_KEYS.pro);
      const provider = new TestOAuthProvider();
      const transport = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
      await assert.rejects(new Client({ name: 't', version: '1' }).connect(transport), UnauthorizedError);
      await transport.finishAuth(provider.code!);
      const client = await connectWith(provider);
      const before = provider.saved!;
      emu.control.advance(3601 * 1000);
      emu.control.clearRequests();
      assert.equal((await resultsOf(client)).length, 20);
      assert.notEqual(provider.saved!.access_token, before.access_token, 'a new access token');
      assert.notEqual(provider.saved!.refresh_token, before.refresh_token, 'the refresh token rotated');
      assert.deepEqual(
        emu.control
          .requests()
          .filter((e) => e.method !== 'GET' || e.path !== '/mcp') // the client's stream attempt, whenever it comes
          .map((e) => `${e.method} ${e.path} ${e.status}`),
        [
          'POST /mcp 401',
          'GET /.well-known/oauth-protected-resource/mcp 200',
          'GET /.well-known/oauth-authorization-server 200',
          'POST /token 200',
          'POST /mcp 200',
        ],
      );
      assert.equal(emu.control.getUsage(DEMO_KEYS.pro).used, 1, 'the refused call cost nothing');
    });

    it('a client may sign in while anonymous use is allowed (auth() before connecting)', async () => {
      emu.control.oauthAutoApprove(DEMO_KEYS.teams);
      const provider = new TestOAuthProvider();
      assert.equal(await auth(provider, { serverUrl: mcp }), 'REDIRECT');
      assert.equal(await auth(provider, { serverUrl: mcp, authorizationCode: provider.code }), 'AUTHORIZED');
      const client = await connectWith(provider);
      assert.equal((await resultsOf(client)).length, 20, 'not the anonymous 3');
      assert.equal(emu.control.getUsage(DEMO_KEYS.teams).used, 1);
    });
  });

  describe('the consent page', () => {
    it('names the client (escaped) and offers the accounts, never their keys; Allow binds the chosen one', async () => {
      const clientId = String((await register({ client_name: '<b>Evil & Co</b>' })).body.client_id);
      const { verifier, challenge } = pkce();
      const page = await fetch(authorizeUrl(clientId, challenge), { redirect: 'manual' });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      const html = await page.text();
      assert.ok(html.includes('&lt;b&gt;Evil &amp; Co&lt;/b&gt;') && !html.includes('<b>Evil'), 'client name escaped');
      for (const label of ['demo:free', 'demo:pro', 'demo:teams', 'demo:enterprise', 'demo:deep'])
        assert.ok(html.includes(`value="${label}"`), label);
      for (const key of Object.values(DEMO_KEYS)) assert.ok(!html.includes(key), 'no key on the page');
      const request = /name="request" value="([^"]+)"/.exec(html)![1]!;

      const ok = await postForm('/authorize/decision', { request, account: 'demo:teams', decision: 'approve' });
      assert.equal(ok.status, 302);
      const back = location(ok);
      assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
      assert.equal(back.searchParams.get('state'), 'st-1');
      const t = await postForm<Record<string, string | number>>('/token', {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      });
      assert.equal(t.status, 200);
      assert.deepEqual([t.body.token_type, t.body.expires_in, t.body.scope], ['Bearer', 3600, 'search']);
      assert.equal((await mcpWith(String(t.body.access_token))).status, 200);
      assert.equal(emu.control.oauthGrants()[0]!.accountLabel, 'demo:teams');
      // The page answers once.
      const again = await postForm('/authorize/decision', { request, account: 'demo:teams', decision: 'approve' });
      assert.equal(again.status, 400);
    });

    it('Deny sends access_denied back with the state; an unknown account is refused on the page', async () => {
      const clientId = String((await register()).body.client_id);
      const requestOf = async (): Promise<string> => {
        const html = await (await fetch(authorizeUrl(clientId, pkce().challenge))).text();
        return /name="request" value="([^"]+)"/.exec(html)![1]!;
      };
      const denied = await postForm('/authorize/decision', { request: await requestOf(), decision: 'deny' });
      assert.equal(denied.status, 302);
      assert.equal(location(denied).searchParams.get('error'), 'access_denied');
      assert.equal(location(denied).searchParams.get('state'), 'st-1');
      assert.equal(location(denied).searchParams.get('code'), null);
      const odd = await postForm('/authorize/decision', {
        request: await requestOf(),
        account: 'demo:nobody',
        decision: 'approve',
      });
      assert.equal(odd.status, 400);
      assert.deepEqual(emu.control.oauthGrants(), []);
    });
  });

  describe('codes, PKCE and requests refused', () => {
    it('a wrong code_verifier, a second use of a code (which withdraws its tokens), an expired code', async () => {
      emu.control.oauthAutoApprove(DEMO_KEYS.pro);
      const clientId = String((await register()).body.client_id);
      const codeFor = async (challenge: string): Promise<string> =>
        location(await fetch(authorizeUrl(clientId, challenge), { redirect: 'manual' })).searchParams.get('code')!;
      const exchange = (code: string, verifier: string): Promise<FormReply> =>
        postForm('/token', { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId });

      const p1 = pkce();
      const c1 = await codeFor(p1.challenge);
      const wrong = await exchange(c1, pkce().verifier);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      const good = await exchange(c1, p1.verifier);
      assert.equal(good.status, 200);
      assert.equal((await mcpWith(good.body.access_token!)).status, 200);
      const reused = await exchange(c1, p1.verifier);
      assert.equal(reused.body.error, 'invalid_grant');
      assert.equal((await mcpWith(good.body.access_token!)).status, 401, 'the first tokens are withdrawn');
      assert.equal(emu.control.oauthGrants()[0]!.revoked, true);

      const p2 = pkce();
      const c2 = await codeFor(p2.challenge);
      emu.control.advance(601 * 1000);
      assert.equal((await exchange(c2, p2.verifier)).body.error, 'invalid_grant');
    });

    it('errors before the redirect are answered; errors after it go back to the client', async () => {
      const clientId = String((await register()).body.client_id);
      const { challenge } = pkce();
      const direct = async (extra: Record<string, string>): Promise<Response> =>
        fetch(authorizeUrl(clientId, challenge, extra), { redirect: 'manual' });
      const badRedirect = await direct({ redirect_uri: 'https://elsewhere.example/cb' });
      assert.equal(badRedirect.status, 400, 'never redirect to an unregistered URI');
      assert.equal(((await badRedirect.json()) as { error: string }).error, 'invalid_request');
      assert.equal((await direct({ client_id: 'nobody' })).status, 400);
      // The state comes back once the request's parameters parse (the SDK's handler drops it before that: plain).
      const cases: [Record<string, string>, string, string | null][] = [
        [{ code_challenge_method: 'plain' }, 'invalid_request', null],
        [{ scope: 'search admin' }, 'invalid_scope', 'st-1'],
        [{ resource: `${emu.url}/elsewhere` }, 'invalid_target', 'st-1'],
      ];
      for (const [extra, error, state] of cases) {
        const r = await direct(extra);
        assert.equal(r.status, 302, JSON.stringify(extra));
        assert.equal(location(r).searchParams.get('error'), error, JSON.stringify(extra));
        assert.equal(location(r).searchParams.get('state'), state, JSON.stringify(extra));
        assert.equal(location(r).searchParams.get('code'), null);
      }
      assert.deepEqual(emu.control.oauthGrants(), []);
    });
  });

  describe('tokens', () => {
    it('expire by the emulated clock; a refresh rotates the refresh token; refresh tokens expire too', async () => {
      const { clientId, tokens } = await grant(DEMO_KEYS.pro);
      emu.control.advance(3601 * 1000);
      const expired = await mcpWith(String(tokens.access_token));
      assert.equal(expired.status, 401);
      assert.equal(((await expired.json()) as { code: string }).code, 'token_expired');
      assert.match(
        expired.headers.get('www-authenticate') ?? '',
        /error="invalid_token", error_description="The access token expired\."/,
      );
      const refresh = (token: string): Promise<FormReply> =>
        postForm('/token', { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
      const r1 = await refresh(String(tokens.refresh_token));
      assert.equal(r1.status, 200);
      assert.equal((await mcpWith(r1.body.access_token!)).status, 200);
      assert.equal((await refresh(String(tokens.refresh_token))).body.error, 'invalid_grant', 'the old one is retired');
      emu.control.advance(30 * 24 * 3600 * 1000 + 1000);
      assert.equal((await refresh(r1.body.refresh_token!)).body.error, 'invalid_grant', 'expired after 30 days');
    });

    it('lifetimes are set by control', async () => {
      emu.control.setOAuthLifetimes({ accessSeconds: 5 });
      const { tokens } = await grant(DEMO_KEYS.pro);
      assert.equal(tokens.expires_in, 5);
      emu.control.advance(6000);
      assert.equal((await mcpWith(String(tokens.access_token))).status, 401);
      assert.throws(() => emu.control.setOAuthLifetimes({ accessSeconds: 0 }), /lifetime/);
    });

    it('revocation (RFC 7009): an access token alone, or a refresh token with its grant', async () => {
      const a = await grant(DEMO_KEYS.pro);
      const revoke = (clientId: string, token: string): Promise<FormReply> =>
        postForm('/revoke', { token, client_id: clientId });
      assert.equal((await revoke(a.clientId, String(a.tokens.access_token))).status, 200);
      assert.equal((await mcpWith(String(a.tokens.access_token))).status, 401);
      const b = await grant(DEMO_KEYS.pro);
      assert.equal((await revoke(b.clientId, String(b.tokens.refresh_token))).status, 200);
      assert.equal((await mcpWith(String(b.tokens.access_token))).status, 401, "the grant's access token too");
      assert.equal(
        (
          await postForm('/token', {
            grant_type: 'refresh_token',
            refresh_token: String(b.tokens.refresh_token),
            client_id: b.clientId,
          })
        ).body.error,
        'invalid_grant',
      );
    });

    it("the account's state applies: past due 402, revoked 401; reset() forgets every grant", async () => {
      const k = emu.control.provisionKey({ plan: 'pro', label: 'oauth-account' });
      const { tokens } = await grant(k);
      assert.equal((await mcpWith(String(tokens.access_token))).status, 200);
      emu.control.setKeyStatus(k, 'pastDue');
      assert.equal((await mcpWith(String(tokens.access_token))).status, 402);
      emu.control.setKeyStatus(k, 'revoked');
      const r = await mcpWith(String(tokens.access_token));
      assert.equal(r.status, 401);
      assert.equal(((await r.json()) as { code: string }).code, 'revoked_api_key');
      const g = await grant(DEMO_KEYS.pro);
      emu.control.reset();
      assert.equal((await mcpWith(String(g.tokens.access_token))).status, 401);
      assert.deepEqual(emu.control.oauthGrants(), []);
    });
  });
});
