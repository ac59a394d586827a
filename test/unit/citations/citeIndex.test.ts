import * as assert from 'node:assert/strict';
import { BibParser, parseBibFile, type BibEntry } from '../../../src/bib/bibFile';
import { toBibtex } from '../../../src/bib/bibtex';
import { baseKey } from '../../../src/bib/keys';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { asciiFold } from '../../../src/bib/names';
import { CiteIndex, prefixOf } from '../../../src/citations/citeIndex';
import { words } from '../../../src/citations/citeMatch';
import { rawFamilies } from '../../../src/citations/entryText';
import { WordBytes } from '../../../src/citations/latexWords';
import { getCorpus, mulberry32 } from '../../emulator/corpus';
import { corpusCitePaper } from '../bib/corpusPaper';
import { displayLatexReference, familiesReference, randomLatex, wordsReference } from './displayReference';

/** matchRank as it was, on list data decoded with every step run (the words computed once per entry). */
const referenceWords = new WeakMap<BibEntry, string[]>();
function rankReference(prefix: string, entry: BibEntry): number | undefined {
  if (!prefix) return 0;
  const p = prefix.toLowerCase();
  const k = entry.key.toLowerCase();
  if (k.startsWith(p)) return 0;
  if (k.includes(p)) return 1;
  const fp = asciiFold(p).toLowerCase();
  if (!fp) return undefined;
  let all = referenceWords.get(entry);
  if (!all) {
    const title = entry.raw['title'] ? displayLatexReference(entry.raw['title']) : '';
    const families = familiesReference(entry.raw['author'] ?? entry.raw['editor']);
    referenceWords.set(entry, (all = [...wordsReference(title), ...families.flatMap(wordsReference)]));
  }
  return all.some((w) => w.startsWith(fp)) ? 2 : undefined;
}

/** A .bib of corpus papers as Research Desk writes them, and entries with hostile raw values. */
async function sampleBib(rnd: () => number): Promise<string> {
  await loadBibtexLibrary();
  const papers = getCorpus().slice(0, 400).map(corpusCitePaper);
  const out = papers.map((p, i) => toBibtex(p, `${baseKey(p)}${i}`));
  for (let i = 0; i < 300; i++) {
    const v = (): string => randomLatex(rnd, 1 + Math.floor(rnd() * 10)).replace(/[{}]/gu, '');
    out.push(`@misc{Odd${i}Key, title = {${v()}}, ${i % 3 ? 'author' : 'editor'} = {${v()} and ${v()}}}`);
  }
  return out.join('\n\n');
}

/** Prefixes people type and odd ones: key starts, title and name word starts (accented too), random text. */
function prefixes(rnd: () => number, entries: readonly BibEntry[]): string[] {
  const out = ['', 'a', 'S', 'sand', 'sandk', 'müll', 'muller', 'kova', 'creat', 'ö', 'Ö', '-', ' ', '1', '20', 'zzzq'];
  for (let i = 0; i < 60; i++) {
    const e = entries[Math.floor(rnd() * entries.length)]!;
    out.push(e.key.slice(0, 1 + Math.floor(rnd() * 6)), e.key.slice(2, 5));
    const t = displayLatexReference(e.raw['title'] ?? '').split(' ');
    out.push((t[Math.floor(rnd() * t.length)] ?? '').slice(0, 1 + Math.floor(rnd() * 5)));
    out.push(randomLatex(rnd, 1 + Math.floor(rnd() * 2)));
  }
  return out;
}

describe('citations/citeIndex (completion matching over a whole bibliography)', () => {
  it('words, and the word string the index makes of them, fold exactly as splitting and asciiFold-ing each word does (random text)', () => {
    const rnd = mulberry32(7);
    for (let i = 0; i < 20_000; i++) {
      const text = randomLatex(rnd, 1 + Math.floor(rnd() * 12));
      const expected = wordsReference(text);
      assert.deepEqual(words(text), expected, JSON.stringify(text));
      const bytes = new WordBytes();
      bytes.addWords(words(text));
      assert.equal(bytes.string(), expected.map((w) => ` ${w}`).join(''), JSON.stringify(text));
      assert.deepEqual(rawFamilies(text), familiesReference(text), JSON.stringify(text));
    }
  });

  it('ranks every entry as matchRank did, whether built at once or in slices while the file is parsed', async () => {
    const rnd = mulberry32(20260611);
    const text = await sampleBib(rnd);
    const file = parseBibFile(text);
    const whole = new CiteIndex(file.entries);
    assert.equal(whole.build(), true);
    // In slices: a clock that says time is up at every check, over a parse that also runs in slices.
    const parser = new BibParser(text);
    const sliced = new CiteIndex(parser.entries);
    let ticks = 0;
    const late = (): number => ++ticks;
    for (let guard = 0; guard < 100_000 && !(parser.done && sliced.indexed === parser.entries.length); guard++) {
      parser.run(0, late);
      sliced.build(0, late);
    }
    assert.equal(sliced.indexed, file.entries.length);
    // After an append (the earlier entries kept), an index that starts from the old one's work.
    const half = parseBibFile(text.slice(0, text.indexOf('@misc{Odd150')));
    const before = new CiteIndex(half.entries);
    before.build();
    const appended = CiteIndex.after(before, [...half.entries, ...file.entries.slice(half.entries.length)]);
    assert.equal(appended.indexed, half.entries.length, 'the earlier entries are indexed already');
    appended.build();
    assert.ok(ticks > 20, 'the build stopped and resumed');
    for (const raw of prefixes(rnd, file.entries)) {
      const p = prefixOf(raw);
      file.entries.forEach((e, i) => {
        const expected = rankReference(raw, e);
        assert.equal(whole.rank(i, p), expected, `${JSON.stringify(raw)} on ${e.key}`);
        assert.equal(sliced.rank(i, p), expected, `${JSON.stringify(raw)} on ${e.key} (slices)`);
        assert.equal(appended.rank(i, p), expected, `${JSON.stringify(raw)} on ${e.key} (after an append)`);
      });
    }
  });
});
