/**
 * POST reconciliation rules: found / absent / unknown from facts the spec guarantees (thread ids
 * listed before and after, interaction counts, last activity, interaction ids), never from the
 * title or preview resembling the brief; every doubt resolves to unknown.
 */
import assert from 'node:assert/strict';
import {
  CLOCK_TOLERANCE_MS,
  confirmCreatedThread,
  matchCreatedThread,
  matchNewInteraction,
} from '../../../src/api/reconcile';
import { type Thread, type ThreadList, type ThreadSummary } from '../../../src/api/schemas';

const START = Date.parse('2026-11-21T12:00:00Z');
const at = (offsetMs: number) => new Date(START + offsetMs).toISOString();
const summary = (id: string, offsetMs: number, count = 1, over: Partial<ThreadSummary> = {}): ThreadSummary => ({
  thread_id: id,
  title: `Evidence on something ${id}`,
  url: null,
  status: 'running',
  preview: `Looking into ${id}`,
  interaction_count: count,
  last_activity_at: at(offsetMs),
  ...over,
});
const list = (threads: ThreadSummary[], has_more = false): ThreadList => ({ threads, has_more });
const MSG = 'Does creatine improve short-term memory in healthy adults? Compare RCTs.';
const thread = (ids: string[], status: Thread['status'] = 'idle', extra: Record<string, unknown> = {}): Thread => ({
  thread_id: 't',
  title: 'x',
  status,
  url: null,
  trace: undefined,
  interactions: ids.map((id, i) => ({
    interaction_id: id,
    status: i === ids.length - 1 ? status : 'idle',
    mode: 'pro',
    ...extra,
  })),
});
const kind = (o: { kind: string }) => o.kind;

describe('api/reconcile: did POST /v1/threads create a thread?', () => {
  const before = list([summary('a', -60_000, 2), summary('b', -3_600_000)]);

  it('found: exactly one thread id that was not listed before, with one interaction, whatever its title and preview say', () => {
    const r = matchCreatedThread(
      before,
      list([
        summary('new', 500, 1, { title: 'Research review — creatine', preview: 'Across 20 papers…' }),
        ...before.threads,
      ]),
      START,
    );
    assert.equal(r.kind === 'found' && r.value.thread_id, 'new');
    // No preview or title at all: the id comparison does not need them.
    const bare = matchCreatedThread(
      before,
      list([summary('new', 500, 1, { title: null, preview: null }), ...before.threads]),
      START,
    );
    assert.equal(bare.kind === 'found' && bare.value.thread_id, 'new');
    // The same thread listed twice (a service that repeats an entry) is still one thread.
    const twice = matchCreatedThread(
      before,
      list([summary('new', 500), summary('new', 500), ...before.threads]),
      START,
    );
    assert.equal(twice.kind === 'found' && twice.value.thread_id, 'new');
  });

  it('absent: the same ids as before and a page that reaches back past the request, even when those threads were active meanwhile', () => {
    assert.equal(kind(matchCreatedThread(before, list([summary('a', 2000, 2), summary('b', 1000)]), START)), 'absent');
    assert.equal(kind(matchCreatedThread(list([]), list([]), START)), 'absent');
    // A page that does not reach the end but whose last entry is older than the request.
    assert.equal(
      kind(matchCreatedThread(before, list([summary('a', -60_000, 2), summary('b', -3_600_000)], true), START)),
      'absent',
    );
    // An id new to the page with several interactions is an older thread that moved up, not the new one.
    assert.equal(kind(matchCreatedThread(before, list([summary('old', 900, 3), ...before.threads]), START)), 'absent');
  });

  it('unknown: no snapshot, several new threads, a page that does not reach back, a new id that may be an old thread', () => {
    assert.match(
      String((matchCreatedThread(undefined, list([]), START) as { reason?: string }).reason),
      /before sending/,
    );
    assert.equal(
      kind(matchCreatedThread(before, list([summary('x', 100), summary('y', 200), ...before.threads]), START)),
      'unknown',
    );
    // The after page is cut off (has_more) and its last entry is recent: the new thread could be further down.
    assert.equal(
      kind(matchCreatedThread(before, list([summary('a', 1000, 2), summary('b', 900)], true), START)),
      'unknown',
    );
    // An id missing from the snapshot with activity from before the request may be an older thread.
    assert.equal(
      kind(matchCreatedThread(before, list([summary('z', -CLOCK_TOLERANCE_MS - 5000), ...before.threads]), START)),
      'unknown',
    );
    // The snapshot was only a first page: an id missing from it without a time may have been there all along.
    const partial = list([summary('a', -60_000, 2)], true);
    assert.equal(
      kind(
        matchCreatedThread(partial, list([summary('z', -CLOCK_TOLERANCE_MS - 5000), summary('a', -60_000, 2)]), START),
      ),
      'unknown',
    );
    assert.equal(
      kind(
        matchCreatedThread(
          partial,
          list([summary('z', 0, 1, { last_activity_at: null }), summary('a', -60_000, 2)]),
          START,
        ),
      ),
      'unknown',
    );
    // With a fresh time it is new (activity after the request started), within the clock tolerance.
    assert.equal(
      kind(
        matchCreatedThread(partial, list([summary('z', -CLOCK_TOLERANCE_MS + 1000), summary('a', -60_000, 2)]), START),
      ),
      'found',
    );
    // A new id whose interaction count is missing could be the new thread: a second such id makes it ambiguous.
    assert.equal(
      kind(
        matchCreatedThread(
          before,
          list([summary('x', 100), summary('y', 200, 1, { interaction_count: null }), ...before.threads]),
          START,
        ),
      ),
      'unknown',
    );
  });

  it('the polled candidate confirms: one interaction, and the message when the service shows it', () => {
    const c = confirmCreatedThread(thread(['i1'], 'running'), MSG);
    assert.equal(c.kind === 'found' && c.value.interaction_id, 'i1');
    assert.equal(kind(confirmCreatedThread(thread(['i1'], 'running', { input_message: `  ${MSG}\n` }), MSG)), 'found');
    assert.equal(
      kind(confirmCreatedThread(thread(['i1'], 'running', { input_message: 'Another question' }), MSG)),
      'unknown',
    );
    assert.equal(kind(confirmCreatedThread(thread(['i1', 'i2']), MSG)), 'unknown');
    assert.equal(kind(confirmCreatedThread(thread([]), MSG)), 'unknown');
  });
});

