// The emulator's real answers (pro and deep, first turn and follow-up), fetched over HTTP with
// the real client, render with every marker linked to an existing quote or paper.
import { strict as assert } from 'node:assert';
import { createClient, type Client } from '../../../src/api';
import { type Interaction } from '../../../src/api/schemas';
import { renderAnswerDetailed } from '../../../src/render/answer';
import { DEMO_KEYS, startEmulator, type RunningEmulator } from '../../emulator';
import { assertSafe, textContent } from './html';

const QUESTIONS = [
  'Does creatine supplementation improve cognition in older adults?',
  'Effect of formative feedback on mathematics performance in secondary school students',
  'Is mindfulness training effective for reducing anxiety in university students?',
];

describe('render: the emulator agent’s answers', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  const clients: Client[] = [];
  const client = (apiKey: string): Client => {
    const c = createClient({
      baseUrl: emu.url,
      apiKey,
      rateLimits: { search: Infinity, list: Infinity, poll: Infinity },
    });
    clients.push(c);
    return c;
  };

  before(async () => {
    emu = await startEmulator({ port: 0, rateLimits: false, speed: 1000, quiet: true });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emu.close();
  });

  /** Render one finished interaction and check every marker of its text. */
  function check(i: Interaction, mode: 'pro' | 'deep'): void {
    const text = i.response ?? '';
    assert.ok(text.length > 200, 'an answer');
    const citations = i.citations ?? [];
    const r = renderAnswerDetailed(text, citations);
    const els = assertSafe(r.html);
    assert.deepEqual(r.unresolvedMarkers, [], 'every marker resolves');
    assert.deepEqual(r.warnings, []);
    // Every marker written outside code is linked: count them in the source and in the output.
    const written = [...text.replace(/`[^`]*`/g, '').matchAll(/\[(\d+(?:\.\d+)?)\]/g)].map((m) => m[1]!);
    const anchors = els.filter((e) => e.tag === 'a' && e.attrs.class === 'cite');
    assert.deepEqual(
      anchors.map((a) => a.attrs['data-marker']),
      written,
      'each written marker became a link, in order',
    );
    assert.ok(
      written.some((m) => m.includes('.')),
      'has quote markers',
    );
    assert.ok(
      written.some((m) => !m.includes('.')),
      'has paper markers',
    );
    const ids = new Map(els.filter((e) => e.attrs.id).map((e) => [e.attrs.id!, e]));
    for (const a of anchors) {
      const target = ids.get(a.attrs.href!.slice(1))!;
      const [n, m] = a.attrs['data-marker']!.split('.');
      const c = citations.find((x) => x.n === Number(n))!;
      if (m === undefined) {
        assert.equal(target.attrs.class, 'reference');
        assert.ok(target.text.includes(c.title!), 'the paper marker points at the paper');
      } else {
        const s = c.snippets!.find((x) => x.marker === `[${n}.${m}]`)!;
        assert.equal(target.attrs['data-section'], s.section);
        assert.equal(
          ids.get(a.attrs['aria-describedby']!)!.text,
          s.quote,
          'the quote marker points at its verbatim quote',
        );
      }
      assert.equal(a.attrs['aria-label'], `Citation ${a.attrs['data-marker']}: ${c.title}`);
    }
    // Every citation is listed, with its https link.
    assert.deepEqual(
      r.references.map((x) => x.n),
      citations.map((c) => c.n),
    );
    for (const c of citations) assert.equal(r.references.find((x) => x.n === c.n)!.url, c.url);
    // Headings (deep: # → h2, ## → h3, ### → h4), lists and the evidence table come through.
    const tags = new Set(els.map((e) => e.tag));
    for (const t of ['h2', 'ul', 'li', 'table', 'th', 'td', ...(mode === 'deep' ? ['h3', 'h4'] : [])])
      assert.ok(tags.has(t), `has <${t}>`);
    assert.ok(!tags.has('h1'));
    assert.ok(!/\|---/.test(textContent(r.bodyHtml)), 'the table is a table, not text');
  }

  for (const mode of ['pro', 'deep'] as const) {
    it(`${mode}: first answers and a follow-up`, async () => {
      const c = client(mode === 'pro' ? DEMO_KEYS.pro : DEMO_KEYS.deep);
      for (const q of QUESTIONS) {
        const d = await c.createThread({ input_message: q, mode });
        const t = await c.waitForThread(d, { pollAfterSeconds: 0.01 });
        assert.equal(t.status, 'idle');
        check(t.interactions.at(-1)!, mode);
      }
      const d = await c.createThread({ input_message: QUESTIONS[0]!, mode });
      await c.waitForThread(d, { pollAfterSeconds: 0.01 });
      const f = await c.addInteraction(d.thread_id, {
        input_message: 'What about younger adults and doses under 5 g per day?',
        mode,
      });
      const t = await c.waitForThread(f, { pollAfterSeconds: 0.01 });
      assert.equal(t.interactions.length, 2);
      check(t.interactions.at(-1)!, mode);
    });
  }
});
