// Threads: dispatch, polling, the agent's answer and citations, follow-ups, list.
import { strict as assert } from 'node:assert';
import { DEMO_KEYS, STATUS_WINDOW_MS, THREAD_COST, startEmulator, type Paper, type RunningEmulator } from './index';
import type { Citation } from './agent';
import { sameTitleGroups } from './coverage';
import { call, locFields, qs, sleep } from './testHelpers';

interface Dispatch {
  thread_id: string;
  interaction_id: string;
  status: string;
  mode: string;
  url: string;
  poll_after_seconds: number;
  max_wait_seconds: number;
  created_at: string;
  title: string | null;
}
interface Interaction {
  interaction_id: string;
  status: string;
  mode: string;
  response?: string | null;
  citations?: Citation[];
  stats: { retrieved: number; screened: number; included: number };
}
interface ThreadBody {
  thread_id: string;
  title: string;
  status: string;
  url: string;
  interactions: Interaction[];
  trace?: string;
}
interface ListBody {
  threads: {
    thread_id: string;
    title: string;
    url: string;
    status?: string;
    preview: string;
    interaction_count: number;
    last_activity_at: string;
  }[];
  has_more: boolean;
}

describe('emulator: threads', function () {
  let emu: RunningEmulator;
  const key = DEMO_KEYS.pro;
  const create = (body: unknown, k = key) => call<Dispatch>(emu.url, '/v1/threads', { key: k, body });
  const follow = (id: string, body: unknown, k = key) =>
    call<Dispatch>(emu.url, `/v1/threads/${id}/interactions`, { key: k, body });
  const get = (id: string, q: Record<string, string | boolean | undefined> = {}, k = key) =>
    call<ThreadBody>(emu.url, `/v1/threads/${id}?${qs(q)}`, { key: k });
  const list = (q: Record<string, string | number | undefined> = {}, k = key) =>
    call<ListBody>(emu.url, `/v1/threads?${qs(q)}`, { key: k });
  async function waitDone(id: string): Promise<ThreadBody> {
    for (let i = 0; i < 200; i++) {
      const r = await get(id);
      if (r.body.status !== 'running') return r.body;
      await sleep(10);
    }
    throw new Error('thread did not finish');
  }

  /** Every marker in the text matches a citation/snippet and every snippet marker appears in the text. */
  function checkAnswer(i: Interaction): void {
    const text = i.response!;
    const cits = i.citations!;
    assert.ok(cits.length > 0);
    const markers = new Set([...text.matchAll(/\[(\d+)(?:\.(\d+))?\]/g)].map((m) => m[0]));
    for (const m of markers) {
      const [n, q] = m.slice(1, -1).split('.').map(Number);
      const c = cits.find((x) => x.n === n);
      assert.ok(c, `marker ${m} has a citation`);
      if (q !== undefined)
        assert.ok(
          c.snippets.some((s) => s.marker === m),
          `marker ${m} has a snippet`,
        );
    }
    cits.forEach((c, idx) => {
      assert.equal(c.n, idx + 1);
      const p: Paper | undefined = emu.control.paper(c.paper_id);
      assert.ok(p, 'cited paper exists');
      assert.equal(c.title, p.title);
      assert.equal(c.year, p.year);
      assert.equal(c.journal, p.journal);
      assert.equal(c.url, p.url);
      for (const s of c.snippets) {
        assert.ok(text.includes(s.marker), `snippet marker ${s.marker} appears in the text`);
        const source =
          s.section === 'Abstract' ? p.abstract : p.fullText?.find((x) => x.heading === s.section)?.sentences.join(' ');
        assert.ok(source, `section ${s.section} exists in the paper`);
        assert.ok(source.includes(s.quote), 'quote is verbatim from its section');
      }
    });
  }

  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, speed: 1000, now: '2026-11-20T10:00:00Z' });
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());

  it('dispatch returns every field; the run goes running → idle with a cited Markdown answer', async () => {
    const d = await create({ input_message: 'Does creatine supplementation improve cognition in older adults?' });
    assert.equal(d.status, 200);
    assert.equal(d.body.status, 'running');
    assert.equal(d.body.mode, 'pro');
    assert.match(d.body.thread_id, /^[A-Za-z0-9_-]+$/);
    assert.equal(d.body.url, `https://consensus.app/threads/${d.body.thread_id}`);
    assert.equal(d.body.poll_after_seconds, Math.round(30 / 1000));
    assert.equal(d.body.max_wait_seconds, 1);
    assert.ok(!Number.isNaN(Date.parse(d.body.created_at)));
    // A generated title, as the service's may be: the subject of the brief in another frame, never the brief itself.
    assert.match(d.body.title!, /creatine supplementation improve cognition in older adults/);
    assert.ok(!d.body.title!.startsWith('Does'), d.body.title!);
    const t = await waitDone(d.body.thread_id);
    assert.equal(t.status, 'idle');
    const i = t.interactions[0]!;
    assert.equal(i.interaction_id, d.body.interaction_id);
    assert.match(i.response!, /^## /m);
    assert.match(i.response!, /^- /m, 'a bulleted list');
    assert.match(i.response!, /^\|---/m, 'a table');
    checkAnswer(i);
    assert.ok(
      i.citations!.some((c) => /creatine/i.test(c.title)),
      'cites relevant papers',
    );
    assert.deepEqual(i.stats, {
      retrieved: i.stats.retrieved,
      screened: Math.min(60, i.stats.retrieved),
      included: Math.min(20, i.stats.retrieved),
    });
    assert.equal(t.trace, undefined, 'no trace unless asked');
  });

  it('poll_after_seconds is 30 and max_wait 180/600 at speed 1', async () => {
    emu.control.setSpeed(1);
    const pro = await create({ input_message: 'sleep deprivation memory' });
    assert.equal(pro.body.poll_after_seconds, 30);
    assert.equal(pro.body.max_wait_seconds, 180);
    const deep = await create({ input_message: 'sleep deprivation memory', mode: 'deep' });
    assert.equal(deep.body.max_wait_seconds, 600);
    assert.equal((await get(pro.body.thread_id)).body.status, 'running');
    emu.control.advance(45_000);
    assert.equal((await get(pro.body.thread_id)).body.status, 'idle');
    assert.equal((await get(deep.body.thread_id)).body.status, 'running', 'deep is slower');
    emu.control.advance(135_000);
    assert.equal((await get(deep.body.thread_id)).body.status, 'idle');
  });

  it('charges when a run finishes idle (pro 5, deep 20), nothing for a failed run', async () => {
    const k = emu.control.provisionKey({ plan: 'deep' });
    const a = await create({ input_message: 'exercise and depression' }, k);
    assert.equal(emu.control.getUsage(k).used, 0, 'nothing at dispatch');
    emu.control.completeRuns();
    assert.equal(emu.control.getUsage(k).used, THREAD_COST.pro);
    await create({ input_message: 'exercise and depression', mode: 'deep' }, k);
    emu.control.completeRuns();
    assert.equal(emu.control.getUsage(k).used, THREAD_COST.pro + THREAD_COST.deep);
    emu.control.failNextRun();
    const f = await create({ input_message: 'exercise and depression' }, k);
    emu.control.completeRuns();
    const t = await get(f.body.thread_id, {}, k);
    assert.equal(t.body.status, 'failed');
    assert.equal(t.body.interactions[0]!.response, null);
    assert.equal(emu.control.getUsage(k).used, THREAD_COST.pro + THREAD_COST.deep, 'failed run costs nothing');
    assert.deepEqual(
      emu.control
        .charges()
        .filter((c) => c.reason === 'thread')
        .map((c) => c.threadId)[0],
      a.body.thread_id,
    );
  });

  it('deep mode writes a structured report; free plan cannot use deep (403)', async () => {
    const d = await create(
      { input_message: 'Is cognitive behavioral therapy effective for anxiety?', mode: 'deep' },
      DEMO_KEYS.deep,
    );
    emu.control.completeRuns();
    const r = await get(d.body.thread_id, {}, DEMO_KEYS.deep);
    const i = r.body.interactions[0]!;
    assert.equal(i.mode, 'deep');
    for (const h of ['## Executive summary', '## Methods', '## Findings', '## Limitations'])
      assert.ok(i.response!.includes(h), h);
    assert.ok(i.stats.included > 20, 'deep reads more papers');
    checkAnswer(i);
    const free = await create({ input_message: 'x y z anxiety', mode: 'deep' }, DEMO_KEYS.free);
    assert.equal(free.status, 403);
    assert.equal((free.body as unknown as { code: string }).code, 'feature_not_allowed');
  });

  it('follow-ups use earlier turns; 409 while running; earlier interaction by id; trace', async () => {
    const first = await create({ input_message: 'Does sleep deprivation impair memory consolidation?' });
    const id = first.body.thread_id;
    emu.control.completeRuns();
    const before = await get(id);
    const firstCitations = before.body.interactions[0]!.citations!;

    emu.control.setRunOutcome({ durationMs: 3_600_000 });
    const second = await follow(id, { input_message: 'What about in adolescents?' });
    assert.equal(second.status, 200);
    assert.equal(second.body.thread_id, id);
    assert.notEqual(second.body.interaction_id, first.body.interaction_id);
    const conflict = await follow(id, { input_message: 'And older adults?' });
    assert.equal(conflict.status, 409);
    assert.equal((conflict.body as unknown as { code: string }).code, 'interaction_running');
    const running = await get(id);
    assert.equal(running.body.status, 'running');
    assert.equal(running.body.interactions[1]!.response, null);
    emu.control.completeRuns();

    const t = await get(id, { include_trace: true });
    assert.equal(t.body.interactions.length, 2);
    const [i1, i2] = t.body.interactions;
    assert.ok(!('response' in i1!) && !('citations' in i1!), 'only the latest carries response and citations');
    checkAnswer(i2!);
    assert.match(i2!.response!, /earlier question \("Does sleep deprivation impair memory consolidation\?"\)/);
    assert.equal(i2!.citations![0]!.paper_id, firstCitations[0]!.paper_id, 'earlier citations are reused');
    assert.equal(typeof t.body.trace, 'string');
    assert.match(t.body.trace!, /search with earlier context/);

    const earlier = await get(id, { interaction_id: first.body.interaction_id, include_trace: true });
    assert.equal(earlier.status, 200);
    const e1 = earlier.body.interactions[0]!;
    assert.deepEqual(e1.citations, firstCitations);
    assert.ok(!('response' in earlier.body.interactions[1]!));
    assert.doesNotMatch(earlier.body.trace!, /earlier context/, 'trace of the selected interaction');
    const missing = await get(id, { interaction_id: 'in_nope' });
    assert.equal(missing.status, 404);
  });

  it('a thread scoped to attached papers cites only those', async () => {
    const pool = emu.control
      .corpus()
      .filter((p) => p.topic === 'sleep')
      .slice(0, 4);
    const d = await create({
      input_message: 'What do these papers say about memory?',
      attachments: { paper_ids: [...pool.map((p) => p.id), 'unknown-id'] },
    });
    emu.control.completeRuns();
    const i = (await get(d.body.thread_id)).body.interactions[0]!;
    checkAnswer(i);
    const ids = new Set(pool.map((p) => p.id));
    assert.ok(i.citations!.every((c) => ids.has(c.paper_id)));
    assert.ok(i.stats.included <= 4);
  });

  it('answers about a title that two papers share cite both, each with its own number and verbatim quotes', async () => {
    const groups = sameTitleGroups(emu.control.corpus()).exact;
    const example = groups.find(
      (g) => g.some((p) => p.journal === 'Sleep') && g.some((p) => p.journal === 'European Journal of Nutrition'),
    );
    assert.ok(example, 'the worked example: one title in Sleep and in European Journal of Nutrition, same year');
    for (const [group, mode] of [
      [example, 'deep'],
      ...groups
        .filter((g) => g !== example)
        .slice(0, 4)
        .map((g) => [g, 'pro'] as const),
    ] as const) {
      const d = await create({ input_message: group[0]!.title, mode });
      emu.control.completeRuns();
      const i = (await get(d.body.thread_id)).body.interactions[0]!;
      checkAnswer(i);
      const cited = group.map((p) => i.citations!.find((c) => c.paper_id === p.id));
      assert.ok(cited.every(Boolean), `${mode}: both papers of "${group[0]!.title}" are cited`);
      assert.equal(new Set(cited.map((c) => c!.n)).size, group.length, 'as separate citations');
      assert.ok(cited.every((c) => c!.title === group[0]!.title && c!.year === group[0]!.year));
      assert.equal(new Set(cited.map((c) => c!.journal)).size, group.length, 'from different journals');
    }
  });

  it('thread filters apply to the agent search', async () => {
    const d = await create({ input_message: 'exercise depression', filters: { study_types: ['rct'], year_min: 2015 } });
    emu.control.completeRuns();
    const i = (await get(d.body.thread_id)).body.interactions[0]!;
    checkAnswer(i);
    for (const c of i.citations!) {
      const p = emu.control.paper(c.paper_id)!;
      assert.equal(p.studyType, 'rct');
      assert.ok(p.year >= 2015);
    }
  });

  it('validates thread bodies with 422 naming every field', async () => {
    const r = await create({
      input_message: '',
      mode: 'fast',
      filters: { domain: 'med,xyz', study_types: ['rct', 'bogus'], month_min: 3, sjr_max: 9, unknown_filter: 1 },
      attachments: {
        paper_ids: Array.from({ length: 51 }, (_, i) => `p${i}`),
        collection_ids: Array.from({ length: 11 }, (_, i) => `c${i}`),
      },
    });
    assert.equal(r.status, 422);
    const detail = (r.body as unknown as { detail: { loc: (string | number)[] }[] }).detail;
    const locs = detail.map((d) => d.loc.slice(0, 3).join('.'));
    for (const l of [
      'body.input_message',
      'body.mode',
      'body.filters.domain',
      'body.filters.study_types',
      'body.filters.month_min',
      'body.filters.sjr_max',
      'body.filters.unknown_filter',
      'body.attachments.paper_ids',
      'body.attachments.collection_ids',
    ]) {
      assert.ok(locs.includes(l), `${l} in ${locs.join(', ')}`);
    }
    const long = await create({ input_message: 'x'.repeat(10001) });
    assert.deepEqual(locFields(long.body), ['input_message']);
    assert.equal(
      (await create({ input_message: '💡'.repeat(10000) })).status,
      200,
      '10000 characters (not UTF-16 units) pass',
    );
    assert.equal((await create({})).status, 422);
    assert.equal((await create([1, 2])).status, 422);
    const badJson = await call(emu.url, '/v1/threads', { key, rawBody: '{"input_message": ' });
    assert.equal(badJson.status, 422);
    assert.equal((await get('bad id!')).status, 422);
    assert.equal((await follow('bad$id', { input_message: 'x' })).status, 422);
    assert.equal((await get('th_unknown')).status, 404);
    assert.equal((await get('th_x', { include_trace: 'maybe' })).status, 422);
  });

  it('threads are private to their key', async () => {
    const d = await create({ input_message: 'vitamin D fractures' });
    assert.equal((await get(d.body.thread_id, {}, DEMO_KEYS.teams)).status, 404);
    assert.equal((await list({}, DEMO_KEYS.teams)).body.threads.length, 0);
  });

  it('lists newest first with title search, limit/offset/has_more, status window and substitute title', async () => {
    const titles = [
      'Creatine and memory',
      'Sleep and mood',
      'CREATINE in vegetarians',
      'Exercise for depression',
      '???',
    ];
    const ids: string[] = [];
    for (const t of titles) {
      ids.push((await create({ input_message: t })).body.thread_id);
      emu.control.advance(60_000);
    }
    emu.control.completeRuns();
    const all = await list({ limit: 100 });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.threads.map((t) => t.thread_id),
      [...ids].reverse(),
    );
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.threads[0]!.title, 'Untitled thread');
    assert.equal((await get(ids[4]!)).body.title, 'Untitled thread');
    const s = all.body.threads[1]!;
    assert.equal(s.status, 'idle');
    assert.equal(s.interaction_count, 1);
    // The preview of an answered thread is the answer's first sentence, not the brief.
    assert.match(s.preview, /^Across the \d+ papers read, the evidence shows /);
    assert.ok(!/\[\d/.test(s.preview), 'no citation markers');
    assert.equal(s.url, `https://consensus.app/threads/${s.thread_id}`);

    const found = await list({ query: 'creatine' });
    assert.deepEqual(found.body.threads.map((t) => t.thread_id).sort(), [ids[0], ids[2]].sort());
    assert.ok(
      found.body.threads.every(
        (t) => /creatine/i.test(t.title) && t.title !== 'Creatine and memory' && t.title !== 'CREATINE in vegetarians',
      ),
      'generated titles',
    );

    const p1 = await list({ limit: 2 });
    const p2 = await list({ limit: 2, offset: 2 });
    const p3 = await list({ limit: 2, offset: 4 });
    assert.equal(p1.body.has_more, true);
    assert.equal(p2.body.has_more, true);
    assert.equal(p3.body.has_more, false);
    assert.deepEqual(
      [...p1.body.threads, ...p2.body.threads, ...p3.body.threads].map((t) => t.thread_id),
      [...ids].reverse(),
    );

    // A follow-up moves a thread to the top.
    await follow(ids[0]!, { input_message: 'More on memory?' });
    assert.equal((await list({ limit: 1 })).body.threads[0]!.thread_id, ids[0]);

    emu.control.completeRuns();
    emu.control.advance(STATUS_WINDOW_MS + 1000);
    const old = await list({});
    assert.ok(
      old.body.threads.every((t) => !('status' in t)),
      'status absent past the window',
    );
    assert.equal((await get(ids[0]!)).body.status, 'idle', 'the poll stays authoritative');

    for (const [q, f] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ offset: -1 }, 'offset'],
      [{ limit: 'x' }, 'limit'],
    ] as const) {
      const r = await list(q);
      assert.equal(r.status, 422);
      assert.deepEqual(locFields(r.body), [f]);
    }
  });

  it('run time and failure are controllable for a running thread', async () => {
    emu.control.setSpeed(1);
    const d = await create({ input_message: 'green tea liver disease' });
    emu.control.failNextRun(d.body.thread_id);
    const t0 = await get(d.body.thread_id, { include_trace: true });
    assert.equal(t0.body.status, 'running');
    emu.control.advance(46_000);
    const t = await get(d.body.thread_id, { include_trace: true });
    assert.equal(t.body.status, 'failed');
    assert.match(t.body.trace!, /error/);
    const retry = await follow(d.body.thread_id, { input_message: 'green tea liver disease' });
    assert.equal(retry.status, 200, 'a follow-up is allowed after a failure');
  });

  it('an outcome set before its thread waits for the next thread created; clearRunOutcomes forgets it', async () => {
    const runMs = (threadId: string) => emu.control.threads().find((t) => t.threadId === threadId)?.runMs;
    emu.control.setRunOutcome({ durationMs: 3_600_000 });
    const taken = await create({ input_message: 'caffeine and sleep latency' });
    assert.equal(runMs(taken.body.thread_id), 3_600_000);
    emu.control.setRunOutcome({ durationMs: 3_600_000 });
    emu.control.clearRunOutcomes();
    const plain = await create({ input_message: 'caffeine and reaction time' });
    assert.ok(runMs(plain.body.thread_id)! < 3_600_000, 'a forgotten outcome still shaped the next run');
    emu.control.completeRuns();
  });
});
