// A model's input to the search tool is untrusted and unvalidated by VS Code: every field is checked here, and what
// goes back to the model is plain and small. The declared schema in package.json must say what the code accepts.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Paper } from '../../../src/api/index';
import { DOMAIN_CODES, STUDY_TYPES } from '../../../src/api/vocab';
import { paperRecords, parseSearchToolInput, TOOL_FILTER_KEYS, TOOL_RESULTS_MAX } from '../../../src/chat/toolInput';
import { Tools } from '../../../src/platform/ids';
import { linksIn } from '../../vscodeLinks';

interface ToolContribution {
  name: string;
  modelDescription: string;
  inputSchema: { required?: string[]; properties: Record<string, { items?: { enum?: string[] }; maximum?: number }> };
}
const tools = (
  JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: { languageModelTools: ToolContribution[] };
  }
).contributes.languageModelTools;

describe('chat: the search tool input', () => {
  it('turns a valid input into the service parameters, the limit as the page size', () => {
    const r = parseSearchToolInput({ query: '  sleep and memory ', limit: 5, study_types: ['rct'], human: true });
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.deepEqual(r.params, { query: 'sleep and memory', page_size: 5, study_types: ['rct'], human: true });
    const d = parseSearchToolInput({ query: 'sleep' });
    assert.ok(d.ok);
    assert.equal(d.params.page_size, 10);
  });

  it('refuses, naming the field: no query, a limit out of range, an unknown or misspelt filter, a rule of the service', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /query/],
      [{ query: '   ' }, /query/],
      [{ query: 'x'.repeat(501) }, /query/],
      [{ query: 'sleep', limit: 0 }, /limit/],
      [{ query: 'sleep', limit: 2.5 }, /limit/],
      [{ query: 'sleep', limit: TOOL_RESULTS_MAX + 1 }, /limit/],
      [{ query: 'sleep', study_type: ['rct'] }, /study_type\b.*unknown/],
      [{ query: 'sleep', page: 3 }, /page.*unknown/],
      [{ query: 'sleep', month_min: 3 }, /month_min/],
      [{ query: 'sleep', sjr_max: 9 }, /sjr_max/],
      [{ query: 'sleep', study_types: ['astrology'] }, /study_types/],
      [{ query: 'sleep', human: 'yes' }, /human/],
      [null, /object/],
      [['sleep'], /object/],
      ['sleep', /object/],
    ];
    for (const [input, field] of cases) {
      const r = parseSearchToolInput(input);
      assert.equal(r.ok, false, JSON.stringify(input));
      if (!r.ok) assert.match(r.message, field, JSON.stringify(input));
    }
  });

  it('reads own fields only', () => {
    const input = Object.create({ study_types: ['rct'] }) as Record<string, unknown>;
    input['query'] = 'sleep';
    const r = parseSearchToolInput(input);
    assert.ok(r.ok);
    assert.equal(r.params.study_types, undefined);
  });

  it('package.json declares exactly what the code accepts, with the service vocabularies', () => {
    const search = tools.find((t) => t.name === Tools.searchPapers);
    assert.ok(search, 'the search tool is not contributed');
    assert.deepEqual(search.inputSchema.required, ['query']);
    assert.deepEqual(
      Object.keys(search.inputSchema.properties).sort(),
      ['excerpts', 'limit', 'query', ...TOOL_FILTER_KEYS].sort(),
    );
    assert.deepEqual(search.inputSchema.properties['study_types']?.items?.enum, [...STUDY_TYPES]);
    assert.deepEqual(search.inputSchema.properties['domain']?.items?.enum, [...DOMAIN_CODES]);
    assert.equal(search.inputSchema.properties['limit']?.maximum, TOOL_RESULTS_MAX);
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      Object.values(Tools).sort(),
      'every tool in ids.ts, and no other',
    );
    for (const t of tools) assert.ok(t.modelDescription.length > 80, `${t.name}: a model needs a real description`);
  });
});

describe('chat: paper records for a model', () => {
  const hostile: Paper = {
    title: 'Sleep [Renew](command:researchDesk.clearApiKey)\u202e and $(alert) memory',
    authors: ['A. One', 'B. Two', 'C. Three', 'D. Four', 'E. Five'],
    publish_year: 2020,
    journal_name: 'J\nSleep',
    takeaway: 'x'.repeat(5000),
    doi: '10.1/x',
    url: 'https://consensus.app/papers/x',
  };

  it('numbers them, keeps three authors and "et al.", makes service text plain and bounded, adds the cite key', () => {
    const [r] = paperRecords([hostile], () => 'one2020sleep');
    assert.ok(r);
    assert.equal(r.n, 1);
    assert.deepEqual(r.authors, ['A. One', 'B. Two', 'C. Three', 'et al.']);
    assert.deepEqual(linksIn(r.title), []);
    assert.ok(!r.title.includes('\u202e') && !r.title.includes('$('), r.title);
    assert.equal(r.journal, 'J Sleep');
    assert.ok(r.takeaway !== undefined && r.takeaway.length <= 400);
    assert.equal(r.citeKey, 'one2020sleep');
    assert.equal(r.year, 2020);
  });

  it('leaves out what the service did not give', () => {
    const [r] = paperRecords([{ title: 'T' }], () => 'k');
    assert.deepEqual(r, { n: 1, id: 'T', title: 'T', authors: [], citeKey: 'k' });
  });
});
