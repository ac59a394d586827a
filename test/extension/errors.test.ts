import * as assert from 'node:assert/strict';
import { API_ERROR_KINDS, ApiError, type ApiErrorKind } from '../../src/api/index';
import { actionLabel, describeError, isApiError, networkCause } from '../../src/platform/errorPresenter';

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

    test('a 401 says the service rejected the key; no key to send says nothing was sent, never that it was rejected', () => {
      const rejected = describeError(new ApiError('unauthorized', 'x', { status: 401 }), { baseUrl: BASE });
      assert.match(rejected?.message ?? '', /rejected the API key \(401\)/);
      const noKey = describeError(new ApiError('unauthorized', 'No API key is set (nothing was sent).'), {
        baseUrl: BASE,
      });
      assert.match(noKey?.message ?? '', /nothing was sent/);
      assert.doesNotMatch(noKey?.message ?? '', /rejected|401/);
      assert.deepEqual(noKey?.actions, ['setApiKey', 'getKey']);
    });

    test('the monthly-pool 429 names the reset date; the per-second 429 does not talk about the month', () => {
      const quota = describeError(
        new ApiError('quota_exhausted', 'used up', { status: 429, resetDate: '2026-12-01' }),
        { baseUrl: BASE },
      );
      assert.match(quota?.message ?? '', /2026-12-01/);
      const rate = describeError(new ApiError('rate_limited', 'slow down', { status: 429 }), { baseUrl: BASE });
      assert.doesNotMatch(rate?.message ?? '', /month/);
    });

    test('network problems name the address and the system error code', () => {
      const err = new ApiError(
        'network',
        'Could not reach the service at http://127.0.0.1:9 (ECONNREFUSED) for GET /v1/threads. Check it.',
      );
      assert.equal(networkCause(err), 'ECONNREFUSED');
      const report = describeError(err, { baseUrl: 'http://127.0.0.1:9' });
      assert.ok(report?.message.includes('http://127.0.0.1:9'));
      assert.ok(report?.message.includes('ECONNREFUSED'));
    });

    test('a request that may have reached the service says it may have cost a call, and Retry says so too', () => {
      for (const kind of ['server', 'network', 'timeout', 'invalid_response'] as const) {
        const err = new ApiError(kind, 'failed', {
          status: kind === 'server' ? 502 : undefined,
          mayHaveTakenEffect: true,
        });
        const report = describeError(err, { baseUrl: BASE, canRetry: true });
        assert.match(report?.message ?? '', /may have (been charged|cost)/i, kind);
        assert.ok(report?.actions.includes('retryMayCost'), `${kind}: ${report?.actions.join(', ')}`);
        assert.ok(!report?.actions.includes('retry'), `${kind}: a plain Retry as if it were free`);
        assert.match(actionLabel('retryMayCost'), /may cost a call/);
      }
      const free = describeError(new ApiError('server', 'failed', { status: 503 }), { baseUrl: BASE, canRetry: true });
      assert.doesNotMatch(free?.message ?? '', /may have/);
    });

    test('service text in a message cannot become a link or an icon', () => {
      const err = new ApiError(
        'validation',
        'The service rejected the request as invalid: query.[x](command:y): [Renew](command:researchDesk.clearApiKey) $(key)',
      );
      const report = describeError(err, { baseUrl: BASE });
      assert.ok(report);
      assert.doesNotMatch(report.message, /\]\(|\$\(/);
      assert.match(report.message, /Renew/);
      const odd = describeError(new TypeError('[a](command:b)'), { baseUrl: BASE });
      assert.doesNotMatch(odd?.message ?? '', /\]\(/);
    });

    test('anything that is not an ApiError still gets one sentence and Show Log', () => {
      const report = describeError(new TypeError('boom'), { baseUrl: BASE });
      assert.equal(report?.kind, 'unexpected');
      assert.deepEqual(report?.actions, ['showLog']);
    });
  });
}
