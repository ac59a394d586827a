/**
 * The layout's rules, checked on the source as it is (ARCHITECTURE.md, "The house"): few entries at the top of src/,
 * no file too long to read in one sitting, imports that only run down the layers (and never in a loop), and every
 * file that needs no `vscode` inside the ESLint fence that keeps it so.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { minimatch } from 'minimatch';

const root = join(__dirname, '..', '..', '..');
const src = join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}
const rel = (p: string): string => relative(root, p).replace(/\\/gu, '/');

/** Relative imports of a file (value and type imports, re-exports, dynamic imports), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gmu)) {
    const base = resolve(dirname(file), m[1]!);
    const hit = [`${base}.ts`, join(base, 'index.ts'), base].find((c) => {
      try {
        return statSync(c).isFile();
      } catch {
        return false;
      }
    });
    if (hit) out.push(hit);
  }
  return out;
}

/** Source text without its block and line comments (which may name ids in prose). */
const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//gu, '').replace(/^\s*\/\/.*$/gmu, '');

/** The ESLint fence's globs (eslint.config.mjs), read before the tests. */
let PURE_FILES: string[] = [];

/**
 * The layers, bottom up: the pure folders, the editor-wide platform, the features, the composition roots. A file
 * imports its own layer or a lower one; features import each other (a citation action in the answer view), but never
 * a composition root. (The fence is another matter: a feature's files that need no `vscode` are fenced too, and stay
 * in their feature's layer.)
 */
const LAYERS: [RegExp, number, string][] = [
  [/^src\/(api|bib|render|shared)\//u, 0, 'pure'],
  [/^src\/platform\//u, 1, 'platform'],
  [/^src\/(service|search|threads|answer|citations|usage|chat)\//u, 2, 'feature'],
  [/^src\/(composition\/|extension\.ts$)/u, 3, 'composition'],
];
const layerOf = (file: string): { rank: number; name: string } => {
  const r = rel(file);
  const hit = LAYERS.find(([re]) => re.test(r));
  if (!hit) throw new Error(`${r} is in no layer: add its folder to LAYERS and to ARCHITECTURE.md's map`);
  return { rank: hit[1], name: hit[2] };
};

describe('layout of src/', () => {
  const all = files(src);
  before(async () => {
    ({ PURE_FILES } = (await import(join(root, 'eslint.config.mjs'))) as { PURE_FILES: string[] });
  });

  it('has at most 14 entries at the top', () => {
    const top = readdirSync(src);
    assert.ok(top.length <= 14, `${top.length}: ${top.join(', ')}`);
  });

  // Lines as Prettier writes them (120 columns).
  it('has no file over 450 lines', () => {
    const long = all
      .map((f) => [rel(f), readFileSync(f, 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 450);
    assert.deepEqual(long, []);
  });

  it('imports only run down the layers (type imports too), and a pure file imports only pure files', () => {
    const upward: string[] = [];
    for (const f of all) {
      const from = layerOf(f);
      for (const t of importsOf(f)) {
        if (!t.startsWith(src)) continue;
        const to = layerOf(t);
        if (to.rank > from.rank) upward.push(`${rel(f)} (${from.name}) → ${rel(t)} (${to.name})`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('has no import cycle between modules', () => {
    const graph = new Map(all.map((f) => [f, importsOf(f).filter((t) => t.startsWith(src))]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 'open');
      stack.push(f);
      for (const t of graph.get(f) ?? []) {
        if (state.get(t) === 'open') cycles.push([...stack.slice(stack.indexOf(t)), t].map(rel).join(' → '));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of all) if (!state.has(f)) visit(f);
    assert.deepEqual(cycles, []);
  });

  it('puts every file that imports no `vscode` inside the ESLint fence (eslint.config.mjs PURE_FILES)', () => {
    const outside = all
      .map(rel)
      .filter(
        (r) =>
          !/\bfrom ['"]vscode['"]/u.test(readFileSync(join(root, r), 'utf8')) &&
          !PURE_FILES.some((g) => minimatch(r, g)),
      );
    assert.deepEqual(outside, []);
  });

  it('reads and writes settings only in the settings store (src/platform/settings.ts)', () => {
    const elsewhere = all
      .filter((f) => rel(f) !== 'src/platform/settings.ts')
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/\b(getConfiguration|onDidChangeConfiguration)\b/gu)].map(
          (m) => `${rel(f)}: ${m[1]}`,
        ),
      );
    assert.deepEqual(elsewhere, []);
  });

  it('names every id (command, view, setting, storage key, status item, context key) in src/platform/ids.ts, not as a literal', () => {
    const literals = all
      .filter((f) => rel(f) !== 'src/platform/ids.ts')
      .flatMap((f) =>
        [...withoutComments(readFileSync(f, 'utf8')).matchAll(/(['"`])(researchDesk[./][\w./-]*)\1/gu)].map(
          (m) => `${rel(f)}: ${m[2]}`,
        ),
      );
    assert.deepEqual(literals, []);
  });
});
