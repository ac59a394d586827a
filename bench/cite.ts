/**
 * Citation figure: inserting a citation into a LaTeX document whose bibliography has 10,000 entries (goal: median
 * < 100 ms), and how that grows from 1,000 to 10,000 entries. The pure path of one Insert Citation, as
 * src/citations/insert.ts + bibliography.ts run it in the extension host, in this Node process, bundled and minified
 * as it ships (bench/shipped.ts):
 *
 *   parse      parseBibFile(bib text)  — the service caches the parse per document version / mtime+size, but every
 *              insert appends an entry, so the next insert parses again: the figure that matters is WITH the parse;
 *   ensure     ensureEntry(file, paper) — findEntry (DOI scan, then title+year of that year's entries), a free key
 *              among all keys (citeKey), toBibtex through the BibTeX library, the append edit;
 *   position   LineIndex(bib text).position(append offset) — the append's line/column for the WorkspaceEdit;
 *   cite       insertCitation(document text, cursor, 'latex', key) — the citation (or extension of one) at the cursor.
 *
 * A writing session is measured too: inserts one after another, each appending its entry, the parse carried over
 * as the bibliography service does it (cached per version; after our own append only the appended text is parsed:
 * src/citations/incrementalParse.ts). That is what every insert after the first costs; the first insert after the
 * file is opened (or changed by someone else) pays the full parse.
 *
 * Papers and bibliographies come from the emulator's corpus (seeded, deterministic); every timed insert cites a paper
 * that is not in the file yet (the costly case: nothing short-cuts the scans); a second series cites papers already in
 * the file (the DOI is found, no entry written). Medians of RUNS inserts after WARMUP, per size.
 *
 * What the real command adds in VS Code (WorkspaceEdit across two documents, the editor's undo stop, settings reads)
 * is not measured here; the extension-host suite times that (test/extension/citations.test.ts, the 10,000-entry
 * bibliography test: printed, not asserted).
 *
 * Called from bench/run.ts (`runCiteBench`); also `npx tsx bench/cite.ts` (prints; `--record` merges the figures into
 * bench/results.json as bench/run.ts does).
 */
import { performance } from 'node:perf_hooks';
import type * as BibAppend from '../src/bib/bibAppend';
import type * as BibFile from '../src/bib/bibFile';
import type { CitablePaper } from '../src/bib/bibtex';
import type * as Edit from '../src/bib/edit';
import type * as Library from '../src/bib/library';
import type * as Syntax from '../src/bib/syntax';
import type * as IncrementalParse from '../src/citations/incrementalParse';
import { generateCorpus, mulberry32 } from '../test/emulator/corpus';
import { REPO_ROOT } from '../scripts/vscode/util';
import { citable, makeBib } from './bibData';
import { type BenchResult, median, recordResults } from './results';
import { shipped } from './shipped';

type Pure = Pick<typeof BibAppend, 'ensureEntry'> &
  Pick<typeof BibFile, 'parseBibFile'> &
  Pick<typeof Edit, 'LineIndex'> &
  Pick<typeof Library, 'loadBibtexLibrary'> &
  Pick<typeof Syntax, 'insertCitation'> &
  Pick<typeof IncrementalParse, 'canExtend' | 'extendParse'>;
/** The pure path as it ships (shipped.ts says why), built on the first measurement. */
let pure: Pure | undefined;
const PURE_EXPORTS = [
  "export { ensureEntry } from './src/bib/bibAppend';",
  "export { parseBibFile } from './src/bib/bibFile';",
  "export { LineIndex } from './src/bib/edit';",
  "export { loadBibtexLibrary } from './src/bib/library';",
  "export { insertCitation } from './src/bib/syntax';",
  "export { canExtend, extendParse } from './src/citations/incrementalParse';",
].join('\n');

export const SIZES = [1000, 2000, 5000, 10_000] as const;
const RUNS = 30;
const WARMUP = 5;
const GOAL_MS = 100;

