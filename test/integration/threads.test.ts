// The client's thread methods against the emulator over real HTTP: createThread, waitForThread,
// getThread (trace, earlier interaction), addInteraction (and 409 while running), listThreads
// (query, limit, offset, has_more), deep mode and its 403 on free, failed runs.
import { strict as assert } from 'node:assert';
import { type Client, type Thread } from '../../src/api';
import { DEMO_KEYS } from '../emulator';
import { startHarness, type Harness } from './harness';

/** Every `[n.m]` / `[n]` marker of an answer names a cited paper and, with `.m`, one of its snippets. */
function assertCitationsMatch(t: Thread): void {
  const last = t.interactions.at(-1)!;
  const text = last.response ?? '';
  assert.ok(text.length > 100, 'an answer was written');
  const cites = last.citations ?? [];
  assert.ok(cites.length > 0, 'with citations');
  const markers = new Set(cites.flatMap((c) => (c.snippets ?? []).map((s) => s.marker)));
  for (const m of markers) assert.ok(text.includes(m), `marker ${m} appears in the answer`);
  for (const m of text.matchAll(/\[(\d+)(?:\.(\d+))?\]/g)) {
    const cite = cites.find((c) => c.n === Number(m[1]));
    assert.ok(cite, `${m[0]} names a cited paper`);
    if (m[2]) assert.ok(markers.has(m[0]), `${m[0]} names a snippet`);
  }
}

