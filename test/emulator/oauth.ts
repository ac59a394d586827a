// OAuth 2.0 for the MCP server with the MCP SDK's authorization-server router: RFC 9728 protected-resource metadata,
// RFC 8414 authorization-server metadata, RFC 7591 registration, the authorization code with PKCE S256, refresh and
// RFC 7009 revocation. The SDK checks the protocol (client, redirect URI, PKCE verifier, grant types); the state and
// what the SDK leaves open (scopes, resource, the consent page and the account it binds) are the emulator's
// (oauthState.ts). Loaded on the first OAuth request only, like mcp.ts.
import type * as http from 'node:http';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  type AuthorizationRequest,
  type OAuthClient,
  OAUTH_SCOPES,
  OAuthFailure,
  type OAuthGrants,
} from './oauthState';

/** What the emulator's server lends the OAuth routes. */
export interface OAuthHost {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  readonly host: string;
  /** The current state (reset() replaces it). */
  grants(): OAuthGrants;
  /** The accounts the consent page offers (never their keys). */
  accounts(): { label: string; plan: string; status: string }[];
  /** The API key of the account with this label. */
  accountKey(label: string): string | undefined;
}

// Minimal views of express's request handler, app and response: the SDK types them with express's own types, which
// this project does not install (express comes with the SDK only).
type Handler = (req: http.IncomingMessage, res: Res) => void;
interface Res {
  status(code: number): Res;
  set(field: string, value: string): Res;
  type(t: string): Res;
  send(body: string): void;
  json(body: unknown): void;
  redirect(status: number, url: string): void;
}
interface App {
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  disable(setting: string): void;
  get(path: string, h: Handler): void;
  post(path: string, h: Handler): void;
  use(...handlers: unknown[]): void;
}

export const MCP_RESOURCE_NAME = 'Research service (emulator)';

const SDK_ERRORS = {
  invalid_request: InvalidRequestError,
  invalid_client: InvalidClientError,
  invalid_grant: InvalidGrantError,
  invalid_scope: InvalidScopeError,
  invalid_target: InvalidTargetError,
  access_denied: AccessDeniedError,
} as const;

/** Runs `f`, turning the state's failures into the SDK's errors (which its handlers answer per RFC 6749). */
function attempt<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(
      e instanceof OAuthFailure ? new SDK_ERRORS[e.code](e.message) : e instanceof Error ? e : new Error(String(e)),
    );
  }
}

function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

class EmulatorProvider implements OAuthServerProvider {
  constructor(private readonly host: OAuthHost) {}

  get clientsStore(): OAuthServerProvider['clientsStore'] {
    const grants = (): OAuthGrants => this.host.grants();
    return {
      getClient: (id: string) => grants().getClient(id),
      registerClient: (c) => grants().registerClient(c as OAuthClient),
    };
  }

  /** Auto-approves for the account control chose, or shows the consent page. */
  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Res): Promise<void> {
    return attempt(() => {
      const g = this.host.grants();
      const r: AuthorizationRequest = {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: g.checkRequest(params.scopes ?? [], params.resource?.href),
        state: params.state,
        resource: params.resource?.href,
      };
      if (g.autoApprove !== undefined) {
        res.redirect(302, redirectWith(r.redirectUri, { code: g.issueCode(r, g.autoApprove), state: r.state }));
        return;
      }
      const page = consentPage(g.beginConsent(r), client.client_name ?? client.client_id, r, this.host.accounts());
      res.status(200).set('cache-control', 'no-store').type('html').send(page);
    });
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return attempt(() => this.host.grants().challengeFor(client.client_id, code));
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return attempt(() => this.host.grants().exchangeCode(client.client_id, code, redirectUri, resource?.href));
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
  ): Promise<OAuthTokens> {
    return attempt(() => this.host.grants().exchangeRefresh(client.client_id, refreshToken, scopes));
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    const g = this.host.grants();
    const v = g.verify(token);
    if (v === undefined || v === 'expired')
      return Promise.reject(new InvalidTokenError(v === 'expired' ? 'The access token expired.' : 'Unknown token.'));
    return Promise.resolve({
      token,
      clientId: v.clientId,
      scopes: v.scopes,
      expiresAt: Math.floor((g.expiresAt(token) ?? 0) / 1000),
    });
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return attempt(() => this.host.grants().revoke(client.client_id, request.token));
  }
}