/** A 300-paragraph LaTeX document citing some of the keys; the cursor is after a word in the middle. */
export function makeDocument(keys: readonly string[], seed = 11): { text: string; offset: number } {
  const rnd = mulberry32(seed);
  const words =
    'creatine supplementation improved memory in older adults while trials reported mixed effects on attention'.split(
      ' ',
    );
  const paras: string[] = [];
  for (let i = 0; i < 300; i++) {
    const s = Array.from({ length: 40 }, () => words[Math.floor(rnd() * words.length)]!).join(' ');
    paras.push(`${s} \\cite{${keys[Math.floor(rnd() * keys.length)] ?? 'x'}}.`);
  }
  const text = `\\documentclass{article}\n\\begin{document}\n${paras.join('\n\n')}\n\\bibliography{references}\n\\end{document}\n`;
  const mid = text.indexOf('\n\n', text.length / 2) - 5;
  return { text, offset: mid };
}

interface Sample {
  total: number;
  parse: number;
  ensure: number;
  cite: number;
}

/** One insert on the pure path; returns its timings (ms). */
function insertOnce(
  { parseBibFile, ensureEntry, LineIndex, insertCitation }: Pure,
  bibText: string,
  doc: { text: string; offset: number },
  paper: CitablePaper,
  expectNew: boolean,
): Sample {
  const t0 = performance.now();
  const file = parseBibFile(bibText);
  const t1 = performance.now();
  const r = ensureEntry(file, paper, {});
  if (r.existing === expectNew)
    throw new Error(`bench: expected ${expectNew ? 'a new' : 'an existing'} entry for ${paper.doi ?? ''}`);
  if (r.edit) new LineIndex(bibText).position(r.edit.offset);
  const t2 = performance.now();
  const c = insertCitation(doc.text, doc.offset, 'latex', r.key, { latexCommand: 'cite' });
  const t3 = performance.now();
  if (!c.edit.text.includes(r.key)) throw new Error('bench: the citation does not carry the key');
  return { total: t3 - t0, parse: t1 - t0, ensure: t2 - t1, cite: t3 - t2 };
}

const r3 = (v: number): number => Math.round(v * 1000) / 1000;

export interface CiteBenchFigures {
  perSize: {
    size: number;
    bytes: number;
    newMedian: number;
    cachedMedian: number;
    existingMedian: number;
    sessionMedian: number;
    parse: number;
    ensure: number;
    cite: number;
  }[];
}

export async function measureCite(): Promise<CiteBenchFigures> {
  pure ??= shipped<Pure>(REPO_ROOT, PURE_EXPORTS);
  const { parseBibFile, ensureEntry, LineIndex, loadBibtexLibrary, insertCitation, canExtend, extendParse } = pure;
  await loadBibtexLibrary();
  const max = SIZES[SIZES.length - 1]!;
  const corpus = generateCorpus(max + RUNS + WARMUP, 20260207).map(citable);
  const fresh = corpus.slice(max); // never in any bibliography below
  const perSize: CiteBenchFigures['perSize'] = [];
  for (const size of SIZES) {
    const bib = makeBib(corpus, size);
    const keys = parseBibFile(bib).entries.map((e) => e.key);
    if (keys.length !== size) throw new Error(`bench: ${keys.length} entries parsed, ${size} written`);
    const doc = makeDocument(keys);
    const samples: Sample[] = [];
    const existing: number[] = [];
    const cached: number[] = [];
    const file = parseBibFile(bib);
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const s = insertOnce(pure, bib, doc, fresh[i]!, true);
      // The same paper already in the file (found by DOI), and a new one with the parse cached.
      const old = corpus[Math.floor((i * size) / (WARMUP + RUNS))]!;
      const e = insertOnce(pure, bib, doc, old, false);
      const c0 = performance.now();
      const r = ensureEntry(file, fresh[(i + 1) % fresh.length]!, {});
      insertCitation(doc.text, doc.offset, 'latex', r.key);
      const c1 = performance.now();
      if (i >= WARMUP) {
        samples.push(s);
        existing.push(e.total);
        cached.push(c1 - c0);
      }
    }
    // A session: each insert appends its entry; the next one extends the previous parse (as the service's cache does).
    const session: number[] = [];
    let text = bib;
    let parsed = file;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const paper = fresh[(i + 7) % fresh.length]!;
      const t0 = performance.now();
      const current =
        parsed.text === text ? parsed : canExtend(parsed, text) ? extendParse(parsed, text) : parseBibFile(text);
      const r = ensureEntry(current, paper, { reservedKeys: [] });
      if (!r.edit) throw new Error('bench: the session paper should be new');
      new LineIndex(text).position(r.edit.offset);
      insertCitation(doc.text, doc.offset, 'latex', r.key);
      const t1 = performance.now();
      if (i >= WARMUP) session.push(t1 - t0);
      parsed = current;
      text = text.slice(0, r.edit.offset) + r.edit.text + text.slice(r.edit.offset + r.edit.length);
    }
    perSize.push({
      size,
      sessionMedian: median(session),
      bytes: bib.length,
      newMedian: median(samples.map((s) => s.total)),
      cachedMedian: median(cached),
      existingMedian: median(existing),
      parse: median(samples.map((s) => s.parse)),
      ensure: median(samples.map((s) => s.ensure)),
      cite: median(samples.map((s) => s.cite)),
    });
    const last = perSize[perSize.length - 1]!;
    console.log(
      `  ${String(size).padStart(6)} entries (${(last.bytes / 1e6).toFixed(2)} MB): new paper ${r3(last.newMedian)} ms (parse ${r3(last.parse)}, ensure ${r3(last.ensure)}, cite ${r3(last.cite)}); parse cached ${r3(last.cachedMedian)} ms; paper already in the file ${r3(last.existingMedian)} ms; in a session (incremental parse) ${r3(last.sessionMedian)} ms`,
    );
  }
  return { perSize };
}

