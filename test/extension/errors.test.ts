import * as assert from 'node:assert/strict';
import { API_ERROR_KINDS, ApiError, type ApiErrorKind } from '../../src/api/index';
import { describeError, isApiError, networkCause } from '../../src/ui/errorPresenter';

const BASE = 'https://api.consensus.app';

const KINDS: readonly ApiErrorKind[] = API_ERROR_KINDS;

/** The command-boundary helper later features reuse: every client error kind maps to one sentence and its buttons. */
export function errorsSuite(): void {
  suite('Error messages (describeError)', () => {
    test('every ApiError kind but a user abort gets its own one-sentence message', () => {
      const seen = new Set<string>();
      for (const kind of KINDS) {
        const err = new ApiError(kind, `simulated ${kind}`, { status: 400 });
        assert.ok(isApiError(err));
        const report = describeError(err, { baseUrl: BASE, canRetry: true });
        if (kind === 'aborted') {
          assert.equal(report, undefined);
          continue;
        }
        assert.ok(report, kind);
        assert.equal(report.kind, kind);
        assert.ok(!seen.has(report.message), `${kind} repeats another kind's message`);
        seen.add(report.message);
        assert.match(report.message, /[.?!]$/, `${kind}: not a sentence`);
      }
    });

    test('the buttons fit the problem', () => {
      const actions = (kind: ApiErrorKind, retry = true): string[] =>
        describeError(new ApiError(kind, 'x'), { baseUrl: BASE, canRetry: retry })?.actions ?? [];
      assert.deepEqual(actions('unauthorized'), ['setApiKey', 'getKey']);
      assert.deepEqual(actions('payment_required'), ['openBilling']);
      assert.deepEqual(actions('quota_exhausted'), ['openBilling']);
      assert.ok(actions('rate_limited').includes('retry'));
      assert.ok(!actions('rate_limited', false).includes('retry'), 'Retry offered without a retry callback');
      assert.ok(actions('network').includes('openSettings'));
      assert.ok(actions('server').includes('showLog'));
    });

    test('the monthly-pool 429 names the reset date; the per-second 429 does not talk about the month', () => {
      const quota = describeError(new ApiError('quota_exhausted', 'used up', { status: 429, resetDate: '2026-12-01' }), { baseUrl: BASE });
      assert.match(quota?.message ?? '', /2026-12-01/);
      const rate = describeError(new ApiError('rate_limited', 'slow down', { status: 429 }), { baseUrl: BASE });
      assert.doesNotMatch(rate?.message ?? '', /month/);
    });

    test('network problems name the address and the system error code', () => {
      const err = new ApiError('network', 'Could not reach the service at http://127.0.0.1:9 (ECONNREFUSED) for GET /v1/threads. Check it.');
      assert.equal(networkCause(err), 'ECONNREFUSED');
      const report = describeError(err, { baseUrl: 'http://127.0.0.1:9' });
      assert.ok(report?.message.includes('http://127.0.0.1:9'));
      assert.ok(report?.message.includes('ECONNREFUSED'));
    });

    test('anything that is not an ApiError still gets one sentence and Show Log', () => {
      const report = describeError(new TypeError('boom'), { baseUrl: BASE });
      assert.equal(report?.kind, 'unexpected');
      assert.deepEqual(report?.actions, ['showLog']);
    });
  });
}
