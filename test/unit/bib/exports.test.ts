/**
 * The exports (BibTeX, RIS, CSL-JSON) on the emulator's papers covering every hostile form of its corpus and on
 * hand-made hostile text: RIS held to the specification's tag rules and parsed back by citation.js's RIS reader (the
 * parser of a maintained citation library: no RIS reader is packaged for Debian), CSL-JSON parsed back as JSON and
 * checked field by field, BibTeX equal to what Insert Citation writes and read back by the BibTeX library. pandoc
 * reads the CSL-JSON and BibTeX files in test/toolchains/exports.test.ts.
 */
import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { toBibtex } from '../../../src/bib/bibtex';
import { cslJsonFile, toCsl, type CslItem, type CslName } from '../../../src/bib/cslJson';
import { exportKeys, exportPapers, type ExportablePaper } from '../../../src/bib/exportPapers';
import { citeKey } from '../../../src/bib/keys';
import { bibtexLibrary, loadBibtexLibrary } from '../../../src/bib/library';
import { parseName } from '../../../src/bib/names';
import { RIS_LINE, risValue, toRis } from '../../../src/bib/ris';
import { coverageSample } from '../../emulator/coverage';
import { corpusCitePaper } from './corpusPaper';

interface CitationJs {
  plugins: { input: { chain(data: string, options: { forceType: string }): Record<string, unknown>[] } };
}
const citationJs = ((): CitationJs => {
  const req = createRequire(__filename);
  const core = req('@citation-js/core') as CitationJs;
  req('@citation-js/plugin-ris');
  return core;
})();

/** RIS text as citation.js reads it: one CSL object per record. */
const readRis = (text: string): Record<string, unknown>[] =>
  citationJs.plugins.input.chain(text, { forceType: '@ris/file' }).map((x) => {
    const { _graph: _, ...rest } = x;
    return rest;
  });

/** The specification's reference types (RIS Format Specifications, "Reference Type field names"). */
const SPEC_TYPES = new Set(
  'ABST ADVS ART BILL BOOK CASE CHAP COMP CONF CTLG DATA ELEC GEN HEAR ICOMM INPR JFULL JOUR MAP MGZN MPCT MUSIC NEWS PAMP PAT PCOMM RPRT SER SLIDE SOUND STAT THES UNBILL UNPB VIDEO'.split(
    ' ',
  ),
);

/**
 * Every rule of the specification a file can break: lines end with CR LF and hold a tag (letter, letter or digit, two
 * spaces, hyphen, space) or nothing between records; a record starts with `TY  - ` and a known type and ends with
 * `ER  - `; no asterisk in author, keyword or periodical names; no control character. Returns the records' lines.
 */
function checkRisSpec(text: string): string[][] {
  assert.ok(!text.startsWith('\ufeff'), 'no byte-order mark');
  assert.ok(!/\r(?!\n)|(?<!\r)\n/u.test(text), 'every line ends with CR LF');
  // eslint-disable-next-line no-control-regex
  assert.ok(!/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/u.test(text), 'no control character');
  const records: string[][] = [];
  let open: string[] | undefined;
  for (const line of text.split('\r\n').slice(0, -1)) {
    if (line === '') {
      assert.equal(open, undefined, 'no blank line inside a record');
      continue;
    }
    assert.match(line, RIS_LINE, 'a tag line');
    const tag = line.slice(0, 2);
    const value = line.slice(6);
    if (tag === 'TY') {
      assert.equal(open, undefined, 'TY opens a record only after the previous one ended');
      assert.ok(SPEC_TYPES.has(value), `type ${value}`);
      open = [line];
      continue;
    }
    assert.ok(open, `${line}: inside a record`);
    open.push(line);
    if (tag === 'ER') {
      assert.equal(value, '', 'ER has no value');
      records.push(open);
      open = undefined;
      continue;
    }
    assert.ok(value.trim() === value && value !== '', `${line}: a trimmed, non-empty value`);
    assert.ok(!value.includes('  - '), `${line}: no tag separator inside a value`);
    if (['AU', 'A1', 'KW', 'T2', 'JO', 'JF', 'JA'].includes(tag)) assert.ok(!value.includes('*'), `${line}: no *`);
  }
  assert.equal(open, undefined, 'the last record is closed');
  return records;
}

