/**
 * Running a benchmark entry in a real VS Code: the extension-host runner (scripts/vscode/run-ext-tests.ts, trusted
 * run only) with a plain CommonJS entry from bench/fixtures that writes its figures as JSON to
 * RESEARCH_DESK_BENCH_OUT. Skipped with --no-vscode, RESEARCH_DESK_BENCH_VSCODE=0, or without the
 * .vscode-test/code-server cache.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** Why the real-VS Code figures are skipped, or undefined when they run. */
export function vscodeBenchSkipped(): string | undefined {
  if (process.argv.includes('--no-vscode') || process.env.RESEARCH_DESK_BENCH_VSCODE === '0')
    return '--no-vscode or RESEARCH_DESK_BENCH_VSCODE=0';
  const cache = process.env.RESEARCH_DESK_VSCODE_CACHE ?? join(ROOT, '.vscode-test');
  if (!existsSync(join(cache, 'code-server'))) return `no VS Code cache at ${cache}`;
  return undefined;
}

/** Builds the extension, runs `bench/fixtures/<fixture>` in the extension host and returns what it wrote. */
export function runExtHostEntry<T>(fixture: string, label: string): T {
  const out = join(tmpdir(), `research-desk-${label}-${process.pid}.json`);
  const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'ignore' });
  if (build.status !== 0) throw new Error('node esbuild.mjs failed');
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join('scripts', 'vscode', 'run-ext-tests.ts'),
      '--no-build',
      '--only',
      'trusted',
      '--entry',
      join('bench', 'fixtures', fixture),
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, RESEARCH_DESK_BENCH_OUT: out }, timeout: 300_000 },
  );
  if (r.status !== 0 || !existsSync(out)) throw new Error(`the ${label} entry failed (exit ${r.status})`);
  try {
    return JSON.parse(readFileSync(out, 'utf8')) as T;
  } finally {
    rmSync(out, { force: true });
  }
}
