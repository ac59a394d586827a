// The research agent's tools take a model's input (untrusted, unvalidated by VS Code) and give back the service's
// text: every field is checked before anything is sent, the declared schemas say what the code accepts, and an
// answer goes back plain, bounded and with its citations.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Thread } from '../../../src/api/index';
import {
  ANSWER_MAX,
  answerRecord,
  parseAskToolInput,
  parseListThreadsToolInput,
  parseThreadToolInput,
  threadSummaryRecord,
} from '../../../src/chat/threadToolInput';
import { parsePaperRefs, PAPER_REFS_MAX, TOOL_FILTER_KEYS } from '../../../src/chat/toolInput';
import { Tools } from '../../../src/platform/ids';
import { linksIn } from '../../vscodeLinks';

interface Schema {
  required?: string[];
  properties: Record<string, Schema & { maxItems?: number; maximum?: number; enum?: string[] }>;
}
const declared = (
  JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: { languageModelTools: { name: string; inputSchema: Schema }[] };
  }
).contributes.languageModelTools;
const schemaOf = (name: string): Schema => {
  const t = declared.find((d) => d.name === name);
  assert.ok(t, `${name} is not contributed`);
  return t.inputSchema;
};

describe('chat: the ask tool input', () => {
  it('a question becomes a thread request: pro by default, filters given, papers attached, the wait bounded', () => {
    const r = parseAskToolInput({
      question: '  Does creatine help memory? ',
      mode: 'deep',
      filters: { study_types: ['rct'], year_min: 2015 },
      paperIds: ['p1', 'p2', 'p1'],
      waitSeconds: 30,
    });
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.deepEqual(r.request, {
      input_message: 'Does creatine help memory?',
      mode: 'deep',
      filters: { study_types: ['rct'], year_min: 2015 },
      attachments: { paper_ids: ['p1', 'p2'] },
    });
    assert.equal(r.waitSeconds, 30);
    const d = parseAskToolInput({ question: 'q', useSearchFilters: true });
    assert.ok(d.ok);
    assert.deepEqual(d.request, { input_message: 'q', mode: 'pro' });
    assert.equal(d.useSearchFilters, true);
    assert.equal(d.waitSeconds, 120);
  });

  it('refuses, naming the field, whatever would fail at the service or is not a field', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /question/],
      [{ question: '   ' }, /question/],
      [{ question: 'x'.repeat(10_001) }, /question/],
      [{ question: 'q', mode: 'fast' }, /mode/],
      [{ question: 'q', waitSeconds: 601 }, /waitSeconds/],
      [{ question: 'q', waitSeconds: -1 }, /waitSeconds/],
      [{ question: 'q', filters: { study_type: ['rct'] } }, /filters\.study_type/],
      [{ question: 'q', filters: { study_types: ['astrology'] } }, /study_types/],
      [{ question: 'q', filters: { month_min: 3 } }, /month_min/],
      [{ question: 'q', filters: 'rct' }, /filters/],
      [{ question: 'q', filters: { human: true }, useSearchFilters: true }, /filters/],
      [{ question: 'q', paperIds: Array.from({ length: 51 }, (_, i) => `p${i}`) }, /paperIds/],
      [{ question: 'q', paperIds: [''] }, /paperIds/],
      [{ question: 'q', brief: 'x' }, /brief.*unknown/],
      [null, /object/],
      ['q', /object/],
    ];
    for (const [input, field] of cases) {
      const r = parseAskToolInput(input);
      assert.equal(r.ok, false, JSON.stringify(input).slice(0, 200));
      if (!r.ok) assert.match(r.message, field, JSON.stringify(input).slice(0, 200));
    }
  });

  it('package.json declares what the code accepts: the fields, and the search filters inside filters', () => {
    const ask = schemaOf(Tools.askAgent);
    assert.deepEqual(ask.required, ['question']);
    assert.deepEqual(Object.keys(ask.properties).sort(), [
      'filters',
      'mode',
      'paperIds',
      'question',
      'useSearchFilters',
      'waitSeconds',
    ]);
    assert.deepEqual(Object.keys(ask.properties['filters']!.properties).sort(), [...TOOL_FILTER_KEYS].sort());
    assert.deepEqual(ask.properties['mode']?.enum, ['pro', 'deep']);
    assert.equal(ask.properties['paperIds']?.maxItems, 50);
    assert.equal(ask.properties['waitSeconds']?.maximum, 600);
    for (const t of [Tools.paperDetails, Tools.insertCitations]) {
      const s = schemaOf(t);
      assert.deepEqual(s.required, ['papers']);
      assert.deepEqual(Object.keys(s.properties), ['papers']);
      assert.equal(s.properties['papers']?.maxItems, PAPER_REFS_MAX);
    }
    assert.deepEqual(Object.keys(schemaOf(Tools.readThread).properties).sort(), ['interactionId', 'threadId']);
    assert.deepEqual(Object.keys(schemaOf(Tools.listThreads).properties).sort(), ['limit', 'query']);
  });
});

