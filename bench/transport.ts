/**
 * Could VS Code's own `fetch` replace undici in the extension (plain Node keeping undici)? (called from bench/run.ts;
 * also `npx tsx bench/transport.ts [--record]`). Figures for the choice written down in ARCHITECTURE.md:
 *
 *  - in fresh windows of a real VS Code (bench/fixtures/transport-entry.js), against the emulator: undici as the core
 *    loads it (require of dist/undici.js + its first request) and VS Code's global fetch, first request and the median
 *    of 30, the order alternating between windows;
 *  - dist/core.js with undici inside and without it: its size, and the time a fresh Node (the extension host's
 *    version, from the VS Code cache) takes to require it with `vscode` stubbed, alternating, medians of RUNS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { cleanNpmEnv, ensureCache } from '../scripts/vscode/cache';
import { startTestEmulator } from '../scripts/vscode/emulator';
import { runOnServer } from '../scripts/vscode/run-ext-tests';
import { launchChromium } from '../scripts/vscode/workbench';
import { REPO_ROOT } from '../scripts/vscode/util';
import { type BenchResult, median, runAsScript } from './results';
import { buildBundles, vscodeBenchSkipped } from './vscode';

const WINDOWS = Number(process.env.RESEARCH_DESK_BENCH_TRANSPORT_WINDOWS ?? 4);
const RUNS = 9;

interface TransportFigures {
  undiciRequireMs: number;
  undiciFirstMs: number;
  undiciFirstWithRequireMs: number;
  undiciMedianMs: number;
  fetchFirstMs: number;
  fetchMedianMs: number;
}

/** Requires `file` in a fresh Node with `vscode` stubbed; returns the milliseconds the require took. */
const REQUIRE_JS = `
const Module = require('module');
const load = Module._load;
const stub = new Proxy(function () {}, { get: (t, p) => (p === 'then' ? undefined : stub), apply: () => stub, construct: () => stub });
// markdown-it too: the comparison build leaves it outside (the shipped core requires dist/markdown.js on first use).
Module._load = function (req, ...rest) { return req === 'vscode' || req === 'markdown-it' ? stub : load.call(this, req, ...rest); };
const t0 = performance.now();
require(process.argv[1]);
process.stdout.write(String(performance.now() - t0));
`;

/** dist/core.js as built, and the same core with undici inside (the way it was bundled before). */
async function coreLoadFigures(node: string): Promise<{ split: number[]; inline: number[]; inlineBytes: number }> {
  const tmp = mkdtempSync(join(tmpdir(), 'research-desk-core-'));
  try {
    const outfile = join(tmp, 'core.js');
    await build({
      entryPoints: [join(REPO_ROOT, 'src', 'composition', 'core.ts')],
      outfile,
      bundle: true,
      // As dist/core.js was built: the development build has a source map and is not minified.
      minify: !existsSync(join(REPO_ROOT, 'dist', 'core.js.map')),
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode', '@retorquere/bibtex-parser', 'unicode2latex', 'markdown-it'],
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    const once = (file: string): number => {
      const r = spawnSync(node, ['-e', REQUIRE_JS, file], { encoding: 'utf8', env: cleanNpmEnv() });
      const ms = Number(r.stdout);
      if (r.status !== 0 || !r.stdout || !Number.isFinite(ms))
        throw new Error(`bench: requiring ${file} failed: ${r.stderr.trim().split('\n').slice(0, 6).join(' | ')}`);
      return ms;
    };
    const split: number[] = [];
    const inline: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (i % 2) inline.push(once(outfile));
      split.push(once(join(REPO_ROOT, 'dist', 'core.js')));
      if (i % 2 === 0) inline.push(once(outfile));
    }
    return { split, inline, inlineBytes: statSync(outfile).size };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function runTransportBench(): Promise<BenchResult[]> {
  const skipped = vscodeBenchSkipped();
  if (skipped) {
    console.log(`transport in VS Code: skipped (${skipped})`);
    return [];
  }
  const cache = await ensureCache();
  await buildBundles(REPO_ROOT);
  const tmp = mkdtempSync(join(tmpdir(), 'research-desk-transport-'));
  const browser = await launchChromium(cache);
  const emulator = await startTestEmulator();
  const windows: TransportFigures[] = [];
  let load: Awaited<ReturnType<typeof coreLoadFigures>>;
  try {
    for (let i = 0; i < WINDOWS; i++) {
      const out = join(tmp, `transport-${i}.json`);
      process.env.RESEARCH_DESK_BENCH_OUT = out;
      process.env.RESEARCH_DESK_BENCH_ORDER = i % 2 ? 'fetch' : 'undici';
      process.env.RESEARCH_DESK_BENCH_EXTENSION = REPO_ROOT;
      const report = await runOnServer({
        mode: 'trusted',
        entry: join(REPO_ROOT, 'bench', 'fixtures', 'transport-entry.js'),
        cache,
        browser,
        emulator,
        timeoutMs: 5 * 60_000,
      });
      if (report.failed || report.exitCode !== 0)
        throw new Error(`transport window: ${report.failures.map((x) => x.error).join('\n')}`);
      windows.push(JSON.parse(readFileSync(out, 'utf8')) as TransportFigures);
    }
    load = await coreLoadFigures(cache.node);
  } finally {
    await browser.close().catch(() => undefined);
    await emulator?.close();
    rmSync(tmp, { recursive: true, force: true });
    await buildBundles(REPO_ROOT, { dev: true }).catch(() => undefined);
  }
  const m = (f: (w: TransportFigures) => number): number => Math.round(median(windows.map(f)) * 10) / 10;
  const core = statSync(join(REPO_ROOT, 'dist', 'core.js')).size;
  const undici = statSync(join(REPO_ROOT, 'dist', 'undici.js')).size;
  const list = (v: number[]): string => v.map((x) => x.toFixed(0)).join(', ');
  const results: BenchResult[] = [
    {
      name: 'core bundle: require of dist/core.js without undici / with it inside (ratio)',
      value: Math.round((median(load.split) / median(load.inline)) * 100) / 100,
      unit: 'x',
      note: `a fresh Node (the cached one the extension host runs on) with vscode stubbed, alternating, medians of ${RUNS}: dist/core.js (${core} bytes; undici in dist/undici.js, ${undici} bytes, required when the first client is made) ${median(load.split).toFixed(1)} ms (${list(load.split)}), the same core with undici inside (${load.inlineBytes} bytes) ${median(load.inline).toFixed(1)} ms (${list(load.inline)})`,
    },
    {
      name: 'first request: undici (require dist/undici.js + request) / VS Code fetch (ratio)',
      value: Math.round((m((w) => w.undiciFirstWithRequireMs) / m((w) => w.fetchFirstMs)) * 100) / 100,
      unit: 'x',
      note: `real VS Code extension host, emulator search (20 results), ${WINDOWS} fresh windows, order alternating: undici's require ${m((w) => w.undiciRequireMs)} ms + first request ${m((w) => w.undiciFirstMs)} ms; fetch's first request ${m((w) => w.fetchFirstMs)} ms`,
    },
    {
      name: 'search round trip: undici / VS Code fetch, median of 30 (ratio)',
      value: Math.round((m((w) => w.undiciMedianMs) / m((w) => w.fetchMedianMs)) * 100) / 100,
      unit: 'x',
      note: `same windows: undici ${m((w) => w.undiciMedianMs)} ms, fetch ${m((w) => w.fetchMedianMs)} ms (medians of the windows' medians of 30)`,
    },
  ];
  return results;
}

if (require.main === module) runAsScript(runTransportBench);
