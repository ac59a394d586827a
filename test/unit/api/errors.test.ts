/** The status → kind factory for every row of the spec's error table, the two 429s and reset dates. */
import assert from 'node:assert/strict';
import { ApiError, classify429, errorFromResponse, redact, sanitizeServiceText, validationError } from '../../../src/api/errors';

const ctx = { method: 'GET', path: '/v1/search' };
const MONTHLY = 'You have used all included calls for this month. Your usage resets on 2026-12-01.';
const PER_SECOND = 'Too many requests. Slow down to the published rate.';

describe('api/errors: errorFromResponse', () => {
  it('maps every status row of the error table to its kind', () => {
    const rows: [number, unknown, string][] = [
      [401, { detail: 'Invalid API key.', code: 'unauthorized' }, 'unauthorized'],
      [402, { detail: 'Billing past due.', code: 'payment_required' }, 'payment_required'],
      [403, { detail: 'Full-text excerpts need a paid plan.', code: 'feature_not_allowed' }, 'feature_not_allowed'],
      [409, { detail: 'The latest interaction is still running.', code: 'conflict' }, 'conflict'],
      [422, { detail: [{ loc: ['query', 'page'], msg: 'bad', type: 'less_than_equal' }] }, 'validation'],
      [429, { detail: MONTHLY }, 'quota_exhausted'],
      [429, { detail: PER_SECOND }, 'rate_limited'],
      [500, { detail: 'boom' }, 'server'],
      [502, 'Bad gateway', 'server'],
      [503, undefined, 'server'],
      [404, { detail: 'Thread not found.' }, 'not_found'],
      [302, undefined, 'invalid_response'],
      [418, {}, 'invalid_response'],
    ];
    for (const [status, body, kind] of rows) {
      const e = errorFromResponse(status, body, ctx);
      assert.ok(e instanceof ApiError && e instanceof Error);
      assert.equal(e.kind, kind, `${status}`);
      assert.equal(e.status, status);
      assert.equal(e.name, 'ApiError');
      assert.ok(e.message.length > 20, 'a sentence a person can act on');
    }
  });

  it('keeps the 403 code and the service sentence (sanitised)', () => {
    const e = errorFromResponse(403, { detail: 'Excerpts\u0007 need a paid plan.\n', code: 'feature_not_allowed' }, ctx);
    assert.equal(e.code, 'feature_not_allowed');
    assert.match(e.message, /The service said: "Excerpts need a paid plan\."/);
  });

  it('422 carries every detail item and names each field in the message', () => {
    const detail = [
      { loc: ['query', 'page'], msg: 'Input should be less than or equal to 49', type: 'less_than_equal' },
      { loc: ['query', 'sjr_min'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
      { bogus: true },
    ];
    const e = errorFromResponse(422, { detail }, ctx);
    assert.equal(e.detail?.length, 2);
    assert.match(e.message, /query\.page: .*; query\.sjr_min: /);
  });

  it('monthly 429 → quota_exhausted with the reset date; per-second 429 → rate_limited with Retry-After', () => {
    const q = errorFromResponse(429, { detail: MONTHLY }, ctx);
    assert.equal(q.kind, 'quota_exhausted');
    assert.equal(q.resetDate, '2026-12-01');
    assert.match(q.message, /resets on 2026-12-01/);
    const r = errorFromResponse(429, { detail: PER_SECOND }, { ...ctx, retryAfterSeconds: 1 });
    assert.equal(r.kind, 'rate_limited');
    assert.equal(r.retryAfterSeconds, 1);
    assert.equal(r.resetDate, undefined);
  });

  it('classify429: wording, codes, missing or impossible dates, unknown messages', () => {
    assert.deepEqual(classify429('Monthly quota exhausted'), { kind: 'quota_exhausted' });
    assert.deepEqual(classify429('All included searches are used; resets on 2027-01-01'), { kind: 'quota_exhausted', resetDate: '2027-01-01' });
    assert.deepEqual(classify429('Your usage resets on 2027-13-45.'), { kind: 'quota_exhausted' });
    assert.deepEqual(classify429('too many requests'), { kind: 'rate_limited' });
    assert.deepEqual(classify429('Something odd happened'), { kind: 'rate_limited' });
    assert.deepEqual(classify429(''), { kind: 'rate_limited' });
    assert.deepEqual(classify429('whatever', 'quota_exhausted'), { kind: 'quota_exhausted' });
    assert.equal(errorFromResponse(429, undefined, ctx).kind, 'rate_limited');
  });

  it('validationError names every field and is never sent', () => {
    const e = validationError([{ loc: ['query', 'a'], msg: 'x', type: 't' }, { loc: ['body', 'b'], msg: 'y', type: 't' }]);
    assert.equal(e.kind, 'validation');
    assert.equal(e.status, undefined);
    assert.match(e.message, /not sent: query\.a: x; body\.b: y/);
  });

  it('sanitises and bounds service text; redact removes a secret everywhere', () => {
    assert.equal(sanitizeServiceText('a\u202Eb\u0000c'), 'a b c');
    assert.equal(sanitizeServiceText('x'.repeat(1000)).length, 300);
    assert.equal(redact('key sk-123456 and sk-123456', 'sk-123456'), 'key [redacted] and [redacted]');
    assert.equal(redact('short', ''), 'short');
  });
});