describe('chat: papers, threads and lists named by a model', () => {
  it('papers: 1 to 20 ids, cite keys or DOIs, trimmed and de-duplicated; a lone string is one', () => {
    assert.deepEqual(parsePaperRefs({ papers: [' a ', 'a', '10.1/x'] }), { ok: true, refs: ['a', '10.1/x'] });
    assert.deepEqual(parsePaperRefs({ papers: 'k2020' }), { ok: true, refs: ['k2020'] });
    for (const bad of [{}, { papers: [] }, { papers: [1] }, { papers: [''] }, { papers: ['a'], more: 1 }, [], null])
      assert.equal(parsePaperRefs(bad).ok, false, JSON.stringify(bad));
    assert.equal(parsePaperRefs({ papers: Array.from({ length: PAPER_REFS_MAX + 1 }, (_, i) => `p${i}`) }).ok, false);
  });

  it('a thread id as the service writes them; an interaction id likewise', () => {
    assert.deepEqual(parseThreadToolInput({ threadId: 'th_1-A' }), { ok: true, threadId: 'th_1-A' });
    assert.deepEqual(parseThreadToolInput({ threadId: 't', interactionId: 'i2' }), {
      ok: true,
      threadId: 't',
      interactionId: 'i2',
    });
    for (const bad of [{}, { threadId: '../x' }, { threadId: 't?x=1' }, { threadId: 'x'.repeat(513) }, { id: 't' }])
      assert.equal(parseThreadToolInput(bad).ok, false, JSON.stringify(bad));
    assert.equal(parseThreadToolInput({ threadId: 't', interactionId: 'a b' }).ok, false);
  });

  it('a list: both fields optional, the limit bounded', () => {
    assert.deepEqual(parseListThreadsToolInput(undefined), { ok: true, limit: 10 });
    assert.deepEqual(parseListThreadsToolInput({ query: ' sleep ', limit: 3 }), { ok: true, query: 'sleep', limit: 3 });
    for (const bad of [{ limit: 0 }, { limit: 31 }, { query: 5 }, { q: 'x' }, 'x'])
      assert.equal(parseListThreadsToolInput(bad).ok, false, JSON.stringify(bad));
  });
});

describe('chat: an answer as a model reads it', () => {
  const thread = (response: string): Thread => ({
    thread_id: 'th1',
    title: 'Creatine [x](command:researchDesk.clearApiKey) \u202e',
    status: 'idle',
    url: 'https://consensus.app/t/th1',
    interactions: [
      { interaction_id: 'i1', status: 'idle', response: 'first', citations: [] },
      {
        interaction_id: 'i2',
        status: 'idle',
        response,
        citations: [
          {
            n: 1,
            paper_id: 'p1',
            title: 'Creatine and memory',
            year: 2020,
            journal: 'J',
            url: 'https://consensus.app/papers/p1',
            snippets: [{ marker: '1.1', quote: 'q'.repeat(5000), section: 'Results' }],
          },
          { n: 2, paper_id: 'p2', title: 'Other', snippets: null },
        ],
      },
    ],
  });

  it('the latest turn with its markers and cited papers; keys where the session knows the paper', () => {
    const r = answerRecord(thread('Yes [1.1], mostly [2].\n\n- a point'), (c) =>
      c.paper_id === 'p1' ? 'k1' : undefined,
    );
    assert.equal(r.threadId, 'th1');
    assert.equal(r.interactionId, 'i2');
    assert.equal(r.turns, 2);
    assert.equal(r.answer, 'Yes [1.1], mostly [2].\n\n- a point');
    assert.deepEqual(linksIn(r.title), []);
    assert.ok(!r.title.includes('\u202e'));
    assert.equal(r.papers?.length, 2);
    assert.equal(r.papers?.[0]?.citeKey, 'k1');
    assert.equal(r.papers?.[1]?.citeKey, undefined);
    assert.ok((r.papers?.[0]?.quotes[0]?.quote.length ?? 0) <= 600);
    assert.equal(answerRecord(thread('x'), () => undefined, 'i1').answer, 'first');
  });

  it('an answer longer than its share is cut and says so', () => {
    const r = answerRecord(thread('word '.repeat(10_000)), () => undefined);
    assert.ok(r.answer !== undefined && r.answer.length <= ANSWER_MAX);
    assert.equal(r.answerCut, true);
  });

  it('a listed thread: plain title and preview, what the list gave', () => {
    const r = threadSummaryRecord({
      thread_id: 't',
      title: '[a](command:x)',
      preview: 'p\u200b](command:y)',
      interaction_count: 2,
      status: null,
    });
    assert.deepEqual(linksIn(String(r['title'])), []);
    assert.deepEqual(linksIn(String(r['preview'])), []);
    assert.equal(r['turns'], 2);
    assert.ok(!('status' in r));
  });
});
