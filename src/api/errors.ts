/**
 * The one error class of the client (`ApiError`) and the one factory that maps an HTTP
 * status and error body to it (`errorFromResponse`), following the spec's error table.
 * Messages are written for a person to act on; service text in them is sanitised and
 * never carries the API key (see `redact`).
 */
import { defangLinks } from '../shared/plainText';

/** Every kind an `ApiError` can have: the rows of the spec's error table plus the transport's own. */
export const API_ERROR_KINDS = [
  'unauthorized',
  'payment_required',
  'feature_not_allowed',
  'not_found',
  'conflict',
  'validation',
  'rate_limited',
  'quota_exhausted',
  'server',
  'network',
  'timeout',
  'aborted',
  'invalid_response',
] as const;
export type ApiErrorKind = (typeof API_ERROR_KINDS)[number];

/** One item of an `HTTPValidationError` (also produced by the client's own checks). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ApiErrorInit {
  status?: number;
  detail?: ValidationIssue[];
  resetDate?: string;
  code?: string;
  retryAfterSeconds?: number;
  threadId?: string;
  mayHaveTakenEffect?: boolean;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  /** HTTP status, or undefined when no response was received (or the request was never sent). */
  readonly status: number | undefined;
  /** Validation items (`kind: 'validation'`). */
  readonly detail: ValidationIssue[] | undefined;
  /** `YYYY-MM-DD` named by a monthly-pool 429 (`kind: 'quota_exhausted'`), when it names one. */
  readonly resetDate: string | undefined;
  /** Machine-readable `code` from the error body, e.g. `feature_not_allowed`. */
  readonly code: string | undefined;
  /** Parsed `Retry-After` header in seconds, when present and numeric. */
  readonly retryAfterSeconds: number | undefined;
  /** The thread concerned, for thread operations (e.g. a `waitForThread` timeout). */
  readonly threadId: string | undefined;
  /** True when a thread POST failed and it could not be told whether it was created. */
  readonly mayHaveTakenEffect: boolean;

  constructor(kind: ApiErrorKind, message: string, init: ApiErrorInit = {}) {
    super(message);
    this.kind = kind;
    this.status = init.status;
    this.detail = init.detail;
    this.resetDate = init.resetDate;
    this.code = init.code;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.threadId = init.threadId;
    this.mayHaveTakenEffect = init.mayHaveTakenEffect ?? false;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/**
 * Untrusted service text made safe for a message: bounded (only the start is read), no control
 * or bidi-override characters, white space folded, Markdown links defanged. Run `redact` first
 * (see `serviceText`): cutting could leave part of an echoed key.
 */
export function sanitizeServiceText(text: string, max = 300): string {
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const clean = defangLinks(
    head
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

const REDACTED = '[redacted]';
/**
 * Longest form one character of a key can take in the encodings `redact` knows (`&#x0000` + 6 hex digits + `;`, `%25XX`
 * × 4 bytes).
 */
const MAX_ENCODED_CHAR = 24;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const escapeRe = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
const NAMED_ENTITY: Record<string, string[]> = { '&': ['amp'], '<': ['lt'], '>': ['gt'], '"': ['quot'], "'": ['apos'] };

/**
 * One character of a key in any form a service could echo it in: itself (either case: the
 * regular expression is case-insensitive, which also covers hex digits), percent-encoded (also
 * twice: `%2541`), a JSON `\uXXXX` escape, a backslash escape, an HTML numeric or named entity.
 * Encodings may mix within one echo.
 */
function charPattern(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const alts = [escapeRe(ch), `\\\\${escapeRe(ch)}`, `&#0{0,4}${cp};`, `&#x0{0,4}${cp.toString(16)};`];
  alts.push([...Buffer.from(ch, 'utf8')].map((b) => `%(?:25)?${hex(b, 2)}`).join(''));
  alts.push(
    cp > 0xffff
      ? `\\\\u${hex(0xd800 + ((cp - 0x10000) >> 10), 4)}\\\\u${hex(0xdc00 + ((cp - 0x10000) & 0x3ff), 4)}`
      : `\\\\u${hex(cp, 4)}`,
  );
  for (const name of NAMED_ENTITY[ch] ?? []) alts.push(`&${name};`);
  return `(?:${alts.join('|')})`;
}

/**
 * The parts of `secret`'s base64 (standard and URL-safe) that do not depend on what surrounds
 * it, at each of the three byte alignments it can have inside a longer encoded string (e.g. an
 * echoed `Basic base64(user:key)`).
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let o = 0; o < 3; o++) {
    const b64 = Buffer.concat([Buffer.alloc(o), bytes]).toString('base64');
    // Character i carries bits [6i, 6i + 6): keep those entirely inside the secret's bits.
    const first = Math.ceil((8 * o) / 6);
    const last = Math.floor((8 * (o + bytes.length)) / 6);
    const core = b64.slice(first, last);
    if (core.length >= 8) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

let compiled: { secret: string; re: RegExp; cores: string[] } | undefined;

/**
 * Replace every occurrence of `secret` in `text` in every form a service could echo it in (see
 * `charPattern` and `base64Cores`). Secrets shorter than 4 characters are left alone (they would
 * match ordinary text). Linear in the text for a given secret: one left-to-right scan, each
 * position trying one fixed-length alternation per key character.
 */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  if (compiled?.secret !== secret)
    compiled = { secret, re: new RegExp([...secret].map(charPattern).join(''), 'gi'), cores: base64Cores(secret) };
  let out = text.replace(compiled.re, REDACTED);
  for (const core of compiled.cores) if (out.includes(core)) out = out.split(core).join(REDACTED);
  return out;
}

/**
 * Service text for a message or a field: the secret redacted from the raw text before it is cut
 * (a cut could otherwise keep the start of an echoed key), then `sanitizeServiceText`. Reads at
 * most `max × 4` characters plus room for one encoded key; when it had to cut, the last stretch
 * where a partial key could sit is dropped too.
 */
export function serviceText(raw: string, secret: string | undefined, max = 300): string {
  const room = secret ? secret.length * MAX_ENCODED_CHAR : 0;
  const window = max * 4 + room;
  if (raw.length <= window) return sanitizeServiceText(redact(raw, secret), max);
  const cut = redact(raw.slice(0, window), secret);
  return sanitizeServiceText(cut.slice(0, Math.max(0, cut.length - room)), max);
}

/**
 * The same error with the secret redacted from, and links defanged in, every field that can carry
 * service text (message, code, each detail item's loc, msg and type): the last pass before an
 * error leaves the client.
 */
export function scrubError(e: ApiError, secret: string | undefined): ApiError {
  const clean = (t: string) => defangLinks(redact(t, secret));
  const detail = e.detail?.map((d) => ({
    loc: d.loc.map((l) => (typeof l === 'string' ? clean(l) : l)),
    msg: clean(d.msg),
    type: clean(d.type),
  }));
  return new ApiError(e.kind, clean(e.message), {
    ...e,
    code: e.code === undefined ? undefined : clean(e.code),
    detail,
  });
}

const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
const QUOTA_WORDS = /\b(month|monthly|included|resets?|quota|pool)\b/i;

/** Decide which of the two 429s a message describes (unknown → per-second). */
export function classify429(
  message: string,
  code?: string,
): { kind: 'quota_exhausted' | 'rate_limited'; resetDate?: string } {
  if (code === 'rate_limited' || code === 'too_many_requests') return { kind: 'rate_limited' };
  if (code === 'quota_exhausted' || QUOTA_WORDS.test(message)) {
    const date = DATE.exec(message)?.[1];
    return date && !Number.isNaN(Date.parse(`${date}T00:00:00Z`))
      ? { kind: 'quota_exhausted', resetDate: date }
      : { kind: 'quota_exhausted' };
  }
  return { kind: 'rate_limited' };
}

/** Detail items kept on an error, and items named in its message. */
export const MAX_ISSUES = 100;
const ISSUES_IN_MESSAGE = 10;
const MAX_LOC_PARTS = 12;

/**
 * The service's 422 items as `ValidationIssue`s, each field redacted and bounded, without
 * recursion: a `loc` part that is not a string or a finite number (the spec allows only string or
 * integer) becomes `…`, whatever it holds; at most {@link MAX_LOC_PARTS} parts and
 * {@link MAX_ISSUES} items are kept. Also returns how many well-formed items there were.
 */
function serviceIssues(raw: unknown, secret: string | undefined): { issues: ValidationIssue[]; total: number } {
  const issues: ValidationIssue[] = [];
  let total = 0;
  if (!Array.isArray(raw)) return { issues, total };
  for (const x of raw as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const o = x as Record<string, unknown>;
    if (!Array.isArray(o.loc) || typeof o.msg !== 'string' || typeof o.type !== 'string') continue;
    if (++total > MAX_ISSUES) continue;
    const parts = (o.loc as unknown[])
      .slice(0, MAX_LOC_PARTS)
      .map((l) =>
        typeof l === 'string' ? serviceText(l, secret, 80) : typeof l === 'number' && Number.isFinite(l) ? l : '…',
      );
    if (o.loc.length > MAX_LOC_PARTS) parts.push('…');
    issues.push({ loc: parts, msg: serviceText(o.msg, secret, 160), type: serviceText(o.type, secret, 60) });
  }
  return { issues, total };
}

/**
 * One line naming the offending fields, e.g. `query.month_min: …; body.input_message: …` (the first ten, then how many
 * more).
 */
export function describeIssues(issues: ValidationIssue[], total = issues.length): string {
  const named = issues
    .slice(0, ISSUES_IN_MESSAGE)
    .map((i) => `${i.loc.join('.')}: ${sanitizeServiceText(i.msg, 160)}`)
    .join('; ');
  return total > ISSUES_IN_MESSAGE ? `${named}; and ${total - ISSUES_IN_MESSAGE} more` : named;
}

/** Validation error raised before sending (the request would have cost a call). */
export function validationError(issues: ValidationIssue[]): ApiError {
  return new ApiError('validation', `Invalid request, not sent: ${describeIssues(issues)}`, { detail: issues });
}

/** Throws the validation error of `issues`, if any: a request bound to fail is never sent. */
export function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length) throw validationError(issues);
}