/** Hand-made papers with what service text may hold that breaks files: line breaks, tag-like text, braces… */
const HOSTILE: ExportablePaper[] = [
  {
    title: 'A title\nER  - that ends a record\r\nTY  - JOUR and opens one\u2028with\u2029separators\u0085and NEL',
    authors: ['Ángel de la Cruz', 'A*Star Person', 'World Health Organization, Geneva', 'Martin Luther King Jr.'],
    journal_name: 'Journal *of*  Things\n',
    publish_year: 2018,
    publish_date: '2018-01-21',
    volume: '24',
    pages: '211–215',
    doi: 'https://doi.org/10.1296/X.2018',
    url: 'https://consensus.app/papers/a b\nc/1/',
    abstract: 'Paragraph one.\n\nER  - \nParagraph two  -  with\ttabs.',
    study_type: 'rct',
    takeaway: 'Works\r\nER  - really.',
  },
  {
    title: '{Braces} } { \\textbf{x} "quotes" <i>tags</i> & ampersands $math$ % # ~ ^ _ \u0000nul \ud800lone \u202eRTL',
    authors: ['田中 裕子', 'Иван Иванов', 'Ελένη Παπαδοπούλου', '\u0007Bell Ringer'],
    journal_name: 'J & K',
    publish_year: 2021,
    pages: 'e0123',
  },
  { title: 'A preprint', authors: ['Zoë Ørsted'], journal_name: 'medRxiv', publish_year: 2025, is_preprint: true },
  { title: 'No venue, no year, no authors' },
  { title: '', authors: [], doi: 'not a doi', url: 'javascript:alert(1)' },
];

const corpus = (): ExportablePaper[] =>
  coverageSample(300).papers.map(({ paper: p }) => ({
    ...corpusCitePaper(p),
    abstract: p.abstract,
    study_type: p.studyType,
    takeaway: p.takeaway,
  }));

/** A CSL name as one string, the way the RIS reader joins a particle into the family name. */
const nameText = (n: CslName | Record<string, unknown>): string => {
  const r = n as Record<string, string | undefined>;
  if (r.literal) return r.literal;
  return [r.given, r['non-dropping-particle'] ?? r['dropping-particle'], r.family].filter(Boolean).join(' ');
};

