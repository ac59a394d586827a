/**
 * Threads and answer-view figures from a real VS Code (called from bench/run.ts; also `npx tsx bench/threads.ts`),
 * through bench/fixtures/threads-entry.js run as an extension-host entry by scripts/vscode/run-ext-tests.ts:
 *
 *  - polls per finished thread against the minimum the poll interval allows: three runs of 3, 5 and 7 s
 *    watched together by the ThreadWatcher at poll_after_seconds 2 (the minimum for a run of D seconds is
 *    ceil(D / P), first poll P after dispatch). Goal: equal to the minimum (ratio 1.00).
 *  - time from opening a finished thread to the answer painted in the answer view (AnswerPanels.show until
 *    the webview script reports 'ready'): cold (first webview of the window) and the median of 7 warm opens.
 *
 * Skipped with --no-vscode, RESEARCH_DESK_BENCH_VSCODE=0, or without the .vscode-test/code-server cache.
 */
import { type BenchResult, median, recordResults } from './results';
import { runExtHostEntry, vscodeBenchSkipped } from './vscode';

interface ThreadFigures {
  threads?: { runSeconds: number; polls: number; minimum: number; logged: number }[];
  pollAfterSeconds?: number;
  coldPaintMs?: number;
  paintMs?: number[];
}

export function measureThreads(): BenchResult[] {
  const skipped = vscodeBenchSkipped();
  if (skipped) {
    console.log(`threads in VS Code: skipped (${skipped})`);
    return [];
  }
  const m = runExtHostEntry<ThreadFigures>('threads-entry.js', 'threads');
  const threads = m.threads ?? [];
  if (threads.length !== 3 || !m.paintMs?.length)
    throw new Error(`the threads entry measured ${threads.length} threads, ${m.paintMs?.length ?? 0} opens`);
  const polls = threads.reduce((s, t) => s + t.polls, 0);
  const minimum = threads.reduce((s, t) => s + t.minimum, 0);
  const logged = threads.reduce((s, t) => s + t.logged, 0);
  const per = threads
    .map((t) => `${t.runSeconds} s run: ${t.polls} polls (minimum ${t.minimum}, ${t.logged} logged by the emulator)`)
    .join('; ');
  const warm = median(m.paintMs);
  return [
    {
      name: 'threads: polls per finished thread / minimum the poll interval allows',
      value: Math.round((polls / minimum) * 100) / 100,
      unit: 'x',
      goal: '1.00',
      met: polls === minimum && logged === polls,
      note: `${polls} polls for 3 threads watched together (${logged} GET /v1/threads/{id} logged by the emulator), minimum ${minimum} at poll_after_seconds ${m.pollAfterSeconds}; ${per}`,
    },
    {
      name: 'threads: open a finished thread → answer painted (real VS Code), median',
      value: Math.round(warm),
      unit: 'ms',
      note: `AnswerPanels.show until the webview script reports ready; median of ${m.paintMs.length} warm opens (${m.paintMs.map((v) => Math.round(v)).join(', ')} ms); cold (first webview of the window): ${Math.round(m.coldPaintMs ?? NaN)} ms`,
    },
  ];
}

if (require.main === module) {
  try {
    recordResults(measureThreads());
  } catch (err: unknown) {
    console.error(err);
    process.exitCode = 1;
  }
}
