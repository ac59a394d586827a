import * as assert from 'node:assert/strict';
import type { Paper } from '../../../src/api/index';
import { asCitePaper, RecentPapersList, type ShownResults } from '../../../src/citations/recentPapers';
import type { ResultsModel } from '../../../src/search/resultsModel';

/** A results view as followResults sees it: the model it shows, and its change event. */
class FakeResults implements ShownResults {
  current: ResultsModel | undefined;
  readonly listeners = new Set<() => unknown>();
  show(generation: number, ids: string[]): void {
    const papers: Paper[] = ids.map((id) => ({ title: `Paper ${id}`, url: `https://consensus.app/papers/${id}` }));
    this.current = { query: 'q', papers, more: false, fetched: papers.length, description: '', generation };
    for (const l of this.listeners) l();
  }
  onDidChangeTreeData(listener: () => unknown): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

describe('citations/recentPapers', () => {
  it('merges the same paper (id, DOI, or a title nothing tells apart) and moves it to the top', () => {
    const r = new RecentPapersList();
    r.remember([
      { id: 'p1', title: 'Sleep and memory', authors: ['A. Smith'], doi: '10.1/a' },
      { id: 'p2', title: 'Caffeine' },
    ]);
    r.remember([{ id: 'p1', title: 'Sleep and memory', journal_name: 'Sleep' }]);
    assert.deepEqual(
      r.list().map((p) => p.id),
      ['p1', 'p2'],
    );
    assert.deepEqual(r.list()[0]!.authors, ['A. Smith'], 'what was known is kept');
    assert.equal(r.list()[0]!.journal_name, 'Sleep', 'new fields are added');
    r.remember([{ title: 'caffeine!', publish_year: 2020 }]);
    assert.equal(r.list().length, 2, 'a citation without id/DOI whose title matches is the same paper');
    r.remember([{ doi: 'https://doi.org/10.1/A', title: 'Other title' }]);
    assert.equal(r.list().length, 2, 'same DOI');
  });

  it('never merges papers whose ids, DOIs or years differ, even with the same title', () => {
    const r = new RecentPapersList();
    r.remember([{ id: 'p1', title: 'Effects of feedback', authors: ['A. Smith'] }]);
    r.remember([{ id: 'p9', title: 'Effects of feedback', authors: ['B. Jones'] }]);
    assert.equal(r.list().length, 2, 'different ids');
    const d = new RecentPapersList();
    d.remember([{ doi: '10.1/x', title: 'Effects of feedback' }]);
    d.remember([{ doi: '10.1/y', title: 'Effects of feedback' }]);
    assert.equal(d.list().length, 2, 'different DOIs');
    const s = new RecentPapersList();
    s.remember([
      { title: 'Effects of feedback', publish_year: 2019 },
      { title: 'Effects of feedback', publish_year: 2021 },
    ]);
    assert.equal(s.list().length, 2, 'different years');
    assert.deepEqual(r.byId('p1')?.authors, ['A. Smith'], 'p1 kept its own metadata');
  });

  it('keeps at most the cap, most recent first', () => {
    const r = new RecentPapersList(3);
    r.remember([
      { id: 'a', title: 'A' },
      { id: 'b', title: 'B' },
    ]);
    r.remember([
      { id: 'c', title: 'C' },
      { id: 'd', title: 'D' },
    ]);
    assert.deepEqual(
      r.list().map((p) => p.id),
      ['c', 'd', 'a'],
    );
  });

  it('follows the results view: what it shows now and later, Load More adding only the newly shown papers', () => {
    const view = new FakeResults();
    view.show(1, ['a', 'b']);
    const r = new RecentPapersList();
    const following = r.followResults(view);
    assert.deepEqual(
      r.list().map((p) => p.id),
      ['a', 'b'],
      'what the view shows already',
    );
    view.show(1, ['a', 'b', 'c', 'd']);
    assert.deepEqual(
      r.list().map((p) => p.id),
      ['c', 'd', 'a', 'b'],
      'Load More: only c and d remembered (a and b not moved)',
    );
    view.show(2, ['b']);
    assert.deepEqual(
      r.list().map((p) => p.id),
      ['b', 'c', 'd', 'a'],
      'a new search: its papers go to the top',
    );
    view.current = undefined;
    for (const l of view.listeners) l();
    assert.equal(r.list().length, 4, 'a cleared view forgets nothing');
    following.dispose();
    view.show(3, ['z']);
    assert.equal(r.byId('z'), undefined, 'no longer following');
  });

  it('asCitePaper: a command argument keeps only the known fields of the right type', () => {
    const arg = {
      title: 'Sleep',
      authors: ['A. Smith', 7, null],
      publish_year: 2020,
      sjr_best_quartile: Infinity,
      doi: 42,
      is_preprint: 'yes',
      constructor: 'x',
      __proto__: { url: 'https://inherited.example' },
      extra: 'dropped',
    };
    assert.deepEqual(asCitePaper(arg), { title: 'Sleep', authors: ['A. Smith'], publish_year: 2020 });
    assert.deepEqual(asCitePaper({ key: 'smith2020' }), { key: 'smith2020' }, 'a key alone names an entry');
    for (const v of [null, 'Sleep', ['Sleep'], { kind: 'paper', title: 'Sleep' }, { volume: '3' }])
      assert.equal(asCitePaper(v), undefined, JSON.stringify(v));
  });
});
