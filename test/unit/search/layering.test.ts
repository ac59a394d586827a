// The search feature's layering, read from its import statements: the model (session, pages, results model, filter
// store and the pure helpers) never imports a view (the results tree, the filter editor) or a command module; views
// depend on the model, commands on both; and no file of src/search imports itself back through another.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', '..', '..', 'src', 'search');
const VIEWS = new Set(['resultsTree', 'resultItems', 'filterEditor']);
const isCommands = (name: string): boolean => name.endsWith('Commands');

/** Each module of src/search and the modules of src/search it imports (type imports included). */
function imports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, file), 'utf8');
    const local = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'\.\/([A-Za-z0-9_]+)'/gms)].map((m) => m[1]!);
    graph.set(file.replace(/\.ts$/, ''), [...new Set(local)]);
  }
  return graph;
}

describe('search: layering (model → view never; no import cycle)', () => {
  const graph = imports();

  it('reads the modules', () => {
    for (const name of ['searchSession', 'searchPages', 'resultsModel', 'resultsTree', 'query'])
      assert.ok(graph.has(name), name);
    assert.ok(graph.get('resultsTree')!.includes('resultsModel'), 'the import reader found nothing');
  });

  it('no model module imports a view or a command module', () => {
    const bad: string[] = [];
    for (const [from, tos] of graph) {
      if (VIEWS.has(from) || isCommands(from)) continue;
      for (const to of tos) if (VIEWS.has(to) || isCommands(to)) bad.push(`${from} → ${to}`);
    }
    assert.deepEqual(bad, []);
  });

  it('no view imports a command module', () => {
    const bad = [...graph].flatMap(([from, tos]) =>
      VIEWS.has(from) ? tos.filter(isCommands).map((to) => `${from} → ${to}`) : [],
    );
    assert.deepEqual(bad, []);
  });

  it('no import cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'open') {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' → '));
        return;
      }
      state.set(name, 'open');
      for (const to of graph.get(name) ?? []) visit(to, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of graph.keys()) visit(name, []);
    assert.deepEqual(cycles, []);
  });
});
