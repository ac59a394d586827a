import * as assert from 'node:assert/strict';
import {
  entryType,
  escapeVerbatim,
  isValidKey,
  normaliseDoi,
  toBibtex,
  unescapeVerbatim,
  type CitablePaper,
} from '../../../src/bib/bibtex';
import { parseBibFile } from '../../../src/bib/bibFile';
import { bibtexLibrary, loadBibtexLibrary } from '../../../src/bib/library';
import { parseName, squash } from '../../../src/bib/names';
import { getCorpus } from '../../emulator/index';
import { prng } from '../../emulator/corpus';
import { corpusCitePaper } from './corpusPaper';

interface Creator {
  name?: string;
  lastName?: string;
  firstName?: string;
  prefix?: string;
  suffix?: string;
}

/** Parse a generated entry with the real parser and return its fields. */
/** Text read back is compared up to Unicode canonical equivalence (the parser composes accents its own way). */
const nfc = <T>(v: T): T => JSON.parse(JSON.stringify(v).normalize('NFC')) as T;

function parseBack(entry: string): Record<string, unknown> & { author?: Creator[] } {
  // Valid for BibTeX itself: every brace counts (escaped or not) and must balance inside the entry.
  let depth = 0;
  for (const c of entry) {
    depth += c === '{' ? 1 : c === '}' ? -1 : 0;
    assert.ok(depth >= 0, `brace closes too early in:\n${entry}`);
  }
  assert.equal(depth, 0, `unbalanced braces in:\n${entry}`);
  assert.deepEqual(parseBibFile(entry).diagnostics, [], `our own reader complains about:\n${entry}`);
  const lib = nfc(bibtexLibrary().parse(entry));
  assert.deepEqual(lib.errors, [], `parser errors for:\n${entry}`);
  assert.equal(lib.entries.length, 1, `one entry expected in:\n${entry}`);
  return lib.entries[0]!.fields;
}

/** The name as our splitter reads the source, in the parser's shape. */
function expectedCreator(raw: string): Creator {
  const n = parseName(raw.normalize('NFC'));
  if (n.literal || (!n.given && /\s/u.test(n.family))) return { name: n.family };
  const c: Creator = { lastName: n.family };
  if (n.given) c.firstName = n.given;
  if (n.particle) c.prefix = n.particle;
  // BibTeX's jr part ("Carlos Pérez Sr." is written "Pérez, Sr., Carlos").
  if (n.suffix) c.suffix = n.suffix;
  return c;
}

/** Percent escapes decoded run by run (a DOI may hold a `%` that starts none). */
const decode = (s: string): string =>
  s.replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });

function assertRoundTrip(paper: CitablePaper, key = 'k2023x'): void {
  const entry = toBibtex(paper, key);
  const f = parseBack(entry);
  if (paper.title) assert.equal(f['title'], squash(paper.title).normalize('NFC'), `title of:\n${entry}`);
  if (paper.journal_name) assert.equal(f['journal'] ?? f['howpublished'], squash(paper.journal_name).normalize('NFC'));
  if (paper.publisher_name) assert.deepEqual(f['publisher'], [squash(paper.publisher_name).normalize('NFC')]);
  if (paper.authors?.length) assert.deepEqual(f.author, paper.authors.map(expectedCreator), `authors of:\n${entry}`);
  if (paper.url) assert.equal(decode(String(f['url'])), decode(paper.url.trim()), `url of:\n${entry}`);
  if (paper.doi) assert.equal(decode(String(f['doi'])), decode(normaliseDoi(paper.doi)!), `doi of:\n${entry}`);
}