describe('integration: threads', function () {
  this.timeout(30_000);
  let h: Harness;
  let client: Client;
  let key: string;
  const posts = (path: RegExp) => h.emu.control.requests().filter((r) => r.method === 'POST' && path.test(r.path));

  before(async function () {
    this.timeout(60_000);
    h = await startHarness({ speed: 500 });
  });
  beforeEach(() => {
    h.emu.control.reset();
    h.emu.control.setSpeed(500);
    key = h.provision({ plan: 'pro' });
    client = h.client({ apiKey: key });
  });
  after(async () => {
    h.assertNoKeyLeaked();
    await h.close();
  });

  it('createThread with filters and attachments → running dispatch; waitForThread polls to idle with a cited answer', async () => {
    const papers = h.emu.control
      .corpus()
      .filter((p) => p.topic === 'creatine')
      .slice(0, 3)
      .map((p) => p.id);
    const d = await client.createThread({
      input_message: 'Does creatine supplementation improve working memory in healthy adults?',
      mode: 'pro',
      filters: { year_min: 2010, study_types: ['rct', 'meta-analysis'], human: true, domain: ['med', 'psych'] },
      attachments: { paper_ids: papers },
    });
    assert.equal(d.status, 'running');
    assert.equal(d.mode, 'pro');
    assert.match(d.thread_id, /^[A-Za-z0-9_-]+$/);
    assert.equal(d.reconciled, false);
    assert.equal(d.poll_after_seconds, 1, 'round(30 / 500) = 0, bounded to 1 s');
    assert.ok(d.max_wait_seconds >= 1);
    const updates: Thread[] = [];
    const t = await client.waitForThread(d, { onUpdate: (u) => updates.push(u), maxWaitSeconds: 20 });
    assert.equal(t.status, 'idle');
    assert.ok(updates.length >= 1 && updates.at(-1) === t);
    assert.equal(t.thread_id, d.thread_id);
    assert.equal(t.interactions.length, 1);
    assert.equal(t.interactions[0]!.interaction_id, d.interaction_id);
    assertCitationsMatch(t);
    const cited = new Set((t.interactions[0]!.citations ?? []).map((c) => c.paper_id));
    assert.ok(
      [...cited].every((id) => papers.includes(String(id))),
      'attached papers scope the research',
    );
    const stats = t.interactions[0]!.stats;
    assert.ok(stats && stats.retrieved! >= stats.screened! && stats.screened! >= stats.included!);
    assert.deepEqual(
      h.emu.control.threads(key).map((x) => x.threadId),
      [d.thread_id],
    );
    // Polls used the poll route with no extra parameters.
    const polls = h.emu.control.requests().filter((r) => r.route === 'get_thread');
    assert.ok(polls.length >= 1 && polls.every((r) => Object.keys(r.query).length === 0));
    assert.deepEqual(
      h.emu.control.charges().map((c) => [c.reason, c.calls]),
      [['thread', 5]],
    );
  });

  it('getThread: includeTrace sends include_trace=true and returns the trace; addInteraction follows up; interactionId reads the earlier turn', async () => {
    const d1 = await client.createThread({
      input_message: 'Is mindfulness training effective for anxiety in students?',
    });
    await client.waitForThread(d1, { maxWaitSeconds: 20 });
    const traced = await client.getThread(d1.thread_id, { includeTrace: true });
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, { include_trace: 'true' });
    assert.equal(typeof traced.trace, 'string');
    assert.match(traced.trace!, /search/);
    const plain = await client.getThread(d1.thread_id);
    assert.equal(plain.trace, undefined, 'no trace unless asked');

    const d2 = await client.addInteraction(d1.thread_id, {
      input_message: 'And how large are the effects compared with CBT?',
    });
    assert.equal(d2.thread_id, d1.thread_id);
    assert.notEqual(d2.interaction_id, d1.interaction_id);
    assert.equal(d2.status, 'running');
    const t = await client.waitForThread(d2, { maxWaitSeconds: 20 });
    assert.equal(t.status, 'idle');
    assert.deepEqual(
      t.interactions.map((i) => i.interaction_id),
      [d1.interaction_id, d2.interaction_id],
    );
    assertCitationsMatch(t);
    assert.ok(!t.interactions[0]!.response, 'only the latest interaction carries the response');

    const earlier = await client.getThread(d1.thread_id, { interactionId: d1.interaction_id });
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, { interaction_id: d1.interaction_id });
    assert.equal(
      earlier.interactions.find((i) => i.interaction_id === d1.interaction_id)!.response,
      plain.interactions[0]!.response,
    );
    assert.equal(posts(/interactions$/).length, 1, 'one follow-up POST');
  });

  it('409: a follow-up while the latest interaction is running is a conflict, not retried or reconciled; it goes through once idle', async () => {
    h.emu.control.setSpeed(1); // a 45 s run
    const d = await client.createThread({ input_message: 'What is known about caffeine and sleep latency?' });
    const e = await h.expectError(
      client.addInteraction(d.thread_id, { input_message: 'Only in older adults?' }),
      'conflict',
    );
    assert.equal(e.status, 409);
    assert.match(e.message, /still running/);
    assert.equal(posts(/interactions$/).length, 1, 'sent once');
    assert.equal(h.emu.control.threads(key)[0]!.interactions, 1, 'no follow-up was created');
    h.emu.control.completeRuns();
    h.emu.control.setSpeed(500);
    const d2 = await client.addInteraction(d.thread_id, { input_message: 'Only in older adults?' });
    assert.equal(d2.status, 'running');
    assert.equal(h.emu.control.threads(key)[0]!.interactions, 2);
  });

  it('a failed run: waitForThread returns the failed thread, nothing charged', async () => {
    h.emu.control.failNextRun();
    const d = await client.createThread({ input_message: 'Does air pollution reduce crop yields in India?' });
    const t = await client.waitForThread(d, { maxWaitSeconds: 20 });
    assert.equal(t.status, 'failed');
    assert.equal(t.interactions[0]!.status, 'failed');
    assert.equal(h.emu.control.charges().length, 0);
  });

  it('deep mode on a deep plan writes a structured report; on the free plan it is 403 feature_not_allowed and nothing is created', async () => {
    const deep = h.client({ apiKey: DEMO_KEYS.deep });
    const d = await deep.createThread({
      input_message: 'Review the evidence on microbiome interventions for depression.',
      mode: 'deep',
    });
    assert.equal(d.mode, 'deep');
    const t = await deep.waitForThread(d, { maxWaitSeconds: 20 });
    assert.equal(t.status, 'idle');
    assert.equal(t.interactions[0]!.mode, 'deep');
    assert.match(t.interactions[0]!.response!, /^# .+\n[\s\S]*## Executive summary[\s\S]*## Methods/);
    assertCitationsMatch(t);

    const free = h.client({ apiKey: DEMO_KEYS.free });
    const e = await h.expectError(
      free.createThread({ input_message: 'A deep question about sleep.', mode: 'deep' }),
      'feature_not_allowed',
    );
    assert.equal(e.status, 403);
    assert.equal(posts(/^\/v1\/threads$/).filter((r) => r.keyLabel === 'demo:free').length, 1, 'not retried');
    assert.deepEqual(h.emu.control.threads(DEMO_KEYS.free), []);
  });

  it('listThreads: newest first, query (case-insensitive title substring), limit/offset on the wire, has_more', async () => {
    const titles = [
      'Vitamin D and fractures',
      'Sleep and memory consolidation',
      'Vitamin D and depression',
      'Exercise and cognition',
      'VITAMIN D in winter',
    ];
    const ids: string[] = [];
    for (const title of titles)
      ids.push((await client.createThread({ input_message: `${title}. What does the evidence say?` })).thread_id);
    h.emu.control.completeRuns();

    const all = await client.listThreads();
    assert.deepEqual(
      all.threads.map((t) => t.thread_id),
      [...ids].reverse(),
    );
    assert.equal(all.has_more, false);
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, {});
    const s = all.threads[0]!;
    assert.equal(s.interaction_count, 1);
    assert.ok(s.preview && s.last_activity_at && s.url && s.title);

    const vit = await client.listThreads({ query: 'vitamin d' });
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, { query: 'vitamin d' });
    assert.deepEqual(
      vit.threads.map((t) => t.thread_id),
      [ids[4], ids[2], ids[0]],
    );

    const p1 = await client.listThreads({ limit: 2, offset: 0 });
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, { limit: '2', offset: '0' });
    assert.deepEqual(
      p1.threads.map((t) => t.thread_id),
      [ids[4], ids[3]],
    );
    assert.equal(p1.has_more, true);
    const p3 = await client.listThreads({ limit: 2, offset: 4 });
    assert.deepEqual(
      p3.threads.map((t) => t.thread_id),
      [ids[0]],
    );
    assert.equal(p3.has_more, false);
    const q2 = await client.listThreads({ query: 'VITAMIN', limit: 1, offset: 1 });
    assert.deepEqual(h.emu.control.requests().at(-1)!.query, { query: 'VITAMIN', limit: '1', offset: '1' });
    assert.deepEqual(
      q2.threads.map((t) => t.thread_id),
      [ids[2]],
    );
    assert.equal(q2.has_more, true);
  });

  it('listThreads: status absent past the status window and a substitute title; the poll stays authoritative', async () => {
    const d = await client.createThread({ input_message: 'Is it so?' });
    h.emu.control.completeRuns();
    h.emu.control.advance(8 * 24 * 3600 * 1000);
    const list = await client.listThreads();
    const s = list.threads.find((t) => t.thread_id === d.thread_id)!;
    assert.equal(s.status ?? undefined, undefined);
    assert.equal(s.title, 'Untitled thread');
    const t = await client.getThread(d.thread_id);
    assert.equal(t.status, 'idle');
  });
});