describe('bib/exports: RIS', () => {
  it('every record of the corpus and of hostile text keeps to the specification', () => {
    const papers = [...corpus(), ...HOSTILE];
    const records = checkRisSpec(exportPapers(papers, 'ris'));
    assert.equal(records.length, papers.length);
    assert.ok(records.every((r) => r.filter((l) => l.startsWith('TY  - ')).length === 1));
  });

  it('citation.js reads back every record: type, title, authors, year, venue, volume, pages, DOI, URL, abstract', () => {
    const papers = [...corpus(), ...HOSTILE];
    const read = readRis(exportPapers(papers, 'ris'));
    assert.equal(read.length, papers.length, 'one record per paper: no text started or ended a record');
    const problems: string[] = [];
    papers.forEach((p, i) => {
      const want = toCsl(p, 'x');
      const got = read[i]!;
      const check = (field: string, expected: unknown, actual: unknown): void => {
        if (JSON.stringify(expected) !== JSON.stringify(actual))
          problems.push(`${i} ${field}: ${JSON.stringify(actual)} for ${JSON.stringify(expected)}`);
      };
      check('title', want.title, got.title);
      // The RIS reader has no particle: "de la Cruz" comes back as the family name.
      check(
        'authors',
        (want.author ?? []).map((n) => risValue(nameText(n).replace(/[*,]/gu, ' '))),
        ((got.author as Record<string, unknown>[] | undefined) ?? []).map((n) => risValue(nameText(n))),
      );
      check('year', want.issued?.['date-parts'][0][0], (got.issued as CslItem['issued'])?.['date-parts'][0][0]);
      check(
        'venue',
        want['container-title']?.replace(/\*/gu, ' ').replace(/\s+/gu, ' ').trim(),
        got['container-title'],
      );
      check('volume', want.volume, got.volume);
      check('pages', want.page, got.page);
      check('DOI', want.DOI, got.DOI);
      check('URL', want.URL, got.URL);
      check('abstract', want.abstract, got.abstract);
      check(
        'type',
        { JOUR: 'article-journal', UNPB: 'manuscript', GEN: 'document' }[toRis(p).slice(6, 10).trim()],
        got.type,
      );
    });
    assert.deepEqual(problems.slice(0, 20), []);
  });

  it('hostile text stays inside its field: a line break or `ER  - ` in a title, abstract or takeaway', () => {
    const text = exportPapers(HOSTILE, 'ris');
    const first = checkRisSpec(text)[0]!;
    assert.equal(
      first.find((l) => l.startsWith('TI  - ')),
      'TI  - A title ER - that ends a record TY - JOUR and opens one with separators and NEL',
    );
    assert.equal(
      first.find((l) => l.startsWith('N1  - ')),
      'N1  - Works ER - really.',
    );
    assert.equal(
      first.find((l) => l.startsWith('UR  - ')),
      'UR  - https://consensus.app/papers/a%20b%0Ac/1/',
    );
    assert.deepEqual(
      first.filter((l) => l.startsWith('AU  - ')),
      [
        'AU  - de la Cruz, Ángel',
        'AU  - Person, A Star',
        'AU  - World Health Organization Geneva',
        'AU  - King, Martin Luther, Jr.',
      ],
    );
    assert.equal(
      first.find((l) => l.startsWith('T2  - ')),
      'T2  - Journal of Things',
    );
    assert.equal(
      first.find((l) => l.startsWith('DA  - ')),
      'DA  - 2018/01/21/',
    );
    assert.deepEqual(
      first.filter((l) => /^(SP|EP|DO|KW)/u.test(l)),
      ['SP  - 211', 'EP  - 215', 'DO  - 10.1296/x.2018', 'KW  - rct'],
    );
    const second = checkRisSpec(text)[1]!;
    assert.equal(
      second.find((l) => l.startsWith('TI  - ')),
      'TI  - {Braces} } { \\textbf{x} "quotes" <i>tags</i> & ampersands $math$ % # ~ ^ _ nul lone \u202eRTL',
    );
    assert.ok(second.includes('AU  - Ringer, Bell'), 'a control character in a name is dropped');
    assert.ok(second.includes('SP  - e0123') && !second.some((l) => l.startsWith('EP')), 'an article number');
    const last = checkRisSpec(text)[4]!;
    assert.deepEqual(last, ['TY  - GEN', 'ER  - '], 'an empty title, a bad DOI and a javascript: URL are left out');
  });

  it('types: JOUR in a journal, UNPB for a preprint, GEN without a venue; keywords and notes as given', () => {
    assert.match(toRis(HOSTILE[0]!), /^TY {2}- JOUR\r\n/u);
    assert.match(toRis(HOSTILE[2]!), /^TY {2}- UNPB\r\n/u);
    assert.match(toRis(HOSTILE[3]!), /^TY {2}- GEN\r\n/u);
    const r = exportPapers([HOSTILE[0]!], 'ris', { studyTypeLabel: (s) => (s === 'rct' ? 'Randomized *trial*' : s) });
    assert.match(r, /\r\nKW {2}- Randomized trial\r\n/u);
    assert.equal(risValue(' a \n\t b '), 'a b');
  });
});

