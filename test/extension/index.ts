/**
 * Extension-host test entry: `run()` is called inside a real VS Code (desktop through
 * @vscode/test-electron, or VS Code's server in headless Chromium). The suites are bundled
 * into this file by `node esbuild.mjs --tests`; mocha is loaded from node_modules.
 *
 * Writes {passed, failed, pending, failures:[{title, error}]} to $RESEARCH_DESK_TEST_RESULTS
 * and rejects when anything failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Mocha from 'mocha';
import { activationSuite } from './activation.test';
import { answerSuite } from './answer.test';
import { citationsSuite } from './citations.test';
import { citeAssistSuite } from './citeAssist.test';
import { connectionSuite } from './connection.test';
import { contributionsSuite } from './contributions.test';
import { emulatorSuite } from './emulator.test';
import { errorsSuite } from './errors.test';
import { filtersSuite } from './filters.test';
import { insertAnswerSuite } from './insertAnswer.test';
import { keysSuite } from './keys.test';
import { mcpSuite } from './mcp.test';
import { moneySuite } from './money.test';
import { scriptedModelSuite } from './scriptedModel.test';
import { searchSuite } from './search.test';
import { tableSuite } from './table.test';
import { settingsSuite } from './settings.test';
import { threadsSuite } from './threads.test';
import { toolsSuite } from './tools.test';
import { chatSuite, chatViewSuite } from './chat.test';
import { trustSuite } from './trust.test';
import { untrustedSuite } from './untrusted.test';
import { usageSuite } from './usage.test';

interface Counts {
  passed: number;
  failed: number;
  pending: number;
  failures: { title: string; error: string }[];
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 30_000, reporter: LineReporter });
  const grep = process.env.RESEARCH_DESK_TEST_GREP;
  if (grep) mocha.grep(grep);
  // What mocha.loadFiles does for files, for bundled suites: define the TDD globals, then register.
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  activationSuite(); // first: it checks what activation loaded before any command runs
  contributionsSuite();
  errorsSuite();
  settingsSuite();
  keysSuite();
  connectionSuite();
  emulatorSuite();
  trustSuite();
  searchSuite();
  filtersSuite();
  tableSuite();
  usageSuite();
  toolsSuite();
  chatSuite();
  scriptedModelSuite();
  mcpSuite();
  chatViewSuite();
  threadsSuite();
  answerSuite();
  citationsSuite();
  citeAssistSuite();
  insertAnswerSuite();
  moneySuite();
  untrustedSuite();

  const counts: Counts = { passed: 0, failed: 0, pending: 0, failures: [] };
  return new Promise<void>((resolve, reject) => {
    const runner = mocha.run((failures) => {
      writeCounts(counts);
      if (failures > 0 || counts.failed > 0)
        reject(new Error(`${counts.failed || failures} extension-host test(s) failed.`));
      else resolve();
    });
    runner.on('pass', () => counts.passed++);
    runner.on('pending', () => counts.pending++);
    runner.on('fail', (test, err: unknown) => {
      counts.failed++;
      counts.failures.push({ title: test.fullTitle(), error: err instanceof Error ? err.message : String(err) });
    });
  });
}

/**
 * One plain line per test (the workbench forwards console lines without printf formatting,
 * so mocha's spec reporter shows raw "%s"). Skipped tests are listed visibly.
 */
class LineReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.on('suite', (s) => {
      if (s.title) console.log(`${s.title}`);
    });
    // A slow test says how long it took: the tests nearest their waits' bounds are the ones a busy machine fails.
    runner.on('pass', (t) =>
      console.log(`  ✔ ${t.title}${(t.duration ?? 0) >= 1000 ? ` (${seconds(t.duration)})` : ''}`),
    );
    runner.on('pending', (t) => console.log(`  - SKIPPED ${t.title}${skipReason(t)}`));
    runner.on('fail', (t, err: unknown) =>
      console.log(`  ✘ ${t.title} (${seconds(t.duration)}): ${err instanceof Error ? err.message : String(err)}`),
    );
    runner.once('end', () => {
      const s = this.stats;
      console.log(`${s.passes} passing, ${s.failures} failing, ${s.pending} skipped (${s.duration ?? 0} ms)`);
    });
  }
}

const seconds = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(1)} s`;

/** The reason support.skipBelowVsCode left on the test or one of its suites, if any. */
function skipReason(t: Mocha.Runnable): string {
  for (let r: { skipReason?: string; parent?: Mocha.Suite } | undefined = t; r; r = r.parent)
    if (r.skipReason) return ` (${r.skipReason})`;
  return '';
}

function writeCounts(counts: Counts): void {
  const file = process.env.RESEARCH_DESK_TEST_RESULTS;
  if (!file) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(counts, null, 2) + '\n');
  } catch (err) {
    console.error(`Could not write test counts to ${file}:`, err);
  }
}
