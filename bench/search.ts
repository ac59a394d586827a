/**
 * Search figures (called from bench/run.ts; also `npx tsx bench/search.ts`):
 *
 *  - calls spent to show the first 100 results of a query 20 at a time: the extension's plan
 *    (src/search/paging.ts: page_size 100, Load More served from the buffer) against the naive
 *    one request of page_size 20 per Load More. Both run in the same process against one
 *    emulator, each with its own fresh key, and the figure is what the emulator CHARGED
 *    (control.charges()), not what the plan predicts. Goal: ratio <= 0.2.
 *  - calls for a repeated identical search with the session cache (src/search/cache.ts). Goal 0.
 *
 *  - time for the Research view in a real VS Code to show 1,000 results (bench/fixtures/
 *    results-view-entry.js, run as an extension-host entry through scripts/vscode/run-ext-tests.ts):
 *    Search Papers + 49 Load More steps with the pages already in the session cache, until
 *    TreeView.reveal of the 1,000th paper resolves. Skipped with --no-vscode,
 *    RESEARCH_DESK_BENCH_VSCODE=0, or without the .vscode-test/code-server cache.
 *
 * The plan is driven by the same pure functions SearchSession uses (planLoadMore, fetchPageSize,
 * SearchCache, cacheKey) with the real client; the extension-host suite checks that the session
 * in VS Code sends exactly these requests (test/extension/search.test.ts).
 */
import { createClient, type Client, type SearchParams, type SearchResponse } from '../src/api';
import { cacheKey, SearchCache } from '../src/search/cache';
import { displayStep, fetchPageSize, planLoadMore, type PagingState } from '../src/search/paging';
import { startEmulator } from '../test/emulator';
import { type BenchResult, recordResults } from './results';
import { runExtHostEntry, vscodeBenchSkipped } from './vscode';

const QUERY = 'effect of formative feedback on mathematics performance in secondary school students';
const TARGET = 100;

/** The extension's plan: returns the number of papers shown after `steps` Load More steps. */
async function showWithPlan(
  client: Client,
  cache: SearchCache<SearchResponse>,
  scope: string,
  query: string,
  target: number,
): Promise<number> {
  const pageSize = fetchPageSize(undefined);
  const fetch = async (page: number, size: number): Promise<SearchResponse> => {
    const params: SearchParams = { query, page, page_size: size };
    const key = cacheKey(scope, params);
    const hit = cache.get(key);
    if (hit) return hit;
    const r = await client.search(params);
    cache.set(key, r);
    return r;
  };
  const first = await fetch(0, pageSize);
  const papers = [...first.results];
  const state: PagingState = {
    fetched: papers.length,
    shown: Math.min(displayStep(first.page_size), papers.length),
    pageSize: first.page_size,
    serviceHasMore: !first.is_end,
  };
  while (state.shown < target) {
    const step = planLoadMore(state);
    if (step.kind === 'none') break;
    if (step.kind === 'show') state.shown += step.count;
    else {
      const r = await fetch(step.page, step.pageSize);
      papers.push(...r.results);
      state.fetched = papers.length;
      state.serviceHasMore = !r.is_end;
      state.shown = Math.min(papers.length, state.shown + step.thenShow);
    }
  }
  return state.shown;
}

/** The naive way: one request of page_size 20 per Load More. */
async function showNaively(client: Client, query: string, target: number): Promise<number> {
  let shown = 0;
  for (let page = 0; shown < target; page++) {
    const r = await client.search({ query, page, page_size: 20 });
    shown += r.results.length;
    if (r.is_end) break;
  }
  return shown;
}

export async function measureSearchPlan(): Promise<BenchResult[]> {
  const emu = await startEmulator({ port: 0, rateLimits: false, quiet: true });
  const charged = (label: string): number =>
    emu.control
      .charges()
      .filter((c) => c.keyLabel === label)
      .reduce((s, c) => s + c.calls, 0);
  const clientFor = (key: string): Client =>
    createClient({ baseUrl: emu.url, apiKey: key, rateLimits: { search: Infinity, list: Infinity, poll: Infinity } });
  try {
    const planKey = emu.control.provisionKey({ plan: 'pro', label: 'bench-plan' });
    const naiveKey = emu.control.provisionKey({ plan: 'pro', label: 'bench-naive' });
    const repeatKey = emu.control.provisionKey({ plan: 'pro', label: 'bench-repeat' });
    const planClient = clientFor(planKey);
    const naiveClient = clientFor(naiveKey);
    const repeatClient = clientFor(repeatKey);
    try {
      const shownPlan = await showWithPlan(planClient, new SearchCache({ minutes: () => 30 }), 'plan', QUERY, TARGET);
      const shownNaive = await showNaively(naiveClient, QUERY, TARGET);
      if (shownPlan < TARGET || shownNaive < TARGET)
        throw new Error(`The query shows fewer than ${TARGET} results (${shownPlan}/${shownNaive}).`);
      const planCalls = charged('bench-plan');
      const naiveCalls = charged('bench-naive');

      const cache = new SearchCache<SearchResponse>({ minutes: () => 30 });
      await showWithPlan(repeatClient, cache, 'repeat', QUERY, 20);
      const before = charged('bench-repeat');
      await showWithPlan(repeatClient, cache, 'repeat', QUERY, 20);
      const repeatCalls = charged('bench-repeat') - before;

      const ratio = planCalls / naiveCalls;
      return [
        {
          name: 'search: calls to show the first 100 results 20 at a time (this plan)',
          value: planCalls,
          unit: 'calls',
          note: 'charged by the emulator; page_size 100, Load More served from the buffer',
        },
        {
          name: 'search: calls to show the first 100 results 20 at a time (naive, page_size 20)',
          value: naiveCalls,
          unit: 'calls',
          note: 'charged by the emulator',
        },
        {
          name: 'search: calls ratio plan / naive for 100 results',
          value: ratio,
          unit: 'ratio',
          goal: '<= 0.2',
          met: ratio <= 0.2,
        },
        {
          name: 'search: calls for a repeated identical search (session cache)',
          value: repeatCalls,
          unit: 'calls',
          goal: '0',
          met: repeatCalls === 0,
        },
      ];
    } finally {
      await Promise.all([planClient.close(), naiveClient.close(), repeatClient.close()]);
    }
  } finally {
    await emu.close();
  }
}

/** Time for the Research view to show 1,000 results in a real VS Code ([] when skipped). */
export function measureResultsView(): BenchResult[] {
  const skipped = vscodeBenchSkipped();
  if (skipped) {
    console.log(`results view in VS Code: skipped (${skipped})`);
    return [];
  }
  const m = runExtHostEntry<{ showAllMs?: number; lastStepMs?: number; fillMs?: number; shown?: number }>(
    'results-view-entry.js',
    'results-view',
  );
  if (m.shown !== 1000 || m.showAllMs === undefined) throw new Error(`the results view showed ${m.shown} papers`);
  return [
    {
      name: 'search: time for the results view to show 1,000 results (real VS Code)',
      value: Math.round(m.showAllMs),
      unit: 'ms',
      note: `Search Papers + 49 Load More with the pages in the session cache, until the 1,000th paper is revealed; one 20-paper step at 980: ${Math.round(m.lastStepMs ?? NaN)} ms; first fill with 10 requests (client rate limit 1/s): ${Math.round(m.fillMs ?? NaN)} ms`,
    },
  ];
}

if (require.main === module) {
  measureSearchPlan()
    .then((r) => recordResults([...r, ...measureResultsView()]))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
