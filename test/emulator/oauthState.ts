// The MCP server's OAuth 2.0 state: registered clients, pending consents, authorization codes, grants and their
// tokens, each grant bound to one account (an API key's account: its plan and its monthly pool). Times are the
// emulator's clock, so a test expires a token by advancing it. No SDK here: the server checks tokens on every /mcp
// request without loading it; oauth.ts (which does) speaks the protocol on top of this.
import { randomBytes } from 'node:crypto';

/** The one scope: what the MCP server's `search` tool needs. */
export const OAUTH_SCOPES = ['search'] as const;

export interface OAuthLifetimes {
  /** Access token lifetime (emulated seconds). */
  accessSeconds: number;
  /** Refresh token lifetime (emulated seconds); each refresh issues a new one and retires the old. */
  refreshSeconds: number;
  /** Authorization code lifetime (emulated seconds). */
  codeSeconds: number;
  /** How long a consent page waits for its answer (emulated seconds). */
  consentSeconds: number;
}
export const DEFAULT_OAUTH_LIFETIMES: OAuthLifetimes = {
  accessSeconds: 3600,
  refreshSeconds: 30 * 24 * 3600,
  codeSeconds: 600,
  consentSeconds: 600,
};

/** An OAuth error as RFC 6749 names it; oauth.ts turns it into the SDK's error of the same code. */
export class OAuthFailure extends Error {
  constructor(
    readonly code:
      'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_scope' | 'invalid_target' | 'access_denied',
    message: string,
  ) {
    super(message);
  }
}

/** A registered client as the SDK stores it (RFC 7591 metadata plus `client_id`, ...). */
export interface OAuthClient {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  [field: string]: unknown;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  state?: string;
  resource?: string;
}

interface PendingConsent extends AuthorizationRequest {
  expiresAt: number;
}

interface Code extends AuthorizationRequest {
  account: string;
  expiresAt: number;
  /** The grant the code was exchanged for; a second exchange revokes it (RFC 6749 §4.1.2). */
  grantId?: string;
}

interface Grant {
  id: string;
  clientId: string;
  /** The account's API key (internal: never shown, never logged). */
  account: string;
  scopes: string[];
  resource?: string;
  revoked: boolean;
}

interface TokenRecord {
  grantId: string;
  expiresAt: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What control().oauthGrants() shows of a grant: never a token or a key. */
export interface OAuthGrantInfo {
  clientId: string;
  clientName: string | null;
  accountLabel: string;
  scopes: string[];
  /** Access tokens of the grant not yet expired or revoked. */
  liveAccessTokens: number;
  /** When the newest refresh token expires (ISO), or null when the grant has none left. */
  refreshExpiresAt: string | null;
  revoked: boolean;
}

const token = (prefix: string): string => `${prefix}${randomBytes(24).toString('hex')}`;

export class OAuthGrants {
  private readonly clients = new Map<string, OAuthClient>();
  private readonly consents = new Map<string, PendingConsent>();
  private readonly codes = new Map<string, Code>();
  private readonly grants = new Map<string, Grant>();
  private readonly access = new Map<string, TokenRecord>();
  private readonly refresh = new Map<string, TokenRecord>();
  /** The account (API key) every authorization is granted to at once, without a consent page; set by control only. */
  autoApprove: string | undefined;
  lifetimes: OAuthLifetimes = { ...DEFAULT_OAUTH_LIFETIMES };

  constructor(
    private readonly now: () => number,
    /** The MCP server's URL, the only resource tokens are issued for (known once the server listens). */
    private readonly resource: () => string,
  ) {}

  // ------------------------------------------------------------ clients (RFC 7591)

  getClient(id: string): OAuthClient | undefined {
    return this.clients.get(id);
  }

  registerClient(c: OAuthClient): OAuthClient {
    this.clients.set(c.client_id, c);
    return c;
  }

  // ------------------------------------------------------------ authorization

