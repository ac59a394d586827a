/**
 * The one error class of the client (`ApiError`) and the one factory that maps an HTTP
 * status and error body to it (`errorFromResponse`), following the spec's error table.
 * Messages are written for a person to act on; service text in them is sanitised and
 * never carries the API key (see `redact`).
 */

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

/** Untrusted service text made safe for a message: no control characters, bounded length. */
export function sanitizeServiceText(text: string, max = 300): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** Replace every occurrence of `secret` in `text` (used on anything that may echo the key). */
export function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
const QUOTA_WORDS = /\b(month|monthly|included|resets?|quota|pool)\b/i;

/** Decide which of the two 429s a message describes (unknown → per-second). */
export function classify429(message: string, code?: string): { kind: 'quota_exhausted' | 'rate_limited'; resetDate?: string } {
  if (code === 'rate_limited' || code === 'too_many_requests') return { kind: 'rate_limited' };
  if (code === 'quota_exhausted' || QUOTA_WORDS.test(message)) {
    const date = DATE.exec(message)?.[1];
    return date && !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ? { kind: 'quota_exhausted', resetDate: date } : { kind: 'quota_exhausted' };
  }
  return { kind: 'rate_limited' };
}

function isIssue(x: unknown): x is ValidationIssue {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return Array.isArray(o.loc) && typeof o.msg === 'string' && typeof o.type === 'string';
}

/** One line naming every offending field, e.g. `query.month_min: …; body.input_message: …`. */
export function describeIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.loc.join('.')}: ${sanitizeServiceText(i.msg, 160)}`).join('; ');
}

/** Validation error raised before sending (the request would have cost a call). */
export function validationError(issues: ValidationIssue[]): ApiError {
  return new ApiError('validation', `Invalid request, not sent: ${describeIssues(issues)}`, { detail: issues });
}

export interface ResponseContext {
  method: string;
  /** Path without query (e.g. `/v1/search`), for the message. */
  path: string;
  retryAfterSeconds?: number;
}

/** The single status → kind factory. `body` is the parsed JSON body (or raw text, or undefined). */
export function errorFromResponse(status: number, body: unknown, ctx: ResponseContext): ApiError {
  const obj = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const code = typeof obj?.code === 'string' ? sanitizeServiceText(obj.code, 60) : undefined;
  const rawDetail = obj?.detail ?? obj?.message ?? obj?.error ?? (typeof body === 'string' ? body : undefined);
  const serviceText = typeof rawDetail === 'string' ? sanitizeServiceText(rawDetail) : undefined;
  const said = serviceText ? ` The service said: "${serviceText}"` : '';
  const base = { status, code, retryAfterSeconds: ctx.retryAfterSeconds };
  const where = `${ctx.method} ${ctx.path}`;

  switch (true) {
    case status === 401:
      return new ApiError('unauthorized', `The API key was not accepted (missing, invalid or revoked). Check the key, or create a new one in the dashboard.${said}`, base);
    case status === 402:
      return new ApiError('payment_required', `Billing is past due: calls are paused until payment is resolved in the account dashboard.${said}`, base);
    case status === 403:
      return new ApiError('feature_not_allowed', `Your plan does not include this feature (full-text excerpts and deep mode need a paid plan).${said}`, base);
    case status === 404 || status === 410:
      return new ApiError('not_found', `Not found: ${where} (HTTP ${status}). The thread may not exist for this key, or the endpoint was removed.${said}`, base);
    case status === 409:
      return new ApiError('conflict', `The thread's latest interaction is still running; wait until it is idle or failed, then send the follow-up.${said}`, base);
    case status === 422 || status === 400: {
      const issues = Array.isArray(rawDetail) ? rawDetail.filter(isIssue) : [];
      const text = issues.length ? describeIssues(issues) : serviceText ?? 'no details given';
      return new ApiError('validation', `The service rejected the request as invalid: ${text}`, { ...base, detail: issues });
    }
    case status === 429: {
      const c = classify429(serviceText ?? '', code);
      if (c.kind === 'quota_exhausted') {
        const when = c.resetDate ? `on ${c.resetDate}` : 'on the 1st of next month';
        return new ApiError('quota_exhausted', `All included calls for this month are used; usage resets ${when}. Additional usage can be enabled in the dashboard on paid plans.${said}`, { ...base, resetDate: c.resetDate });
      }
      return new ApiError('rate_limited', `Too many requests per second for this key; slow down and try again in a moment.${said}`, base);
    }
    case status >= 500:
      return new ApiError('server', `The service failed (HTTP ${status}) on ${where}.${said}`, base);
    case status >= 300 && status < 400:
      return new ApiError('invalid_response', `The service answered ${where} with a redirect (HTTP ${status}). Redirects are not followed so the key never leaves the configured base URL; check the base URL setting.`, base);
    default:
      return new ApiError('invalid_response', `Unexpected HTTP ${status} from ${where}.${said}`, base);
  }
}
