/**
 * Reading writers' bibliographies (called from bench/run.ts; also `npx tsx bench/bibRead.ts [--record]`), in this
 * Node process, on the files of bench/bibData.ts (`writer`: toBibtex of the hostile corpus; `zotero`: a Better
 * BibTeX export), 1,000 to 10,000 entries:
 *
 *  - ready for completion: parseBibFile, then completion's index (src/citations/citeIndex.ts: every entry's key, and
 *    the folded words of its title and of its authors' names, decoded from the raw fields), against LaTeX Workshop's
 *    parser, `latex-utensils`' `bibtexParser.parse`, of the same text, in the same run: each contender's runs in a
 *    block after a full collection and one unmeasured run, medians of RUNS. Goal: ratio <= 0.1. Growth 1,000 ->
 *    10,000 (linear is 10);
 *  - the parse alone, and the BibTeX library's exact decoding of one entry (hover, the selected completion item), per
 *    entry, for reference: nothing decodes a whole file with it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deserialize, serialize, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { bibtexParser } from 'latex-utensils';
import { entryToPaper } from '../src/bib/bibEntry';
import type { parseBibFile as ParseBibFile } from '../src/bib/bibFile';
import { loadBibtexLibrary } from '../src/bib/library';
import type { CiteIndex as CiteIndexClass } from '../src/citations/citeIndex';
import type { matchRank as baseMatchRank } from '../src/citations/citeMatch';
import type { entryInfo as baseEntryInfo } from '../src/citations/entryText';
import { BIB_VARIANTS, benchBib, type BibVariant } from './bibData';
import { type BenchResult, median, runAsScript } from './results';
import { shipped } from './shipped';
import { REPO_ROOT } from '../scripts/vscode/util';

const SIZES = [1000, 2000, 5000, 10_000] as const;
const RUNS = Number(process.env.RESEARCH_DESK_BENCH_READ_RUNS ?? 7);

// The parse and the index as they ship (shipped.ts says why).
const { parseBibFile, CiteIndex } = shipped<{ parseBibFile: typeof ParseBibFile; CiteIndex: typeof CiteIndexClass }>(
  REPO_ROOT,
  "export { parseBibFile } from './src/bib/bibFile'; export { CiteIndex } from './src/citations/citeIndex';",
);

/** Parse + completion index: what the editor has once a file is ready for completion. */
function readyForCompletion(text: string): number {
  const file = parseBibFile(text);
  const index = new CiteIndex(file.entries);
  index.build();
  return index.indexed;
}

/**
 * The same with a baseline copy's code (RESEARCH_DESK_BENCH_BASELINE, a checkout of an earlier commit): its parse,
 * then what its completion computed for a typed prefix (every entry's list data and words: citeMatch's entryInfo and
 * matchRank).
 */
type Ready = (text: string) => number;
function baselineReady(): Ready | undefined {
  const base = process.env.RESEARCH_DESK_BENCH_BASELINE;
  if (!base) return undefined;
  // entryInfo moved to entryText.ts; an older checkout has it in citeMatch.ts.
  const infoFrom = existsSync(join(base, 'src/citations/entryText.ts')) ? 'entryText' : 'citeMatch';
  const {
    parseBibFile: parse,
    matchRank,
    entryInfo,
  } = shipped<{ parseBibFile: typeof ParseBibFile; matchRank: typeof baseMatchRank; entryInfo: typeof baseEntryInfo }>(
    base,
    `export { parseBibFile } from './src/bib/bibFile'; export { matchRank } from './src/citations/citeMatch'; export { entryInfo } from './src/citations/${infoFrom}';`,
  );
  return (text) => {
    const file = parse(text);
    for (const e of file.entries) matchRank('zzq', entryInfo(e));
    return file.entries.length;
  };
}

interface SizeFigures {
  size: number;
  bytes: number;
  ours: number[];
  utensils: number[];
  parse: number[];
  /** The baseline copy's code, when given (same runs). */
  before: number[];
}

// A full collection before each contender's runs (measureVariant).
setFlagsFromString('--expose-gc');
const fullGc = runInNewContext('gc') as () => void;

const r1 = (v: number): number => Math.round(v * 10) / 10;
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

async function measureVariant(variant: BibVariant): Promise<{ sizes: SizeFigures[]; decodeMs: number }> {
  const sizes: SizeFigures[] = [];
  const before = baselineReady();
  let last = '';
  for (const size of SIZES) {
    const text = (last = await benchBib(variant, size, SIZES[SIZES.length - 1]));
    const f: SizeFigures = { size, bytes: Buffer.byteLength(text), ours: [], utensils: [], parse: [], before: [] };
    // Each contender's runs in a block of their own, after a full collection and one unmeasured run: alternating
    // them made each run pay for the garbage the other left (latex-utensils' parse of a large file leaves hundreds of
    // megabytes), more the larger the file, which showed as growth above linear for both. The unmeasured run takes
    // what the first allocations after a collection cost.
    const block = (times: number[], work: () => void): void => {
      fullGc();
      work();
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        work();
        times.push(performance.now() - t0);
      }
    };
    block(f.ours, () => {
      if (readyForCompletion(text) !== size) throw new Error(`bench: not ${size} entries indexed`);
    });
    block(f.parse, () => parseBibFile(text));
    if (before) block(f.before, () => before(text));
    block(f.utensils, () => {
      if (bibtexParser.parse(text).content.length < size) throw new Error('bench: latex-utensils read fewer entries');
    });
    sizes.push(f);
    console.log(
      `  ${variant} ${String(size).padStart(6)} entries (${(f.bytes / 1e6).toFixed(2)} MB): ready for completion ${r1(median(f.ours))} ms (parse ${r1(median(f.parse))} ms), latex-utensils ${r1(median(f.utensils))} ms, ratio ${r3(median(f.ours) / median(f.utensils))}${f.before.length ? `; baseline ${r1(median(f.before))} ms` : ''}`,
    );
  }
  // The library's exact decoding, per entry, on 200 entries spread over the largest file.
  await loadBibtexLibrary();
  const file = parseBibFile(last);
  const picks = Array.from({ length: 200 }, (_, i) => file.entries[Math.floor((i * file.entries.length) / 200)]!);
  const t0 = performance.now();
  for (const e of picks) entryToPaper(file, e);
  return { sizes, decodeMs: (performance.now() - t0) / picks.length };
}

