/**
 * `npm run bench` (= `tsx bench/run.ts`): the client and emulator figures, recorded in
 * bench/results.json through bench/results.ts and printed at the end.
 *
 *  (c) emulator start-up: the first startEmulator() of the process (corpus of 5,000 papers
 *      generated and the BM25 index built), then listening on 127.0.0.1:0;
 *  (a) client overhead per search: `client.search(params)`, the client bundled and minified as it ships (undici
 *      shared), against a raw undici `request` to the
 *      same URL (same query string, same `x-api-key` header, JSON parsed), same emulator, same
 *      run, interleaved (the order alternates every pair), after a warm-up. Rate limits are out of
 *      the way on both sides (emulator `rateLimits: false`, client `rateLimits` Infinity); the
 *      client has no cache and no logger. Goal: ratio of medians <= 1.10;
 *  (b) the emulator's search latency on the 5,000-paper corpus: the raw round trips of (a)
 *      (HTTP on a keep-alive connection, ranking, serialisation), median (goal < 20 ms) and p90;
 *      plus ranking alone (engine, no HTTP) for reference.
 *
 * Then bench/search.ts (calls charged for paging and repeats), bench/render.ts (renderAnswer) and
 * bench/threads.ts (polls per finished thread, open → answer painted, in a real VS Code), and bench/cite.ts
 * (Insert Citation's pure path with a 1,000–10,000-entry bibliography, growth 1k → 10k), bench/chat.ts (what the
 * chat's tools hand a model, in characters, against the service's own records), bench/table.ts (the evidence
 * table: show and sort 1,000 results in a real VS Code against 20 in the same window), bench/bibRead.ts (writers'
 * bibliographies ready for completion, against LaTeX Workshop's parser) and bench/citeAssist.ts (completion, hover,
 * Insert Citation, stalls and memory on them in a real VS Code). RESEARCH_DESK_BENCH_BASELINE=<a checkout of an earlier
 * commit> adds its figures beside ours in the same runs (bibRead, citeAssist, activation), for the notes' before/after.
 *
 * Then the real-VS Code activation benchmark (bench/activation.ts) runs as a
 * child process when that file exists and the `.vscode-test/code-server` cache is present. It
 * builds the production bundle and the VSIX and opens VS Code windows (minutes): skip it with
 * `--no-vscode` or RESEARCH_DESK_BENCH_VSCODE=0; force the attempt with `--vscode` or =1.
 *
 * Options: --iterations N (default 300 per side), --warmup N (default 50), --no-vscode, --vscode.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { createClient as CreateClient, SearchParams } from '../src/api';
import { searchQueryString } from '../src/api/serialize';
import { getEngine, sampleQueries, startEmulator } from '../test/emulator';
import { type BenchResult, median, recordResults, RESULTS_FILE } from './results';
import { runBibReadBench } from './bibRead';
import { measureAgentTask, runChatBench } from './chat';
import { runCiteAssistBench } from './citeAssist';
import { runCiteBench } from './cite';
import { runRenderBench } from './render';
import { measureResultsView, measureSearchPlan } from './search';
import { runTableBench } from './table';
import { measureThreads } from './threads';
import { runTransportBench } from './transport';
import { shipped } from './shipped';

const ROOT = join(__dirname, '..');

// The client as it ships (shipped.ts says why), with the same undici as the raw requests it is compared with.
const { createClient } = shipped<{ createClient: typeof CreateClient }>(
  ROOT,
  "export { createClient } from './src/api';",
  ['undici'],
);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** The search parameters used for query i: mostly plain, every fourth with filters (as the UI sends). */
function paramsFor(query: string, i: number): SearchParams {
  return i % 4 === 3
    ? { query, year_min: 2010, study_types: ['rct', 'meta-analysis'], human: true, page_size: 20 }
    : { query };
}

