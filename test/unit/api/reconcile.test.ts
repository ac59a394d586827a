/** POST reconciliation rules: found / absent / unknown, erring towards unknown. */
import assert from 'node:assert/strict';
import { CLOCK_TOLERANCE_MS, matchCreatedThread, matchNewInteraction, previewMatches } from '../../../src/api/reconcile';
import { type Thread, type ThreadList, type ThreadSummary } from '../../../src/api/schemas';

const START = Date.parse('2026-11-21T12:00:00Z');
const at = (offsetMs: number) => new Date(START + offsetMs).toISOString();
const summary = (id: string, preview: string, offsetMs: number, count = 1): ThreadSummary => ({
  thread_id: id, title: `Title ${id}`, url: null, status: 'running', preview, interaction_count: count, last_activity_at: at(offsetMs),
});
const list = (threads: ThreadSummary[], has_more = false): ThreadList => ({ threads, has_more });
const MSG = 'Does creatine improve short-term memory in healthy adults? Compare RCTs.';
const thread = (ids: string[], status: Thread['status'] = 'idle'): Thread => ({
  thread_id: 't', title: 'x', status, url: null, trace: undefined,
  interactions: ids.map((id, i) => ({ interaction_id: id, status: i === ids.length - 1 ? status : 'idle', mode: 'pro' })),
});

describe('api/reconcile', () => {
  it('previewMatches: prefix either way, ellipsis, whitespace and case folded; too short or empty never matches', () => {
    assert.ok(previewMatches('Does creatine improve short-term…', MSG));
    assert.ok(previewMatches('does  creatine IMPROVE short-term memory...', MSG));
    assert.ok(previewMatches(MSG, MSG));
    assert.ok(!previewMatches('Does', MSG));
    assert.ok(!previewMatches('', MSG));
    assert.ok(!previewMatches(null, MSG));
    assert.ok(!previewMatches('Does caffeine improve short-term memory', MSG));
  });

  it('found: exactly one fresh thread with the message and one interaction', () => {
    const r = matchCreatedThread(list([summary('new', MSG.slice(0, 40), 500), summary('old', 'Something else', -3_600_000)]), MSG, START);
    assert.equal(r.kind, 'found');
    assert.equal(r.kind === 'found' && r.value.thread_id, 'new');
  });

  it('absent: nothing matches and the page reaches back past the request', () => {
    assert.equal(matchCreatedThread(list([summary('a', 'Other question', -10_000_000)], true), MSG, START).kind, 'absent');
    assert.equal(matchCreatedThread(list([]), MSG, START).kind, 'absent');
    assert.equal(matchCreatedThread(list([summary('a', 'Other question', 1000, 2)]), MSG, START).kind, 'absent');
  });

  it('unknown: several fresh matches, an older identical thread, a page that does not reach back', () => {
    assert.equal(matchCreatedThread(list([summary('a', MSG, 100), summary('b', MSG, 200)]), MSG, START).kind, 'unknown');
    assert.equal(matchCreatedThread(list([summary('a', MSG, -CLOCK_TOLERANCE_MS - 1)]), MSG, START).kind, 'unknown');
    assert.equal(matchCreatedThread(list([summary('a', MSG, 100, 3)]), MSG, START).kind, 'unknown');
    assert.equal(matchCreatedThread(list([summary('a', 'Other', 100, 2)], true), MSG, START).kind, 'unknown');
    // A fresh one-interaction thread with another message is someone else's; one without any preview cannot be told.
    assert.equal(matchCreatedThread(list([summary('a', 'Other question', 1000)]), MSG, START).kind, 'absent');
    assert.equal(matchCreatedThread(list([{ ...summary('a', '', 1000), title: null }]), MSG, START).kind, 'unknown');
    assert.equal(matchCreatedThread(list([{ ...summary('a', '', 0), title: null, last_activity_at: null }]), MSG, START).kind, 'unknown');
  });

  it('a clock skew inside the tolerance still finds the thread', () => {
    assert.equal(matchCreatedThread(list([summary('a', MSG, -CLOCK_TOLERANCE_MS + 1000)]), MSG, START).kind, 'found');
  });

  it('follow-ups: one new interaction → found; unchanged → absent; anything else → unknown', () => {
    const found = matchNewInteraction(thread(['i1']), thread(['i1', 'i2'], 'running'));
    assert.equal(found.kind === 'found' && found.value.interaction_id, 'i2');
    assert.equal(matchNewInteraction(thread(['i1', 'i2']), thread(['i1', 'i2'])).kind, 'absent');
    assert.equal(matchNewInteraction(thread(['i1']), thread(['i1', 'i2', 'i3'])).kind, 'unknown');
    assert.equal(matchNewInteraction(thread([]), thread([])).kind, 'unknown');
    assert.equal(matchNewInteraction(thread(['i1']), thread(['i1'], 'running')).kind, 'unknown');
  });
});
