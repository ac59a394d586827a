import * as assert from 'node:assert/strict';
import { RecentPapersList } from '../../../src/citations/recentPapers';
import type { CitePaper } from '../../../src/citations/types';
import { ensureEntry } from '../../../src/bib/bibAppend';
import { findEntry } from '../../../src/bib/bibEntry';
import { parseBibFile } from '../../../src/bib/bibFile';
import { applyEdits } from '../../../src/bib/edit';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { sameVenue, tellApart } from '../../../src/bib/paperIdentity';

/** Two papers as an agent answer cites them (the emulator's pair): same title and year, another journal, URL and id. */
const TITLE = 'Does creatine supplementation improve working memory? Evidence from older adults';
const nutrition: CitePaper = {
  id: 'd66e2b2f6bf6ab33f9c790704e911c58',
  title: TITLE,
  publish_year: 2021,
  journal_name: 'European Journal of Nutrition',
  url: 'https://consensus.app/papers/does-creatine-supplementation-improve-working-memory-evidenc/d66e2b2f6bf6ab33f9c790704e911c58/',
};
const sleep: CitePaper = {
  id: '20bd485e32b6ff536e8eee13b79415f2',
  title: TITLE,
  publish_year: 2021,
  journal_name: 'Sleep',
  url: 'https://consensus.app/papers/does-creatine-supplementation-improve-working-memory-evidenc/20bd485e32b6ff536e8eee13b79415f2/',
};

describe('bib/paperIdentity: papers with the same title and year are kept apart by any field that differs', () => {
  before(() => loadBibtexLibrary());

  it('tellApart: id, DOI, URL, year and journal each tell two papers apart; absent fields tell nothing', () => {
    assert.equal(tellApart(nutrition, sleep), true);
    assert.equal(tellApart({ journal: 'Sleep' }, { journal: 'European Journal of Nutrition' }), true, 'journal');
    assert.equal(tellApart({ url: 'https://x.org/a/1/' }, { url: 'https://x.org/a/2/' }), true, 'URL');
    assert.equal(tellApart({ id: 'p1' }, { id: 'p2' }), true, 'id');
    assert.equal(
      tellApart({ id: 'p1' }, { url: 'https://x.org/papers/t/p2/' }),
      true,
      'an id against a URL that ends with another id',
    );
    assert.equal(tellApart({ doi: '10.1/a' }, { doi: '10.1/b' }), true, 'DOI');
    assert.equal(tellApart({ year: 2020 }, { year: 2021 }), true, 'year');
    assert.equal(tellApart(nutrition, { ...nutrition }), false, 'the same paper');
    assert.equal(tellApart({ id: 'p1' }, { url: 'https://x.org/papers/t/p1' }), false, 'its URL ends with its id');
    assert.equal(
      tellApart({ url: 'https://X.org/a/1/#top' }, { url: 'http://x.org/a/1' }),
      false,
      'the same URL written otherwise',
    );
    assert.equal(tellApart({ journal: 'Sleep', year: 2021 }, { id: 'p1' }), false, 'nothing to compare');
  });

  it('sameVenue: the same words, or abbreviations of them; a different number of words is another journal', () => {
    assert.equal(sameVenue('Journal of Sleep Research', 'J. Sleep Res.'), true);
    assert.equal(sameVenue('European Journal of Nutrition', 'Eur J Nutr'), true);
    assert.equal(sameVenue('PLOS ONE', 'PLoS One'), true);
    assert.equal(sameVenue('Sleep', 'Journal of Sleep Research'), false);
    assert.equal(sameVenue('Sleep', 'European Journal of Nutrition'), false);
    assert.equal(sameVenue('Nature', 'Nature Medicine'), false);
    assert.equal(sameVenue('', 'Sleep'), undefined);
  });

  it('findEntry / ensureEntry: the second paper gets its own entry and key, each paper finds its own entry again', () => {
    let text = '';
    const keys: string[] = [];
    for (const paper of [nutrition, sleep]) {
      const r = ensureEntry(parseBibFile(text), paper);
      assert.equal(r.existing, false, `${paper.journal_name}: a new entry`);
      text = applyEdits(text, [r.edit!]);
      keys.push(r.key);
    }
    assert.equal(new Set(keys).size, 2, `two keys: ${keys.join(', ')}`);
    const file = parseBibFile(text);
    assert.equal(file.entries.length, 2);
    assert.equal(findEntry(file, nutrition)?.key, keys[0]);
    assert.equal(findEntry(file, sleep)?.key, keys[1]);
    // What a search knows of the same papers (no id) still finds them, by their URL and journal.
    assert.equal(
      findEntry(file, { title: TITLE, publish_year: 2021, journal_name: 'Sleep', authors: ['A. Smith'] })?.key,
      keys[1],
    );
    assert.equal(
      findEntry(file, { title: TITLE, publish_year: 2021, journal_name: 'Eur J Nutr' })?.key,
      keys[0],
      'an abbreviated journal',
    );
    // Only the id tells this one apart: the entries' URLs end with other ids.
    assert.equal(findEntry(file, { id: 'ffff0000', title: TITLE, publish_year: 2021 }), undefined);
    // A writer's entry without journal or URL is still found by title and year.
    assert.equal(findEntry(parseBibFile(`@article{mine, title = {${TITLE}}, year = 2021}`), sleep)?.key, 'mine');
  });

  it('recent papers: two papers of the same title and year from different journals stay two', () => {
    const r = new RecentPapersList();
    r.remember([nutrition, sleep]);
    assert.equal(r.list().length, 2);
    const { id: _n, url: _nu, ...noIdNutrition } = nutrition;
    const { id: _s, url: _su, ...noIdSleep } = sleep;
    const t = new RecentPapersList();
    t.remember([noIdNutrition, noIdSleep]);
    assert.deepEqual(
      t.list().map((p) => p.journal_name),
      ['European Journal of Nutrition', 'Sleep'],
      'told apart by the journal alone',
    );
    t.remember([{ title: TITLE, publish_year: 2021, journal_name: 'Sleep', authors: ['B. Jones'] }]);
    assert.equal(t.list().length, 2, 'the same journal: merged');
    assert.deepEqual(t.list()[0]!.authors, ['B. Jones']);
    assert.equal(t.list()[0]!.journal_name, 'Sleep');
  });
});
