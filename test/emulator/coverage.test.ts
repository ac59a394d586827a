// The coverage helper: a deterministic sample of corpus papers that covers every odd form.
import { strict as assert } from 'node:assert';
import { getCorpus } from './corpus';
import { corpusForms, coverageSample, sameTitleGroups } from './coverage';

describe('emulator: coverage sample', function () {
  this.timeout(30_000);

  it('covers every form of the default corpus with at least 300 papers, and names the forms of each', () => {
    const s = coverageSample();
    assert.ok(s.papers.length >= 300, `${s.papers.length} papers`);
    assert.deepEqual(s.uncovered, []);
    assert.ok(s.coverSize > 0 && s.coverSize < 100, `cover of ${s.coverSize} papers`);
    const covered = new Set(s.papers.flatMap((x) => x.forms));
    for (const f of s.forms) assert.ok(covered.has(f.name), f.name);
    // The cover comes first: its papers alone have every form.
    assert.equal(new Set(s.papers.slice(0, s.coverSize).flatMap((x) => x.forms)).size, s.forms.length);
    assert.equal(new Set(s.papers.map((x) => x.paper.id)).size, s.papers.length, 'each paper once');
    for (const { paper, forms } of s.papers)
      assert.deepEqual(
        forms,
        s.forms.filter((f) => f.test(paper)).map((f) => f.name),
      );
  });

  it('is deterministic and brings every paper of a same-title group along', () => {
    const a = coverageSample(120);
    const b = coverageSample(120);
    assert.deepEqual(
      a.papers.map((x) => x.paper.id),
      b.papers.map((x) => x.paper.id),
    );
    assert.ok(a.papers.length >= 120);
    const ids = new Set(a.papers.map((x) => x.paper.id));
    const groups = sameTitleGroups();
    for (const g of [...groups.exact, ...groups.caseOnly, ...groups.sameStart]) {
      if (g.some((p) => ids.has(p.id))) for (const p of g) assert.ok(ids.has(p.id), `"${p.title}" comes with its twin`);
    }
    assert.ok(
      groups.exact.some((g) => g.every((p) => ids.has(p.id))),
      'an exact same-title pair is in the sample',
    );
  });

  it('reports the forms a small corpus lacks instead of failing', () => {
    const small = getCorpus(200);
    const s = coverageSample(50, small);
    assert.ok(s.papers.length >= 50);
    for (const name of s.uncovered) assert.ok(!small.some(corpusForms(small).find((f) => f.name === name)!.test), name);
  });
});
