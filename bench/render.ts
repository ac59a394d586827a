/**
 * Answer rendering figure: `renderAnswer` on a 10,000-word answer with 200 citations (400 quotes), the
 * shape the agent writes (headings, paragraphs with [n.m] / [n] / grouped markers, bulleted
 * findings, an evidence table), generated deterministically. Median of 30 timed runs after 5
 * warm-up runs, in this process. Goal: median < 30 ms.
 *
 * Called from bench/run.ts (`runRenderBench`); also `npx tsx bench/render.ts` (prints the figure;
 * add `--record` to merge it into bench/results.json as bench/run.ts does).
 */
import { performance } from 'node:perf_hooks';
import { type Citation } from '../src/api/schemas';
import { renderAnswer, renderAnswerDetailed } from '../src/render/answer';
import { mulberry32 } from '../test/emulator/corpus';
import { type BenchResult, median, recordResults } from './results';

const WORDS = 10_000;
const CITATIONS = 200;
const RUNS = 30;
const WARMUP = 5;

const VOCAB = (
  'the evidence suggests that supplementation improved outcomes in randomized trials with older adults while observational ' +
  'studies reported mixed effects on memory attention and processing speed across heterogeneous populations and doses ' +
  'meta-analysis of controlled interventions found moderate benefit but risk of bias remained high in smaller samples'
).split(' ');

/** Deterministic input: `words` words of answer text and `n` citations with two quotes each. */
export function makeLargeAnswer(words = WORDS, n = CITATIONS, seed = 7): { markdown: string; citations: Citation[] } {
  const rnd = mulberry32(seed);
  const pick = (): string => VOCAB[Math.floor(rnd() * VOCAB.length)]!;
  const citations: Citation[] = Array.from({ length: n }, (_, i) => ({
    n: i + 1,
    paper_id: `p${i + 1}`,
    title: `Study ${i + 1} of supplementation and cognition in adults`,
    year: 1990 + (i % 35),
    journal: `Journal of Evidence ${i % 17}`,
    url: `https://consensus.app/papers/p${i + 1}`,
    snippets: [1, 2].map((m) => ({
      marker: `[${i + 1}.${m}]`,
      quote: `Quote ${m} of study ${i + 1}: ${Array.from({ length: 20 }, pick).join(' ')}.`,
      section: m === 1 ? 'Abstract' : 'Results',
    })),
  }));
  const marker = (): string => {
    const c = 1 + Math.floor(rnd() * n);
    const r = rnd();
    if (r < 0.6) return `[${c}.${1 + Math.floor(rnd() * 2)}]`;
    if (r < 0.8) return `[${c}]`;
    return `[${c}.1, ${1 + Math.floor(rnd() * n)}.2]`;
  };
  const lines: string[] = [];
  let count = 0;
  const add = (...ls: string[]): void => {
    for (const l of ls) {
      lines.push(l);
      count += l.split(/\s+/).filter(Boolean).length;
    }
  };
  let section = 0;
  add('# Research report', '');
  while (count < words) {
    section++;
    add(`## Section ${section}`, '');
    for (let p = 0; p < 3 && count < words; p++) {
      const sentence: string[] = [];
      for (let w = 0; w < 80; w++)
        sentence.push(w % 12 === 11 ? `${pick()} ${marker()}` : w % 25 === 24 ? `**${pick()}**` : pick());
      add(`${sentence.join(' ')}.`, '');
    }
    add('### Findings', '');
    for (let b = 0; b < 5 && count < words; b++) add(`- ${Array.from({ length: 15 }, pick).join(' ')} ${marker()}`);
    add('', '| Ref | Study | Year | Finding |', '|---|---|---|---|');
    for (let r = 0; r < 4; r++) {
      const c = 1 + Math.floor(rnd() * n);
      add(`| [${c}] | Study ${c} | ${1990 + (c % 35)} | ${pick()} ${pick()} ${pick()} |`);
    }
    add('');
  }
  return { markdown: lines.join('\n'), citations };
}

export async function runRenderBench(): Promise<BenchResult[]> {
  const { markdown, citations } = makeLargeAnswer();
  const words = markdown.split(/\s+/).filter(Boolean).length;
  const check = renderAnswerDetailed(markdown, citations);
  if (check.unresolvedMarkers.length > 0)
    throw new Error(`bench input has unresolved markers: ${check.unresolvedMarkers.join(', ')}`);
  for (let i = 0; i < WARMUP; i++) renderAnswer(markdown, citations);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    renderAnswer(markdown, citations);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    await new Promise((r) => setImmediate(r));
  }
  const med = median(times);
  const round = (x: number): number => Math.round(x * 100) / 100;
  return [
    {
      name: 'render: renderAnswer, 10,000-word answer with 200 citations (median)',
      value: round(med),
      unit: 'ms',
      goal: '< 30 ms',
      met: med < 30,
      note: `${words} words, ${citations.length} citations with 400 quotes, ${check.markers.length} distinct markers; ${Math.round(markdown.length / 1024)} KB in, ${Math.round(check.html.length / 1024)} KB out; median of ${RUNS} runs after ${WARMUP} warm-up, max ${round(Math.max(...times))} ms; process CPU time per run (median, less sensitive to a loaded machine) ${round(median(cpu))} ms; Node ${process.versions.node}`,
    },
  ];
}

if (require.main === module) {
  runRenderBench()
    .then((r) => {
      if (process.argv.includes('--record')) recordResults(r);
      else
        for (const e of r)
          console.log(
            `${e.name}: ${e.value} ${e.unit} (goal ${e.goal ?? '-'}, ${e.met ? 'met' : 'MISSED'})\n  ${e.note ?? ''}`,
          );
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