  /** Checks what the SDK leaves to the server: the scopes and the resource indicator (RFC 8707). */
  checkRequest(scopes: string[], resource: string | undefined): string[] {
    const unknown = scopes.filter((s) => !(OAUTH_SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0)
      throw new OAuthFailure('invalid_scope', `Unknown scope: ${unknown.join(' ').slice(0, 80)}. Supported: search.`);
    if (resource !== undefined && strip(resource) !== strip(this.resource()))
      throw new OAuthFailure('invalid_target', `Tokens are issued only for ${this.resource()}.`);
    return scopes.length > 0 ? scopes : [...OAUTH_SCOPES];
  }

  /** Holds a request until the consent page answers; returns the id the page posts back. */
  beginConsent(r: AuthorizationRequest): string {
    const id = token('consent_');
    this.consents.set(id, { ...r, expiresAt: this.now() + this.lifetimes.consentSeconds * 1000 });
    return id;
  }

  /** The consent the page answers (once): the request, or undefined when unknown or expired. */
  takeConsent(id: string): AuthorizationRequest | undefined {
    const c = this.consents.get(id);
    this.consents.delete(id);
    if (!c || c.expiresAt <= this.now()) return undefined;
    return c;
  }

  issueCode(r: AuthorizationRequest, account: string): string {
    const code = token('code_');
    this.codes.set(code, { ...r, account, expiresAt: this.now() + this.lifetimes.codeSeconds * 1000 });
    return code;
  }

  challengeFor(clientId: string, code: string): string {
    return this.liveCode(clientId, code).codeChallenge;
  }

  exchangeCode(
    clientId: string,
    code: string,
    redirectUri: string | undefined,
    resource: string | undefined,
  ): TokenResponse {
    const c = this.liveCode(clientId, code);
    if (redirectUri !== undefined && redirectUri !== c.redirectUri)
      throw new OAuthFailure('invalid_grant', 'redirect_uri differs from the authorization request.');
    if (resource !== undefined && c.resource !== undefined && strip(resource) !== strip(c.resource))
      throw new OAuthFailure('invalid_target', 'resource differs from the authorization request.');
    const g: Grant = {
      id: token('grant_'),
      clientId,
      account: c.account,
      scopes: c.scopes,
      resource: c.resource,
      revoked: false,
    };
    this.grants.set(g.id, g);
    c.grantId = g.id;
    return this.issueTokens(g);
  }

  private liveCode(clientId: string, code: string): Code {
    const c = this.codes.get(code);
    if (!c || c.clientId !== clientId) throw new OAuthFailure('invalid_grant', 'Unknown authorization code.');
    if (c.grantId !== undefined) {
      // A code used twice may have been stolen: the tokens it gave are withdrawn too.
      this.revokeGrant(c.grantId);
      throw new OAuthFailure('invalid_grant', 'The authorization code was already used.');
    }
    if (c.expiresAt <= this.now()) throw new OAuthFailure('invalid_grant', 'The authorization code expired.');
    return c;
  }

  // ------------------------------------------------------------ tokens

  private issueTokens(g: Grant): TokenResponse {
    const now = this.now();
    const access = token('rd_at_');
    const refresh = token('rd_rt_');
    this.access.set(access, { grantId: g.id, expiresAt: now + this.lifetimes.accessSeconds * 1000 });
    this.refresh.set(refresh, { grantId: g.id, expiresAt: now + this.lifetimes.refreshSeconds * 1000 });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.lifetimes.accessSeconds,
      refresh_token: refresh,
      scope: g.scopes.join(' '),
    };
  }

  /** A refresh (RFC 6749 §6), rotating the refresh token: the old one stops working. */
  exchangeRefresh(clientId: string, refreshToken: string, scopes: string[] | undefined): TokenResponse {
    const t = this.refresh.get(refreshToken);
    const g = t && this.grants.get(t.grantId);
    if (!t || !g || g.revoked || g.clientId !== clientId)
      throw new OAuthFailure('invalid_grant', 'Unknown or revoked refresh token.');
    if (t.expiresAt <= this.now()) {
      this.refresh.delete(refreshToken);
      throw new OAuthFailure('invalid_grant', 'The refresh token expired. Authorize again.');
    }
    if (scopes && scopes.some((s) => !g.scopes.includes(s)))
      throw new OAuthFailure('invalid_scope', 'A refresh cannot widen the scopes granted.');
    this.refresh.delete(refreshToken);
    return this.issueTokens(g);
  }

  /** The account (API key) behind an access token, 'expired', or undefined for a token this server never issued. */
  verify(accessToken: string): { account: string; clientId: string; scopes: string[] } | 'expired' | undefined {
    const t = this.access.get(accessToken);
    const g = t && this.grants.get(t.grantId);
    if (!t || !g || g.revoked) return undefined;
    if (t.expiresAt <= this.now()) return 'expired';
    return { account: g.account, clientId: g.clientId, scopes: g.scopes };
  }

  expiresAt(accessToken: string): number | undefined {
    return this.access.get(accessToken)?.expiresAt;
  }

  /** RFC 7009: a refresh token withdraws its grant (and so its access tokens); an access token only itself. */
  revoke(clientId: string, value: string): void {
    const r = this.refresh.get(value);
    if (r && this.grants.get(r.grantId)?.clientId === clientId) {
      this.revokeGrant(r.grantId);
      return;
    }
    const a = this.access.get(value);
    if (a && this.grants.get(a.grantId)?.clientId === clientId) this.access.delete(value);
  }

  private revokeGrant(id: string): void {
    const g = this.grants.get(id);
    if (g) g.revoked = true;
    for (const m of [this.access, this.refresh]) for (const [k, t] of m) if (t.grantId === id) m.delete(k);
  }

  info(labelOf: (account: string) => string): OAuthGrantInfo[] {
    const now = this.now();
    return [...this.grants.values()].map((g) => {
      const live = [...this.access.values()].filter((t) => t.grantId === g.id && t.expiresAt > now).length;
      const refresh = [...this.refresh.values()].filter((t) => t.grantId === g.id).map((t) => t.expiresAt);
      return {
        clientId: g.clientId,
        clientName: this.clients.get(g.clientId)?.client_name ?? null,
        accountLabel: labelOf(g.account),
        scopes: [...g.scopes],
        liveAccessTokens: live,
        refreshExpiresAt: refresh.length > 0 ? new Date(Math.max(...refresh)).toISOString() : null,
        revoked: g.revoked,
      };
    });
  }
}

const strip = (u: string): string => u.replace(/\/+$/, '');
