#!/usr/bin/env node
// The one test command (`npm test`): every gate and every suite, in order, then one line
// `N passed, N failed` for all of them together. Gates (typecheck, lint, format, build) count as
// one check each; suites report their own test counts through JSON files in test-results/.
// Flags: --only=<suite,...> runs a subset (names below); --skip=<suite,...> leaves some out.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const results = join(root, 'test-results');
mkdirSync(results, { recursive: true });

const arg = (name) =>
  process.argv
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')[1]
    ?.split(',') ?? [];
const only = arg('only');
const skip = arg('skip');

const npx = (...args) => ['npx', '--no-install', ...args];
const suites = [
  { name: 'typecheck', kind: 'gate', cmd: npx('tsc', '--noEmit', '-p', '.') },
  { name: 'lint', kind: 'gate', cmd: npx('eslint', '--max-warnings', '0', '.') },
  { name: 'format', kind: 'gate', cmd: npx('prettier', '--check', '.') },
  { name: 'build', kind: 'gate', cmd: ['node', 'esbuild.mjs', '--production', '--tests'] },
  {
    name: 'node',
    kind: 'suite',
    cmd: npx('mocha', '--config', '.mocharc.json', '--reporter', './scripts/mocha-counts.cjs'),
    counts: 'node.json',
  },
  // What we write, compiled by pandoc, pdflatex with BibTeX and Biber, and Typst (test/toolchains/).
  {
    name: 'toolchains',
    kind: 'suite',
    cmd: npx('mocha', '--config', '.mocharc.toolchains.json', '--reporter', './scripts/mocha-counts.cjs'),
    counts: 'toolchains.json',
  },
  {
    name: 'ext-host',
    kind: 'suite',
    // The newest VS Code and the oldest that engines.vscode admits (scripts/vscode/README.md).
    cmd: npx('tsx', 'scripts/vscode/run-ext-tests.ts', '--no-build', '--vscode', 'both'),
    counts: 'ext-host.json',
    needs: 'scripts/vscode/run-ext-tests.ts',
  },
  {
    name: 'ui',
    kind: 'suite',
    cmd: npx('tsx', 'scripts/vscode/run-ui.ts', '--no-build'),
    counts: 'ui.json',
    needs: 'scripts/vscode/run-ui.ts',
  },
];

/** Each failing test of a counts file as one short line, whatever the suite's shape. */
function failuresOf(counts) {
  const clip = (t) =>
    String(t ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, 300);
  const line = (where, f) => `${where}${clip(f.title)}: ${clip(f.error)}`;
  const out = (counts.failures ?? []).map((f) => line('', f));
  for (const r of counts.runs ?? [])
    for (const f of r.failures ?? []) out.push(line(`[${r.vscodeVersion ?? r.vscode} ${r.mode}] `, f));
  for (const fl of counts.flows ?? []) for (const f of fl.failures ?? []) out.push(line(`[${fl.name}] `, f));
  return out;
}

let passed = 0;
let failed = 0;
const lines = [];
for (const s of suites) {
  if ((only.length && !only.includes(s.name)) || skip.includes(s.name)) continue;
  if (s.needs && !existsSync(join(root, s.needs))) continue;
  const countsFile = s.counts ? join(results, s.counts) : undefined;
  if (countsFile) rmSync(countsFile, { force: true });
  console.log(`\n=== ${s.name}: ${s.cmd.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(s.cmd[0], s.cmd.slice(1), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, RESEARCH_DESK_COUNTS: countsFile ?? '' },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (s.kind === 'gate') {
    const ok = r.status === 0;
    ok ? passed++ : failed++;
    lines.push(`${s.name}: ${ok ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${seconds} s`);
    continue;
  }
  let counts;
  try {
    counts = JSON.parse(readFileSync(countsFile, 'utf8'));
  } catch {
    counts = undefined;
  }
  if (!counts) {
    failed++;
    lines.push(`${s.name}: produced no counts (exit ${r.status ?? r.signal}) in ${seconds} s — counted as 1 failure`);
    continue;
  }
  // A suite whose runner exited non-zero but reported no failing test still failed.
  const suiteFailed = counts.failed + (r.status !== 0 && counts.failed === 0 ? 1 : 0);
  passed += counts.passed;
  failed += suiteFailed;
  lines.push(
    `${s.name}: ${counts.passed} passed, ${suiteFailed} failed${counts.pending ? `, ${counts.pending} pending` : ''} in ${seconds} s`,
  );
  // A suite of several runs (e.g. per VS Code version and mode) lists them under its line.
  if (Array.isArray(counts.details)) for (const d of counts.details) lines.push(`  ${d}`);
  // The failing tests are named here too: a CI log is often read from its tail only.
  for (const f of failuresOf(counts)) lines.push(`  FAILED ${f}`);
}

console.log('\n=== summary');
for (const l of lines) console.log(l);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