describe('api/reconcile: did a follow-up add an interaction?', () => {
  it('one new interaction id → found; the same ids, none running → absent', () => {
    const found = matchNewInteraction(thread(['i1']), thread(['i1', 'i2'], 'running'));
    assert.equal(found.kind === 'found' && found.value.interaction_id, 'i2');
    assert.equal(kind(matchNewInteraction(thread(['i1', 'i2']), thread(['i1', 'i2']))), 'absent');
    // Listed twice is still one.
    const dup = matchNewInteraction(thread(['i1']), { ...thread(['i1', 'i2', 'i2'], 'running') });
    assert.equal(dup.kind === 'found' && dup.value.interaction_id, 'i2');
  });

  it('anything else → unknown: no snapshot, several new, earlier ids missing, running without a new id', () => {
    assert.equal(kind(matchNewInteraction(thread(['i1']), thread(['i1', 'i2', 'i3']))), 'unknown');
    assert.equal(kind(matchNewInteraction(thread([]), thread([]))), 'unknown');
    assert.equal(kind(matchNewInteraction(thread(['i1']), thread(['i1'], 'running'))), 'unknown');
    // A service that shows only the latest interactions: an id from before is gone, so the count proves nothing.
    assert.equal(kind(matchNewInteraction(thread(['i1', 'i2']), thread(['i2']))), 'unknown');
    assert.equal(kind(matchNewInteraction(thread(['i1', 'i2']), thread(['i3', 'i2']))), 'unknown');
    // The thread says idle but an interaction is running.
    const odd = thread(['i1', 'i2']);
    odd.interactions[0]!.status = 'running';
    assert.equal(kind(matchNewInteraction(thread(['i1', 'i2']), odd)), 'unknown');
  });
});
