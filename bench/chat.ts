/**
 * Chat figures (called from bench/run.ts; also `npx tsx bench/chat.ts`): how much of a model's context the tools
 * take. For 100 sample queries against the emulator (pro plan: study types and takeaways included), each paper
 * the service returned is measured as the service's JSON record and as the compact record the search tool gives a
 * model (src/chat/toolInput.ts, with its cite key), in characters (a token is about 4); and the whole result of one
 * default search tool call (10 papers). An answer of the research agent likewise: the thread's JSON against the
 * answer record the ask and read tools return. The service's own record, measured in the same run, is the baseline.
 *
 * Calls spent per agent task are measured by the chat UI flow (test/ui/flows/chat.flow.ts) against the emulator's
 * charges; it writes them into bench/results.json when run by the bench.
 */
import { createClient, type Paper } from '../src/api';
import { baseKey } from '../src/bib/keys';
import { answerRecord } from '../src/chat/threadToolInput';
import { paperRecords, TOOL_RESULTS_DEFAULT } from '../src/chat/toolInput';
import { citePaperOf } from '../src/citations/recentPapers';
import { sampleQueries, startEmulator } from '../test/emulator';
import { join } from 'node:path';
import { type BenchResult, median, recordResults } from './results';
import { runUiFlow, vscodeBenchSkipped } from './vscode';

const QUERIES = 100;

const quantile = (values: number[], q: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

export async function runChatBench(): Promise<BenchResult[]> {
  const emu = await startEmulator({ port: 0, rateLimits: false, quiet: true, speed: 1000 });
  try {
    const key = emu.control.provisionKey({ plan: 'enterprise', unlimited: true, label: 'bench-chat' });
    const client = createClient({
      baseUrl: emu.url,
      apiKey: key,
      rateLimits: { search: Infinity, list: Infinity, poll: Infinity },
    });
    const compact: number[] = [];
    const raw: number[] = [];
    const perCall: number[] = [];
    for (const query of sampleQueries(QUERIES, 7)) {
      const page = await client.search({ query, page_size: TOOL_RESULTS_DEFAULT });
      const papers: Paper[] = page.results;
      const records = paperRecords(papers, (p) => baseKey(citePaperOf(p)));
      records.forEach((r, i) => {
        compact.push(JSON.stringify(r).length);
        raw.push(JSON.stringify(papers[i]).length);
      });
      perCall.push(JSON.stringify({ query, morePapers: !page.is_end, callCharged: true, papers: records }).length);
    }
    const answerRaw: number[] = [];
    const answerCompact: number[] = [];
    for (const query of sampleQueries(10, 11)) {
      const dispatch = await client.createThread({ input_message: `What does the research say about ${query}?` });
      emu.control.completeRuns();
      const thread = await client.getThread(dispatch.thread_id);
      answerRaw.push(JSON.stringify(thread).length);
      answerCompact.push(JSON.stringify(answerRecord(thread, () => undefined)).length);
    }
    await client.close();
    const ratio = median(compact) / median(raw);
    return [
      {
        name: 'chat: characters per paper a search tool returns to a model (median)',
        value: median(compact),
        unit: 'chars',
        goal: '<= 1000 (about 250 tokens)',
        met: median(compact) <= 1000,
        note: `p90 ${quantile(compact, 0.9)}, max ${Math.max(...compact)}; the service's own record in the same run: median ${median(raw)} (ratio ${ratio.toFixed(2)}); ${compact.length} papers of ${QUERIES} queries`,
      },
      {
        name: 'chat: compact paper record / the service record (median chars)',
        value: Math.round(ratio * 100) / 100,
        unit: 'ratio',
        goal: '<= 0.5',
        met: ratio <= 0.5,
      },
      {
        name: 'chat: characters of one default search tool result (10 papers, median)',
        value: median(perCall),
        unit: 'chars',
        note: `about ${Math.round(median(perCall) / 4)} tokens; p90 ${quantile(perCall, 0.9)}`,
      },
      {
        name: 'chat: characters of an answer record (ask and read tools, median)',
        value: median(answerCompact),
        unit: 'chars',
        note: `the thread's JSON in the same run: median ${median(answerRaw)}; ${answerCompact.length} answers`,
      },
    ];
  } finally {
    await emu.close();
  }
}

/**
 * Calls an agent-mode task spends, as the chat UI flow measures it against the emulator's charges: a writer asks
 * @research for trials in words, the model searches once through our tool, the writer cites one. The fewest calls
 * that task can take is one search.
 */
export function measureAgentTask(): BenchResult[] {
  const skipped = vscodeBenchSkipped();
  if (skipped) {
    console.log(`chat in VS Code: skipped (${skipped})`);
    return [];
  }
  const figures = runUiFlow<{ task: string; calls: number; minimum: number }>(
    'chat',
    join(__dirname, '..', 'test-results', 'ui', 'chat-calls.json'),
  );
  return [
    {
      name: 'chat: calls spent per agent task (UI flow) / the minimum',
      value: Math.round((figures.calls / figures.minimum) * 100) / 100,
      unit: 'x',
      goal: '1.00',
      met: figures.calls === figures.minimum,
      note: `${figures.task}: ${figures.calls} call(s) charged by the emulator, minimum ${figures.minimum}`,
    },
  ];
}

if (require.main === module) {
  void runChatBench().then((r) => recordResults([...r, ...measureAgentTask()]));
}