async function measureSearch(iterations: number, warmup: number): Promise<BenchResult[]> {
  // (c) start-up: this is the process's first emulator, so it generates the corpus and builds the index.
  const t0 = performance.now();
  const emu = await startEmulator({ port: 0, rateLimits: false, quiet: true });
  const startupMs = performance.now() - t0;

  // An unlimited enterprise key: hundreds of searches must not run into the monthly pool.
  const key = emu.control.provisionKey({ plan: 'enterprise', unlimited: true, label: 'bench' });
  const client = createClient({
    baseUrl: emu.url,
    apiKey: key,
    rateLimits: { search: Infinity, list: Infinity, poll: Infinity },
  });
  const agent = new Agent();
  const raw = async (p: SearchParams): Promise<number> => {
    const res = await request(`${emu.url}/v1/search?${searchQueryString(p)}`, {
      method: 'GET',
      headers: { accept: 'application/json', 'x-api-key': key },
      dispatcher: agent,
    });
    const body = (await res.body.json()) as { results: unknown[] };
    if (res.statusCode !== 200) throw new Error(`raw request: HTTP ${res.statusCode}`);
    return body.results.length;
  };
  const viaClient = async (p: SearchParams): Promise<number> => (await client.search(p)).results.length;

  const queries = sampleQueries(Math.max(iterations, warmup), 42);
  const clientMs: number[] = [];
  const rawMs: number[] = [];
  try {
    for (let i = 0; i < warmup; i++) {
      const p = paramsFor(queries[i % queries.length]!, i);
      const a = await viaClient(p);
      const b = await raw(p);
      if (a !== b) throw new Error(`client and raw disagree on ${p.query}: ${a} vs ${b}`);
    }
    for (let i = 0; i < iterations; i++) {
      const p = paramsFor(queries[i]!, i);
      const time = async (f: (p: SearchParams) => Promise<number>, into: number[]) => {
        const s = performance.now();
        await f(p);
        into.push(performance.now() - s);
      };
      if (i % 2 === 0) {
        await time(viaClient, clientMs);
        await time(raw, rawMs);
      } else {
        await time(raw, rawMs);
        await time(viaClient, clientMs);
      }
    }
  } finally {
    await client.close();
    await agent.close();
    await emu.close();
  }

  // Ranking alone, for reference (no HTTP, no serialisation).
  const engine = getEngine();
  const engineMs: number[] = [];
  for (const q of queries.slice(0, iterations)) {
    const s = performance.now();
    engine.search(q, {});
    engineMs.push(performance.now() - s);
  }

  const pairRatios = clientMs.map((c, i) => c / rawMs[i]!);
  const mc = median(clientMs);
  const mr = median(rawMs);
  const ratio = mc / mr;
  const p90 = quantile(rawMs, 0.9);
  const mRaw = median(rawMs);
  const load = (() => {
    try {
      return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    } catch {
      return 'n/a';
    }
  })();
  const setting = `${iterations} interleaved pairs over sampleQueries(${iterations}) (every 4th with filters), ${warmup} warm-up pairs, keep-alive, rate limits off on both sides; load average ${load}`;
  return [
    {
      name: 'client overhead per search (ratio of medians, client/raw undici)',
      value: r3(ratio),
      unit: 'x',
      goal: '<= 1.10',
      met: ratio <= 1.1,
      note: `client median ${r3(mc)} ms, raw median ${r3(mr)} ms (difference ${r3(mc - mr)} ms); median of per-pair ratios ${r3(median(pairRatios))}; ${setting}`,
    },
    { name: 'client search round trip, median (ms)', value: r3(mc), unit: 'ms', note: setting },
    {
      name: 'emulator search latency, median (ms)',
      value: r3(mRaw),
      unit: 'ms',
      goal: '< 20 ms',
      met: mRaw < 20,
      note: `raw HTTP round trip on the 5,000-paper corpus, page_size 20; ${setting}`,
    },
    { name: 'emulator search latency, p90 (ms)', value: r3(p90), unit: 'ms', note: 'same samples as the median' },
    {
      name: 'emulator ranking only (engine), median (ms)',
      value: r3(median(engineMs)),
      unit: 'ms',
      note: `BM25 over the prebuilt index, no HTTP; p90 ${r3(quantile(engineMs, 0.9))} ms`,
    },
    {
      name: 'emulator start-up (corpus + index + listen) (ms)',
      value: r2(startupMs),
      unit: 'ms',
      note: 'first startEmulator() of the process: 5,000 papers generated, BM25 index built, listening on 127.0.0.1:0',
    },
  ];
}

