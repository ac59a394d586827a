import * as assert from 'node:assert/strict';
import {
  boundedSeconds,
  MAX_TIMEOUT_MS,
  MAX_WAIT_BOUNDS,
  POLL_AFTER_BOUNDS,
  timeoutMs,
} from '../../../src/shared/timing';

describe('bounded waits from service hints', () => {
  it('keeps poll_after_seconds within 1 s .. 5 min, whatever the service sends', () => {
    assert.equal(boundedSeconds(30, POLL_AFTER_BOUNDS), 30);
    assert.equal(boundedSeconds(0, POLL_AFTER_BOUNDS), 1);
    assert.equal(boundedSeconds(-5, POLL_AFTER_BOUNDS), 1);
    assert.equal(boundedSeconds(3e6, POLL_AFTER_BOUNDS), 300);
    assert.equal(boundedSeconds(Number.NaN, POLL_AFTER_BOUNDS), 30);
    assert.equal(boundedSeconds(Infinity, POLL_AFTER_BOUNDS), 30);
    assert.equal(boundedSeconds('30', POLL_AFTER_BOUNDS), 30);
    assert.equal(boundedSeconds(undefined, POLL_AFTER_BOUNDS), 30);
  });

  it('keeps max_wait_seconds within 1 s .. 1 h', () => {
    assert.equal(boundedSeconds(180, MAX_WAIT_BOUNDS), 180);
    assert.equal(boundedSeconds(1e9, MAX_WAIT_BOUNDS), 3600);
    assert.equal(boundedSeconds(0, MAX_WAIT_BOUNDS), 1);
  });

  it('never hands setTimeout a delay it would fire at once', () => {
    assert.equal(timeoutMs(3e6 * 1000), MAX_TIMEOUT_MS);
    assert.equal(timeoutMs(Infinity), MAX_TIMEOUT_MS);
    assert.equal(timeoutMs(-1), 0);
    assert.equal(timeoutMs(Number.NaN), 0);
    assert.equal(timeoutMs(1500.4), 1500);
    // The reason for the helper: Node clamps an overflowing delay to 1 ms.
    assert.ok(boundedSeconds(3e6, POLL_AFTER_BOUNDS) * 1000 <= MAX_TIMEOUT_MS);
    assert.ok(boundedSeconds(1e9, MAX_WAIT_BOUNDS) * 1000 <= MAX_TIMEOUT_MS);
  });
});