/** The request handler for every OAuth route (see OAUTH_PATHS in server.ts). */
export function createOAuthHandler(host: OAuthHost): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const issuer = new URL(host.baseUrl);
  const resource = new URL(`${host.baseUrl}/mcp`);
  // Host-header checks for loopback hosts (DNS rebinding) and a JSON body parser, as the SDK sets them up.
  const app = createMcpExpressApp({ host: host.host }) as unknown as App;
  app.disable('x-powered-by');

  app.post('/authorize/decision', (req, res) => {
    void readForm(req).then((form) => decide(host, form, res));
  });
  // The SDK serves the metadata at the resource's path (/.well-known/oauth-protected-resource/mcp, RFC 9728 §3.1);
  // the root form is for clients that look there.
  const prm = {
    resource: resource.href,
    authorization_servers: [issuer.href],
    scopes_supported: [...OAUTH_SCOPES],
    resource_name: MCP_RESOURCE_NAME,
  };
  app.get('/.well-known/oauth-protected-resource', (_req, res) => {
    res.set('access-control-allow-origin', '*').json(prm);
  });
  app.use(
    mcpAuthRouter({
      provider: new EmulatorProvider(host),
      issuerUrl: issuer,
      resourceServerUrl: resource,
      scopesSupported: [...OAUTH_SCOPES],
      resourceName: MCP_RESOURCE_NAME,
      // The emulator has its own limits; the SDK's per-endpoint limits would trip long test runs.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
      // Client secrets would expire by the real clock while tokens follow the emulated one: they do not expire.
      clientRegistrationOptions: { rateLimit: false, clientSecretExpirySeconds: 0 },
    }) as unknown,
  );
  app.use((_req: http.IncomingMessage, res: Res) => {
    res.status(404).json({ detail: 'Not Found', code: 'not_found' });
  });
  app.use((_e: unknown, _req: http.IncomingMessage, res: Res, _next: unknown) => {
    res.status(500).json({ detail: 'Internal emulator error.', code: 'internal_error' });
  });
  return (req, res) => app(req, res);
}

/** The consent page's answer: a code for the chosen account, or access_denied, sent back to the client. */
function decide(host: OAuthHost, form: URLSearchParams | undefined, res: Res): void {
  const r = form && host.grants().takeConsent(form.get('request') ?? '');
  if (!form || !r) {
    res
      .status(400)
      .type('html')
      .send(
        page(
          'Request expired',
          '<p>This authorization request is unknown or expired. Start again from the application.</p>',
        ),
      );
    return;
  }
  if (form.get('decision') !== 'approve') {
    const url = redirectWith(r.redirectUri, {
      error: 'access_denied',
      error_description: 'The account holder denied the request.',
      state: r.state,
    });
    res.redirect(302, url);
    return;
  }
  const key = host.accountKey(form.get('account') ?? '');
  if (key === undefined) {
    res
      .status(400)
      .type('html')
      .send(page('Unknown account', '<p>Choose one of the accounts offered. Start again from the application.</p>'));
    return;
  }
  res.redirect(302, redirectWith(r.redirectUri, { code: host.grants().issueCode(r, key), state: r.state }));
}

function readForm(req: http.IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    });
    req.on('end', () =>
      resolve(size <= 64 * 1024 ? new URLSearchParams(Buffer.concat(chunks).toString('utf8')) : undefined),
    );
    req.on('error', () => resolve(undefined));
  });
}

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(title)} — ${esc(MCP_RESOURCE_NAME)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin:.25rem 0}button{font:inherit;margin:1rem .5rem 0 0;padding:.4rem 1.2rem}</style>
</head><body><main>
${body}
</main></body></html>`;
}

/** The page a person answers: which demo account signs in, and whether the client may search for it. */
function consentPage(
  id: string,
  clientName: string,
  r: AuthorizationRequest,
  accounts: { label: string; plan: string; status: string }[],
): string {
  const firstActive = accounts.findIndex((a) => a.status === 'active' && a.plan !== 'free');
  const options = accounts
    .map(
      (a, i) =>
        `<label><input type="radio" name="account" value="${esc(a.label)}"${i === Math.max(0, firstActive) ? ' checked' : ''}> ` +
        `${esc(a.label)} (${esc(a.plan)}${a.status !== 'active' ? `, ${esc(a.status)}` : ''})</label>`,
    )
    .join('\n');
  return page(
    'Authorize',
    `<h1>Allow ${esc(clientName)} to search research papers for you?</h1>
<p>It asks for: <code>${esc(r.scopes.join(' '))}</code>. Each search it runs uses one call of the account's monthly pool.
It will be sent back to <code>${esc(r.redirectUri)}</code>.</p>
<form method="post" action="/authorize/decision">
<input type="hidden" name="request" value="${esc(id)}">
<fieldset><legend>Sign in as a demo account</legend>
${options}
</fieldset>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