/** Run bench/activation.ts in a child process (it opens VS Code windows of its own); resolves with its exit code. */
function runActivation(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('bench', 'activation.ts')], {
      cwd: ROOT,
      stdio: 'inherit',
      env: process.env,
    });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

function vscodeWanted(): { run: boolean; why: string } {
  const env = process.env.RESEARCH_DESK_BENCH_VSCODE;
  const script = join(ROOT, 'bench', 'activation.ts');
  const cache = join(process.env.RESEARCH_DESK_VSCODE_CACHE ?? join(ROOT, '.vscode-test'), 'code-server');
  if (process.argv.includes('--no-vscode') || env === '0')
    return { run: false, why: 'skipped (--no-vscode / RESEARCH_DESK_BENCH_VSCODE=0)' };
  if (!existsSync(script)) return { run: false, why: 'skipped (bench/activation.ts does not exist)' };
  if (process.argv.includes('--vscode') || env === '1') return { run: true, why: 'requested' };
  if (!existsSync(cache))
    return { run: false, why: `skipped (no VS Code cache at ${cache}; run it with --vscode to fetch one)` };
  return { run: true, why: 'bench/activation.ts and the .vscode-test cache are present' };
}

function printAll(): void {
  let all: BenchResult[];
  try {
    all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResult[];
  } catch {
    return;
  }
  console.log(`\nAll figures (${RESULTS_FILE}):`);
  const width = Math.max(...all.map((e) => e.name.length));
  for (const e of all) {
    const verdict = e.met === undefined ? '' : e.met ? '  met' : '  MISSED';
    console.log(
      `  ${e.name.padEnd(width)}  ${String(e.value).padStart(10)} ${e.unit.padEnd(5)}${e.goal ? ` goal ${e.goal}` : ''}${verdict}`,
    );
  }
}

async function main(): Promise<void> {
  const iterations = Number(arg('--iterations') ?? 300);
  const warmup = Number(arg('--warmup') ?? 50);
  console.log(`Search benchmark: ${iterations} iterations per side after ${warmup} warm-up (Node ${process.version})`);
  recordResults(await measureSearch(iterations, warmup));
  console.log('\nSearch paging and cache (bench/search.ts): calls charged by the emulator');
  recordResults([...(await measureSearchPlan()), ...measureResultsView()]);
  console.log('\nAnswer rendering (bench/render.ts): renderAnswer on a 10,000-word answer with 200 citations');
  recordResults(await runRenderBench());
  console.log('\nResearch agent in VS Code (bench/threads.ts): polls per finished thread, open → answer painted');
  recordResults(measureThreads());
  console.log(
    '\nInsert Citation (bench/cite.ts): pure path into a LaTeX document, bibliographies of 1,000 to 10,000 entries',
  );
  recordResults(await runCiteBench());
  console.log('\nChat (bench/chat.ts): what the tools hand a model, against the service records of the same run');
  recordResults([...(await runChatBench()), ...measureAgentTask()]);
  console.log('\nEvidence table (bench/table.ts): rows and ordering in Node; show and sort 1,000 results in VS Code');
  recordResults(runTableBench());
  console.log(
    "\nReading writers' bibliographies (bench/bibRead.ts): ready for completion against latex-utensils, 1,000 to 10,000 entries",
  );
  recordResults(await runBibReadBench());
  console.log('\nCite assistance in VS Code (bench/citeAssist.ts): completion, hover, Insert Citation, stalls, memory');
  recordResults(await runCiteAssistBench());
  console.log("\nundici or VS Code's fetch (bench/transport.ts): the core's load and the first request");
  recordResults(await runTransportBench());

  const vs = vscodeWanted();
  if (vs.run) {
    console.log(`\nActivation benchmark (bench/activation.ts, child process: ${vs.why})`);
    const code = await runActivation();
    if (code !== 0) console.log(`bench/activation.ts exited with code ${code}; its figures were not updated`);
  } else {
    console.log(`\nActivation benchmark ${vs.why}`);
  }
  printAll();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
