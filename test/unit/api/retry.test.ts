/** Retry decisions, backoff bounds and Retry-After bounds (pure). */
import assert from 'node:assert/strict';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import { backoffMs, MAX_RETRIES, parseRetryAfter, shouldRetry } from '../../../src/api/retry';

const err = (kind: ApiErrorKind, mayHaveTakenEffect = false) => new ApiError(kind, 'x', { mayHaveTakenEffect });
const GET = { method: 'GET' };
const SEARCH = { method: 'GET', billable: true };
const POST = { method: 'POST' };

describe('api/retry', () => {
  it('a free GET (poll, list) retries network, 5xx and per-second 429 only', () => {
    for (const k of ['network', 'server', 'rate_limited'] as const) assert.equal(shouldRetry(GET, err(k), 0), true, k);
    const never: ApiErrorKind[] = [
      'quota_exhausted',
      'unauthorized',
      'payment_required',
      'feature_not_allowed',
      'conflict',
      'validation',
      'not_found',
      'invalid_response',
      'aborted',
      'timeout',
    ];
    for (const k of never) assert.equal(shouldRetry(GET, err(k), 0), false, k);
  });

  it('a billed search and a POST retry only what provably never reached the service: nothing sent, or the per-second 429', () => {
    for (const req of [SEARCH, POST]) {
      assert.equal(shouldRetry(req, err('network', false), 0), true, 'connection refused: nothing was sent');
      assert.equal(shouldRetry(req, err('rate_limited'), 0), true, 'rejected before anything');
      assert.equal(shouldRetry(req, err('network', true), 0), false, 'dropped after it may have been charged');
      for (const k of [
        'server',
        'timeout',
        'invalid_response',
        'quota_exhausted',
        'conflict',
        'validation',
        'aborted',
      ] as const) {
        assert.equal(shouldRetry(req, err(k, true), 0), false, `${req.method} ${k} (may have taken effect)`);
        assert.equal(shouldRetry(req, err(k, false), 0), false, `${req.method} ${k}`);
      }
    }
  });

  it('at most 2 retries, whatever maxRetries says', () => {
    assert.equal(MAX_RETRIES, 2);
    assert.equal(shouldRetry(GET, err('server'), 1), true);
    assert.equal(shouldRetry(GET, err('server'), 2), false);
    assert.equal(shouldRetry(GET, err('server'), 2, 10), false);
    assert.equal(shouldRetry(GET, err('server'), 0, 0), false);
  });

  it('backoff grows exponentially, stays within [0.75, 1] × base, capped at 8 s', () => {
    for (const r of [0, 0.5, 0.999]) {
      for (let n = 0; n < 6; n++) {
        const base = Math.min(500 * 2 ** n, 8000);
        const d = backoffMs(n, undefined, () => r);
        assert.ok(d <= base && d >= base * 0.75, `n=${n} r=${r} d=${d}`);
      }
    }
    assert.equal(
      backoffMs(0, undefined, () => 0),
      500,
    );
    assert.equal(
      backoffMs(1, undefined, () => 0),
      1000,
    );
    assert.equal(
      backoffMs(10, undefined, () => 0),
      8000,
    );
  });

  it('Retry-After is honoured only within 0..60 s', () => {
    assert.equal(backoffMs(0, 1), 1000);
    assert.equal(backoffMs(0, 0), 0);
    assert.equal(backoffMs(1, 60), 60_000);
    assert.ok(backoffMs(0, 61, () => 0) === 500);
    assert.equal(parseRetryAfter('1'), 1);
    assert.equal(parseRetryAfter('0'), 0);
    assert.equal(parseRetryAfter('60'), 60);
    assert.equal(parseRetryAfter('61'), undefined);
    assert.equal(parseRetryAfter('3600'), undefined);
    assert.equal(parseRetryAfter('-1'), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter(['2', '5']), 2);
    const now = Date.parse('2026-11-21T12:00:00Z');
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 13:00:00 GMT', now), undefined);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now), 0);
  });
});
