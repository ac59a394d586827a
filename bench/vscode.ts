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
import { CACHE_DIR, cleanNpmEnv } from '../scripts/vscode/cache';
import { run } from '../scripts/vscode/util';

const ROOT = join(__dirname, '..');

/** Why the real-VS Code figures are skipped, or undefined when they run. */
export function vscodeBenchSkipped(): string | undefined {
  if (process.argv.includes('--no-vscode') || process.env.RESEARCH_DESK_BENCH_VSCODE === '0')
    return '--no-vscode or RESEARCH_DESK_BENCH_VSCODE=0';
  if (!existsSync(join(CACHE_DIR, 'code-server'))) return `no VS Code cache at ${CACHE_DIR}`;
  return undefined;
}

/** Builds the extension, runs the UI flow `name` (test/ui/flows) and returns the file it wrote, parsed. */
export function runUiFlow<T>(name: string, file: string): T {
  const build = spawnSync(process.execPath, ['esbuild.mjs', '--tests'], { cwd: ROOT, stdio: 'ignore' });
  if (build.status !== 0) throw new Error('node esbuild.mjs --tests failed');
  rmSync(file, { force: true });
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join('scripts', 'vscode', 'run-ui.ts'), '--no-build', '--grep', name],
    { cwd: ROOT, stdio: 'inherit', timeout: 300_000 },
  );
  if (r.status !== 0 || !existsSync(file)) throw new Error(`the ${name} flow failed (exit ${r.status})`);
  return JSON.parse(readFileSync(file, 'utf8')) as T;
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

/** Builds a checkout's bundles with its own esbuild.mjs: the production build, or (`dev`) the development one. */
export async function buildBundles(cwd: string, options: { dev?: boolean; tag?: string } = {}): Promise<void> {
  await run(process.execPath, ['esbuild.mjs', ...(options.dev ? [] : ['--production'])], {
    cwd,
    env: cleanNpmEnv(),
    timeoutMs: 5 * 60_000,
    tag: options.tag ?? 'build',
    quiet: true,
  });
}