describe('bib/exports: CSL-JSON', () => {
  it('is JSON whose items hold the service text on one line, ids the BibTeX keys', () => {
    const papers = [...corpus(), ...HOSTILE];
    const text = exportPapers(papers, 'csl-json');
    const items = JSON.parse(text) as CslItem[];
    assert.equal(items.length, papers.length);
    assert.deepEqual(
      items.map((i) => i.id),
      exportKeys(papers),
    );
    assert.equal(new Set(items.map((i) => i.id)).size, items.length, 'ids are distinct');
    for (const item of items)
      for (const v of Object.values(item))
        if (typeof v === 'string')
          assert.ok(
            // eslint-disable-next-line no-control-regex
            !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udfff]/u.test(
              v.replace(/[\ud800-\udbff][\udc00-\udfff]/gu, ''),
            ),
            v,
          );
  });

  it('fields: names with particles and organisations, dates, pages, DOI, types', () => {
    const [a, b, c, d, e] = HOSTILE.map((p, i) => toCsl(p, `k${i}`));
    assert.deepEqual(a!.author, [
      { family: 'Cruz', given: 'Ángel', 'non-dropping-particle': 'de la' },
      { family: 'Person', given: 'A*Star' },
      { literal: 'World Health Organization, Geneva' },
      { family: 'King', given: 'Martin Luther', suffix: 'Jr.' },
    ]);
    assert.equal(a!.type, 'article-journal');
    assert.deepEqual(a!.issued, { 'date-parts': [[2018, 1, 21]] });
    assert.equal(a!.page, '211-215');
    assert.equal(a!.DOI, '10.1296/x.2018');
    assert.equal(a!.URL, 'https://consensus.app/papers/a%20b%0Ac/1/');
    assert.equal(a!['container-title'], 'Journal *of* Things');
    assert.deepEqual(b!.author, [
      { literal: '田中 裕子' },
      { family: 'Иванов', given: 'Иван' },
      { family: 'Παπαδοπούλου', given: 'Ελένη' },
      { family: 'Ringer', given: 'Bell' },
    ]);
    assert.equal(c!.type, 'article');
    assert.equal(c!.publisher, 'medRxiv');
    assert.equal(c!['container-title'], undefined);
    assert.equal(d!.type, 'document');
    assert.deepEqual(e, { id: 'k4', type: 'document' });
    assert.equal(cslJsonFile([]), '[]\n');
  });
});

describe('bib/exports: BibTeX', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('writes the entries Insert Citation writes, with the keys it would give, and the library reads them all', () => {
    const papers = [...corpus(), ...HOSTILE];
    const text = exportPapers(papers, 'bibtex', { keyScheme: '{author}_{year}', protectTitle: 'acronyms' });
    const used: string[] = [];
    const expected = papers.map((p) => {
      const key = citeKey(p, used, '{author}_{year}');
      used.push(key);
      return toBibtex(p, key, { protectTitle: 'acronyms', target: 'tex' });
    });
    assert.equal(text, `${expected.join('\n\n')}\n`);
    const lib = bibtexLibrary().parse(text);
    assert.deepEqual(lib.errors, []);
    assert.deepEqual(
      lib.entries.map((e) => e.key),
      used,
    );
    assert.equal(exportPapers([], 'bibtex'), '');
  });

  it('one paper has one key in the BibTeX and CSL-JSON exports', () => {
    const papers = corpus().slice(0, 50);
    const ids = (JSON.parse(exportPapers(papers, 'csl-json')) as CslItem[]).map((i) => i.id);
    const keys = [...exportPapers(papers, 'bibtex').matchAll(/^@\w+\{([^,]+),/gmu)].map((m) => m[1]);
    assert.deepEqual(ids, keys);
    assert.equal(parseName('de la Cruz, Ángel').particle, 'de la');
  });
});