/**
 * The other way considered: the parse in a worker thread. What the main thread would still pay: the structured clone
 * of the parse it hands back (v8.deserialize of the entries, their raw fields and diagnostics; the text stays), against
 * the parse itself; and a worker's start (spawn to its first message).
 */
async function workerAlternative(text: string): Promise<{ parse: number; clone: number; start: number[] }> {
  const parse: number[] = [];
  const clone: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const { text: _text, ...file } = parseBibFile(text);
    parse.push(performance.now() - t0);
    // An entry reads its fields from the text when asked: the clone carries them as a worker would have to.
    const entries = file.entries.map(({ type, key, start, end, keyStart, raw }) => ({
      type,
      key,
      start,
      end,
      keyStart,
      raw,
    }));
    const bytes = serialize({ ...file, entries });
    const t1 = performance.now();
    deserialize(bytes);
    clone.push(performance.now() - t1);
  }
  const start: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const w = new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true });
    await new Promise((resolve) => w.once('message', resolve));
    start.push(performance.now() - t0);
    await w.terminate();
  }
  return { parse: median(parse), clone: median(clone), start };
}

export async function runBibReadBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const alt = await workerAlternative(await benchBib('writer', 10_000));
  results.push({
    name: 'worker alternative: structured clone of a 10,000-entry parse / the parse itself, main thread (ratio)',
    value: r3(alt.clone / alt.parse),
    unit: 'x',
    note: `writer file: v8.deserialize of the parse (without its text) ${r1(alt.clone)} ms against parseBibFile ${r1(alt.parse)} ms, medians of ${RUNS}; a worker's start to its first message ${alt.start.map((v) => v.toFixed(0)).join(', ')} ms: a worker would spare the thread little of the parse and add its start and a copy of the text`,
  });
  for (const variant of BIB_VARIANTS) {
    const { sizes, decodeMs } = await measureVariant(variant);
    const big = sizes[sizes.length - 1]!;
    const small = sizes[0]!;
    const ratio = median(big.ours) / median(big.utensils);
    const per = sizes.map((s) => `${s.size}: ${r1(median(s.ours))} vs ${r1(median(s.utensils))} ms`).join(', ');
    const label = variant === 'writer' ? "Research Desk's own entries" : 'a Zotero/Better BibTeX export';
    results.push(
      {
        name: `ready for completion / latex-utensils bibtexParser.parse, 10,000 entries, ${variant} file (ratio)`,
        value: r3(ratio),
        unit: 'x',
        goal: '<= 0.1',
        met: ratio <= 0.1,
        note: `every key, title, author (all of them, folded for matching) and year of ${label} (${r1(big.bytes / 1e6)} MB) ready for completion: parseBibFile + completion's index, ${r1(median(big.ours))} ms; latex-utensils' bibtexParser.parse of the same text ${r1(median(big.utensils))} ms; medians of ${RUNS} runs each (each contender's in a block after a full collection) in Node ${process.version}; per size: ${per}${big.before.length ? `; before (the baseline copy's parse and list data for every entry, same runs): ${r1(median(big.before))} ms, ratio ${r3(median(big.before) / median(big.utensils))}, growth 1,000 -> 10,000 ${r3(median(big.before) / median(small.before))}` : ''}`,
      },
      {
        name: `ready for completion growth, 1,000 -> 10,000 entries, ${variant} file (ratio)`,
        value: r3(median(big.ours) / median(small.ours)),
        unit: 'x',
        goal: '<= 10 (linear)',
        met: median(big.ours) / median(small.ours) <= 10,
        note: `1,000 entries ${r1(median(small.ours))} ms, 10,000 entries ${r1(median(big.ours))} ms`,
      },
      {
        name: `parseBibFile, 10,000 entries, ${variant} file (ms)`,
        value: r1(median(big.parse)),
        unit: 'ms',
        note: `the parse alone, median of ${RUNS}; 1,000 entries ${r1(median(small.parse))} ms (growth ${r3(median(big.parse) / median(small.parse))})`,
      },
      {
        name: `BibTeX library's exact decoding of one entry, ${variant} file (ms)`,
        value: r3(decodeMs),
        unit: 'ms',
        note: 'entryToPaper (hover, the selected completion item), mean over 200 entries spread over the 10,000-entry file: nothing decodes a whole file with it',
      },
    );
  }
  return results;
}

if (require.main === module) runAsScript(runBibReadBench);