export interface ResponseContext {
  method: string;
  /** Path without query (e.g. `/v1/search`), for the message. */
  path: string;
  retryAfterSeconds?: number;
  /** The key sent: redacted from service text before it is cut or shown. */
  secret?: string;
  /** Why the body could not be read (too large, nested too deeply), when it could not. */
  unreadable?: string;
}

/**
 * The single status → kind factory. `body` is the parsed JSON body (or raw text, or undefined).
 * Service text is redacted, bounded and sanitised here; nothing in it is walked recursively.
 */
export function errorFromResponse(status: number, body: unknown, ctx: ResponseContext): ApiError {
  const obj =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const code = typeof obj?.code === 'string' ? serviceText(obj.code, ctx.secret, 60) : undefined;
  const rawDetail = obj?.detail ?? obj?.message ?? obj?.error ?? (typeof body === 'string' ? body : undefined);
  const text = typeof rawDetail === 'string' ? serviceText(rawDetail, ctx.secret) : undefined;
  const said = text
    ? ` The service said: "${text}"`
    : ctx.unreadable
      ? ` Its answer could not be read (${ctx.unreadable}).`
      : '';
  const base = { status, code, retryAfterSeconds: ctx.retryAfterSeconds };
  const where = `${ctx.method} ${ctx.path}`;

  switch (true) {
    case status === 401:
      return new ApiError(
        'unauthorized',
        `The API key was not accepted (missing, invalid or revoked). Check the key, or create a new one in the dashboard.${said}`,
        base,
      );
    case status === 402:
      return new ApiError(
        'payment_required',
        `Billing is past due: calls are paused until payment is resolved in the account dashboard.${said}`,
        base,
      );
    case status === 403:
      return new ApiError(
        'feature_not_allowed',
        `Your plan does not include this feature (full-text excerpts and deep mode need a paid plan).${said}`,
        base,
      );
    case status === 404 || status === 410:
      return new ApiError(
        'not_found',
        `Not found: ${where} (HTTP ${status}). The thread may not exist for this key, or the endpoint was removed.${said}`,
        base,
      );
    case status === 409:
      return new ApiError(
        'conflict',
        `The thread's latest interaction is still running; wait until it is idle or failed, then send the follow-up.${said}`,
        base,
      );
    case status === 422 || status === 400: {
      const { issues, total } = serviceIssues(rawDetail, ctx.secret);
      const why = issues.length
        ? describeIssues(issues, total)
        : (text ?? (ctx.unreadable ? `no details could be read (${ctx.unreadable})` : 'no details given'));
      return new ApiError('validation', `The service rejected the request as invalid: ${why}`, {
        ...base,
        detail: issues,
      });
    }
    case status === 429: {
      const c = classify429(text ?? '', code);
      if (c.kind === 'quota_exhausted') {
        const when = c.resetDate ? `on ${c.resetDate}` : 'on the 1st of next month';
        return new ApiError(
          'quota_exhausted',
          `All included calls for this month are used; usage resets ${when}. Additional usage can be enabled in the dashboard on paid plans.${said}`,
          { ...base, resetDate: c.resetDate },
        );
      }
      return new ApiError(
        'rate_limited',
        `Too many requests per second for this key; slow down and try again in a moment.${said}`,
        base,
      );
    }
    case status >= 500:
      return new ApiError('server', `The service failed (HTTP ${status}) on ${where}.${said}`, base);
    case status >= 300 && status < 400:
      return new ApiError(
        'invalid_response',
        `The service answered ${where} with a redirect (HTTP ${status}). Redirects are not followed so the key never leaves the configured base URL; check the base URL setting.`,
        base,
      );
    default:
      return new ApiError('invalid_response', `Unexpected HTTP ${status} from ${where}.${said}`, base);
  }
}