describe('bib/bibtex: toBibtex', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('writes an @article with every field, the month as a macro and pages with --', () => {
    const e = toBibtex(
      {
        title: 'Creatine supplementation and memory',
        authors: ['Jürgen Sandkühler', 'Anna Smith'],
        journal_name: 'PLOS ONE',
        publish_year: 2023,
        publish_date: '2023-08-02',
        volume: '16',
        pages: '2366-2370',
        doi: '10.3590/plos-one.2012.00001',
        url: 'https://consensus.app/papers/x/abc/',
        publisher_name: 'Public Library of Science',
      },
      'sandkuhler2023creatine',
    );
    assert.equal(
      e,
      [
        '@article{sandkuhler2023creatine,',
        '  author = {Sandk{\\"{u}}hler, J{\\"{u}}rgen and Smith, Anna},',
        '  title = {Creatine supplementation and memory},',
        '  journal = {PLOS ONE},',
        '  year = {2023},',
        '  month = aug,',
        '  volume = {16},',
        '  pages = {2366--2370},',
        '  publisher = {Public Library of Science},',
        '  doi = {10.3590/plos-one.2012.00001},',
        '  url = {https://consensus.app/papers/x/abc/}',
        '}',
      ].join('\n'),
    );
    const f = parseBack(e);
    assert.equal(f['pages'], '2366–2370');
    assert.equal(f['month'], '8');
  });

  it('chooses the entry type by kind: preprints and venue-less papers are @misc', () => {
    assert.deepEqual(entryType({ journal_name: 'The Lancet' }), { type: 'article', preprint: false });
    assert.deepEqual(entryType({ journal_name: 'medRxiv' }), { type: 'misc', preprint: true });
    assert.deepEqual(entryType({ journal_name: 'Some Journal', is_preprint: true }), { type: 'misc', preprint: true });
    assert.deepEqual(entryType({ journal_name: '' }), { type: 'misc', preprint: false });
    const e = toBibtex({ title: 'T', journal_name: 'bioRxiv', publish_year: 2024 }, 'a2024t');
    assert.match(e, /^@misc\{a2024t,/u);
    assert.match(e, /howpublished = \{bioRxiv\}/u);
    assert.match(e, /note = \{Preprint\}/u);
    assert.doesNotMatch(e, /journal =/u);
  });

  it('protects capitalised words after the first (proper nouns, acronyms) with braces; "acronyms" only acronyms; "all" the whole title; "none" nothing', () => {
    const t = 'DNA methylation and mRNA in COVID-19 patients: a pH study of Vitamin D';
    assert.equal(
      /title = \{(.*)\}$/mu.exec(toBibtex({ title: t }, 'k'))![1],
      '{DNA} methylation and {mRNA} in {COVID-19} patients: a {pH} study of {Vitamin} {D}',
    );
    assert.equal(
      /title = \{(.*)\}$/mu.exec(
        toBibtex({ title: 'Air pollution in India and the Indo-Gangetic Basin: the Enlightenment view' }, 'k'),
      )![1],
      'Air pollution in {India} and the {Indo-Gangetic} {Basin:} the {Enlightenment} view',
    );
    assert.equal(
      /title = \{(.*)\}$/mu.exec(toBibtex({ title: t }, 'k', { protectTitle: 'acronyms' }))![1],
      '{DNA} methylation and {mRNA} in {COVID-19} patients: a {pH} study of Vitamin {D}',
    );
    assert.match(toBibtex({ title: t }, 'k', { protectTitle: 'all' }), /title = \{\{DNA methylation .* D\}\}/u);
    assert.match(toBibtex({ title: t }, 'k', { protectTitle: 'none' }), /title = \{DNA methylation/u);
    for (const p of ['capitals', 'acronyms', 'all', 'none'] as const)
      assert.equal(parseBack(toBibtex({ title: t }, 'k', { protectTitle: p }))['title'], t);
  });

  it('escapes every special character and reads back the same title', () => {
    const hostile = [
      'Cost & benefit: 50% of $100 #1 in_vitro {braces} ~tilde^ caret \\backslash',
      'Unbalanced { brace in the source',
      'Unbalanced } closing brace }} and {{{',
      'A \\cite{key} and \\textbf{bold} and \\\\ and \\{ inside a title',
      "Em---dash, en--dash, ``quotes'' and <<guillemets>> and ?` !` ligatures",
      'Math $x_1^2$ and R^2 > 0.5, CO_2 and NO_x, α-synuclein, β2-agonists, 10^{-3} M',
      'Quotes "double" “curly” ‘single’ and it\'s',
      'A title with % at the end %',
      'Trailing backslash \\',
      'Tabs\tand\nnewlines   and  spaces',
      'Non-Latin: 李明 研究, Иванов исследование, محمد دراسة, Ελληνικά, 日本語のタイトル, 한국어',
      'Ligature-like -- in the middle and --- triple and - single',
      '@article{inner, title={fake}} inside a title',
      'Comma, equals = sign, "quote" and \' apostrophe',
    ];
    for (const title of hostile) assertRoundTrip({ title });
  });

  it('writes non-ASCII and hostile names so they read back as the same parts', () => {
    const authors = [
      'Jürgen Sandkühler',
      'Kai Øster',
      'Łukasz Nowak',
      '李明',
      '田中 裕子',
      'Иван Иванов',
      'محمد علي',
      'Jan van der Berg',
      'Ludwig von Beethoven',
      'Sandkühler, Jürgen',
      'de la Cruz, Maria',
      'WHO Study Group',
      'Smith & Sons',
      'Anderson and Partners Consortium',
      'Rūta Müller-Lüdenscheidt',
      'Madonna',
      "Jean-Pierre O'Brien",
      'Ñúñez, Kwame',
      'Søren Gonçalves',
      'Noémie Żukowski',
      'Ελένη Παπαδοπούλου',
      'An Nguyễn',
      'Zoë Ørsted-Łęcka',
    ];
    assertRoundTrip({ authors, title: 'T' });
  });

  it('writes URLs and DOIs with %, #, _ and ~ as they are (what \\url and Biber read as the character); braces, backslashes and spaces percent-encoded', () => {
    assertRoundTrip({ url: 'https://example.org/a_b%20c?q=1&r=2#frag~x', doi: '10.1000/A_B%C<>#{}' });
    assertRoundTrip({
      url: 'https://example.org/100%_sure',
      doi: 'https://doi.org/10.1002/(SICI)1097-4636(199706)35:4<481::AID-JBM9>3.0.CO;2-F',
    });
    assert.equal(escapeVerbatim('https://x.org/a b{c}\\%#'), 'https://x.org/a%20b%7Bc%7D%5C%#');
    assert.equal(
      unescapeVerbatim('10.1000/a\\%b\\#c'),
      '10.1000/a%b#c',
      'entries written with \\% and \\# (by other tools, or by earlier versions) still read',
    );
    assert.match(toBibtex({ doi: 'doi:10.1/ABC' }, 'k'), /doi = \{10\.1\/abc\}/u);
    assert.doesNotMatch(toBibtex({ url: 'javascript:alert(1)' }, 'k'), /url/u, 'only http(s) addresses');
  });

  it('refuses keys BibTeX cannot read', () => {
    for (const bad of ['', 'a b', 'a,b', 'a{b', 'a}', 'a%b', 'a#b', 'a\\b', 'a~b', "a'b", 'a=b', 'a"b', 'a(b)'])
      assert.throws(() => toBibtex({ title: 'T' }, bad), RangeError, bad);
    assert.ok(isValidKey('sandkuhler2023creatine'));
    assert.ok(isValidKey('Smith_2020:a-b.c'));
  });

  it('writes nothing for absent fields and still produces a valid entry for an empty paper', () => {
    const e = toBibtex({}, 'anon');
    assert.equal(e, '@misc{anon,\n\n}');
    assert.deepEqual(bibtexLibrary().parse(e).errors, []);
  });

  it('round-trips 500 papers of the emulator corpus (titles, authors, journals, publishers, URLs, DOIs)', function () {
    this.timeout(60000);
    const corpus = getCorpus(5000).slice(0, 500);
    for (const p of corpus) {
      const { id: _id, ...paper } = corpusCitePaper(p);
      assertRoundTrip(paper, `key${p.index}`);
    }
  });

  it('round-trips the corpus papers with the most hostile titles and names', function () {
    this.timeout(60000);
    const corpus = getCorpus(5000);
    const hostile = corpus
      .filter((p) => /[&%$#_{}~^\\]/u.test(p.title) || p.authors.some((a) => /[^\x20-\x7e]/u.test(a)))
      .slice(0, 400);
    assert.ok(hostile.length >= 100, `enough hostile papers (${hostile.length})`);
    for (const p of hostile)
      assertRoundTrip({ title: p.title, authors: p.authors, journal_name: p.journal }, `h${p.index}`);
  });

  it('round-trips 800 random titles drawn from specials, ligature characters, accents and eight scripts', () => {
    const rnd = prng(7);
    const pool = [...'&%$#_{}~^\\"\'`-<>,!?@=()[]|/.;:*+ abcXYZ019 éüøłßñçåæœễ李明Иваβαγδ محمд日本한\t\n–—“”‘’…€°±×'];
    let checked = 0;
    for (let i = 0; i < 800; i++) {
      let t = '';
      const len = 1 + Math.floor(rnd() * 30);
      for (let j = 0; j < len; j++) t += pool[Math.floor(rnd() * pool.length)];
      if (!squash(t)) continue;
      for (const protectTitle of ['capitals', 'acronyms', 'all'] as const)
        assert.equal(
          parseBack(toBibtex({ title: t }, 'k', { protectTitle }))['title'],
          squash(t).normalize('NFC'),
          JSON.stringify(t),
        );
      checked++;
    }
    assert.ok(checked > 750);
  });
});
