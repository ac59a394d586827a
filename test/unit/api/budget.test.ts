/** Call budget helpers: charging rule, plan table, plan inference, monthly reset. */
import assert from 'node:assert/strict';
import { callsForSearch, inferPlanFromPageSize, monthKey, nextReset, PLANS } from '../../../src/api/budget';

describe('api/budget', () => {
  it('one call per 100 papers, rounded up, minimum 1', () => {
    for (const [n, calls] of [
      [0, 1],
      [1, 1],
      [100, 1],
      [101, 2],
      [150, 2],
      [200, 2],
      [201, 3],
      [750, 8],
      [1000, 10],
    ] as const)
      assert.equal(callsForSearch(n), calls, `${n}`);
  });

  it('plan table matches the spec', () => {
    assert.deepEqual(
      Object.values(PLANS).map((p) => [p.id, p.includedCalls, p.maxCallsWithAdditional, p.maxPageSize]),
      [
        ['none', Infinity, undefined, 3],
        ['free', 30, 30, 10],
        ['pro', 500, 1000, 300],
        ['teams', 500, 1000, 300],
        ['enterprise', 500, 1000, undefined],
        ['deep', 2000, 10000, 750],
      ],
    );
    assert.equal(PLANS.free.additionalUsage, false);
    assert.equal(PLANS.pro.additionalUsage, true);
  });

  it('infers the plan only from a capped page_size', () => {
    assert.deepEqual(inferPlanFromPageSize(20, 10), ['free']);
    assert.deepEqual(inferPlanFromPageSize(1000, 300), ['pro', 'teams', 'enterprise']);
    assert.deepEqual(inferPlanFromPageSize(1000, 750), ['deep']);
    assert.deepEqual(inferPlanFromPageSize(1000, 500), ['enterprise']);
    assert.equal(inferPlanFromPageSize(10, 10), undefined);
    assert.equal(inferPlanFromPageSize(20, 20), undefined);
    assert.equal(inferPlanFromPageSize(300, 300), undefined);
  });

  it('resets on the 1st of next month at 00:00 UTC; month keys are UTC', () => {
    assert.equal(nextReset(new Date('2026-11-21T23:59:59Z')).toISOString(), '2026-12-01T00:00:00.000Z');
    assert.equal(nextReset(new Date('2026-12-31T23:59:59Z')).toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(nextReset(new Date('2026-12-01T00:00:00Z')).toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(monthKey(new Date('2026-01-31T23:00:00Z')), '2026-01');
    assert.equal(monthKey(new Date('2026-12-31T23:59:59.999Z')), '2026-12');
  });
});