export async function runCiteBench(): Promise<BenchResult[]> {
  const { perSize } = await measureCite();
  const at = (n: number) => perSize.find((p) => p.size === n)!;
  const big = at(10_000);
  const small = at(1000);
  const growth = perSize.map((p) => `${p.size}: ${r3(p.newMedian)} ms`).join(', ');
  const setting = `pure path as it ships, in Node ${process.version} (parseBibFile + ensureEntry + LineIndex + insertCitation), emulator corpus, median of ${RUNS} inserts after ${WARMUP} warm-up, each a paper not yet in the file`;
  const sessionGrowth = perSize.map((p) => `${p.size}: ${r3(p.sessionMedian)} ms`).join(', ');
  return [
    {
      name: 'insert citation, 10,000-entry bibliography, in a session (incremental parse), median (ms)',
      value: r3(big.sessionMedian),
      unit: 'ms',
      goal: `< ${GOAL_MS} ms`,
      met: big.sessionMedian < GOAL_MS,
      note: `successive inserts of new papers, each appending its entry; the parse carried over (extendParse of the append, as the bibliography service's cache does), then ensureEntry + insertCitation; per size: ${sessionGrowth}; ratio 10k/1k ${r3(big.sessionMedian / small.sessionMedian)}`,
    },
    {
      name: 'insert citation, 10,000-entry bibliography, pure path with parse, median (ms)',
      value: r3(big.newMedian),
      unit: 'ms',
      note: `a cold insert that parses the whole file first (in the editor the parse is done in the background when the document becomes active, so an insert starts from the cached parse: next line); ${setting}; parse ${r3(big.parse)} ms, ensureEntry ${r3(big.ensure)} ms, insertCitation ${r3(big.cite)} ms; file ${(big.bytes / 1e6).toFixed(2)} MB`,
    },
    {
      name: 'insert citation, 10,000-entry bibliography, parse cached, median (ms)',
      value: r3(big.cachedMedian),
      unit: 'ms',
      goal: `< ${GOAL_MS} ms (the first insert after opening)`,
      met: big.cachedMedian < GOAL_MS,
      note: 'ensureEntry + insertCitation on a parsed file (the bibliography service caches the parse per document version / mtime+size)',
    },
    {
      name: 'insert citation, 10,000-entry bibliography, paper already in the file, median (ms)',
      value: r3(big.existingMedian),
      unit: 'ms',
      note: 'parse + ensureEntry finding the DOI (no entry written) + insertCitation',
    },
    {
      name: 'insert citation growth, 10k/1k entries (ratio of medians)',
      value: r3(big.newMedian / small.newMedian),
      unit: 'x',
      note: `median per size (new paper, with parse): ${growth}; linear in the file would be 10x`,
    },
  ];
}

if (require.main === module) {
  runCiteBench()
    .then((r) => {
      if (process.argv.includes('--record')) recordResults(r);
      else
        for (const e of r)
          console.log(
            `${e.name}: ${e.value} ${e.unit}${e.goal ? ` (goal ${e.goal}${e.met ? ', met' : ', MISSED'})` : ''} — ${e.note ?? ''}`,
          );
    })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      process.exit(1);
    });
}
