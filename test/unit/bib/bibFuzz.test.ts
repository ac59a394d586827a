/**
 * Fuzz of the .bib reader and editor: real-world-like files (entries written by this extension for emulator corpus
 * papers, JabRef and Zotero styles with @string, @preamble, @comment, crossref, quoted and concatenated values) are
 * mutated with a seeded PRNG (CRLF, lone CR, BOM, Latin-1 bytes, NUL, unbalanced braces and quotes, directives,
 * entries cut short, truncation at every kind of point, 5 MB lines) and every input goes through what the editor
 * does with a .bib: decode, parse, decode the fields of entries (hover), find a paper, append a new entry, tidy.
 *
 * Asserted for each input: nothing throws; the input is handled within a bound of CPU time per MB (no hang); an append
 * is either byte-exact (the file after = the file before + exactly the appended text, and two independent readers
 * modelled on BibTeX and Biber see every entry they saw before plus the new one, last) or refused with a reason that
 * holds; a tidied text keeps every entry it keeps byte for byte. Hostile papers (braces, backslashes, `@`, NUL, lone
 * CR) are appended too. The number of inputs and the slowest time per MB are printed.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeLossy, decodeUtf8 } from '../../../src/bib/bibBytes';
import { appendBlocker, appendToUtf8, ensureEntry } from '../../../src/bib/bibAppend';
import { entryDoi, entryFields, entryToPaper, findEntry } from '../../../src/bib/bibEntry';
import { entryKeys, parseBibFile } from '../../../src/bib/bibFile';
import { tidyBibliography } from '../../../src/bib/bibTidy';
import { toBibtex, type CitablePaper } from '../../../src/bib/bibtex';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { getCorpus, prng } from '../../emulator/corpus';
import { corpusCitePaper } from './corpusPaper';

const SEED = 20260301;
const MB = 1 << 20;
/** Generous: a linear pass over a hostile input takes milliseconds per MB; a hang or a quadratic scan blows it. */
const BUDGET_MS = (bytes: number): number => 3000 + 2000 * (bytes / MB);

type Rng = () => number;
const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const int = (r: Rng, n: number): number => Math.floor(r() * n);

// ----------------------------------------------------------------------------------------------- real-world-like files

const JABREF = `% This file was created with JabRef 5.9.
% Encoding: UTF-8

@String{jcp = {Journal of Chemical Physics}}
@STRING{ pr = "Physical Review" }

@Preamble{ "\\newcommand{\\noopsort}[1]{}" # "\\newcommand{\\printfirst}[2]{#1}" }

@Article{Smith2019,
  author    = {Smith, John and M{\\"u}ller, Hans and {World Health Organization}},
  journal   = jcp,
  title     = {On the {DNA} of \\emph{things}: a 50\\% improvement},
  year      = {2019},
  month     = jan,
  volume    = {150},
  number    = {3},
  pages     = {034101--034110},
  doi       = {10.1063/1.5086932},
  url       = {https://doi.org/10.1063/1.5086932},
  file      = {:C\\:/Users/me/papers/smith.pdf:PDF},
  groups    = {physics, to-read},
}

@InProceedings{Lee2020a,
  author    = "Lee, Min-Jun and O'Neil, Siobh{\\'a}n",
  booktitle = pr # " Letters",
  title     = "Quoted {"}titles{"} and \\& ampersands",
  year      = 2020,
  crossref  = {Conf2020},
}

@Proceedings{Conf2020,
  title     = {Proceedings of the Conference},
  year      = {2020},
  editor    = {Doe, Jane},
}

@Comment{jabref-meta: databaseType:bibtex;}

@Comment{jabref-meta: grouping:
0 AllEntriesGroup:;
1 StaticGroup:physics\\;0\\;1\\;\\;\\;\\;;
}
`;

const ZOTERO = `
@article{garcia_dna_2022,
	title = {{DNA} methylation in {mRNA} vaccines},
	volume = {40},
	issn = {0264-410X},
	url = {https://www.sciencedirect.com/science/article/pii/S0264410X22000001},
	doi = {10.1016/j.vaccine.2022.01.001},
	abstract = {We report … “smart quotes”, – dashes – and emoji 🧬 in an abstract.},
	language = {en},
	number = {2},
	urldate = {2023-05-01},
	journal = {Vaccine},
	author = {García, María and 李, 小龍 and Иванов, Иван},
	month = jan,
	year = {2022},
	keywords = {mRNA, DNA},
	pages = {123--130},
	file = {Full Text:/home/me/Zotero/storage/ABCD1234/garcia.pdf:application/pdf},
}

@misc{noauthor_website_nodate,
	title = {A website},
	url = {https://example.org/a_b%20c#frag},
	note = {Accessed: 2024-01-01},
}

@book{knuth_texbook_1984,
	address = {Reading, Mass},
	title = {The {TeX}book},
	isbn = {978-0-201-13447-6},
	publisher = {Addison-Wesley},
	author = {Knuth, Donald E.},
	year = {1984},
}
`;

function corpusFile(r: Rng, papers: readonly CitablePaper[], n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(toBibtex(pick(r, papers), `c${i}`));
  return parts.join('\n\n') + '\n';
}

// ------------------------------------------------------------------------------------------------------- mutations

const enc = (s: string): Buffer => Buffer.from(s, 'utf8');

/**
 * Positions where a cut is a different kind of damage: after `@`, in a type, after `{`, in a key, after `=`, inside
 * values, inside a UTF-8 sequence, between CR and LF…
 */
function interestingCuts(bytes: Buffer): number[] {
  const cuts = new Set<number>([0, bytes.length]);
  const text = bytes.toString('latin1');
  for (const re of [/@/gu, /[{(]/gu, /,/gu, /=/gu, /"/gu, /#/gu, /\}/gu, /\r/gu, /\n/gu, /[\xc0-\xff]/gu]) {
    for (const m of text.matchAll(re)) {
      cuts.add(m.index);
      cuts.add(m.index + 1);
    }
  }
  return [...cuts].filter((c) => c <= bytes.length).sort((a, b) => a - b);
}

const SNIPPETS = [
  '@string{x = "unclosed',
  '@string{y = {ok}}',
  '@preamble{"\\foo"}',
  '@preamble{ {unclosed ',
  '@comment{ {nested} }',
  '@comment{ open ',
  '@comment( x ) ',
  '@article{',
  '@article{key,',
  '@misc{dup, title = {d}}',
  '{',
  '}',
  '}}}',
  '"',
  '#',
  '@',
  '@@',
  '%',
  '\\',
  '\u0000',
  '\r',
  '\r\n',
  '\n',
  '\ufeff',
  '\u2028',
  '\u0085',
  'title = {',
  'author = "',
  ' = ',
  ',,',
  '@misc(paren, title = {p})',
  '@misc(paren2, title = {p}',
  '@Comment{jabref-meta: x;}',
  '@my.type{weird, t = {w}}',
];

type Mutation = (r: Rng, b: Buffer) => Buffer;
const insertAt = (b: Buffer, at: number, ins: Buffer): Buffer =>
  Buffer.concat([b.subarray(0, at), ins, b.subarray(at)]);

const MUTATIONS: [string, Mutation][] = [
  ['all CRLF', (_r, b) => Buffer.from(b.toString('latin1').replace(/\r?\n/gu, '\r\n'), 'latin1')],
  [
    'mixed line breaks',
    (r, b) =>
      Buffer.from(
        b.toString('latin1').replace(/\n/gu, () => pick(r, ['\n', '\r\n', '\r', '\n'])),
        'latin1',
      ),
  ],
  ['a lone CR inside an entry', (r, b) => insertAt(b, int(r, b.length + 1), Buffer.from('\r'))],
  ['BOM', (_r, b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b])],
  [
    'Latin-1 bytes',
    (r, b) =>
      insertAt(
        b,
        int(r, b.length + 1),
        Buffer.from(pick(r, ['M\xfcller', '\xe9', '\xc5ngstr\xf6m', '\xff']), 'latin1'),
      ),
  ],
  ['NUL', (r, b) => insertAt(b, int(r, b.length + 1), Buffer.from([0]))],
  ['a snippet', (r, b) => insertAt(b, int(r, b.length + 1), enc(pick(r, SNIPPETS)))],
  [
    'a brace removed',
    (r, b) => {
      const at = [...b.keys()].filter((i) => b[i] === 0x7d || b[i] === 0x7b);
      if (!at.length) return b;
      const i = pick(r, at);
      return Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
    },
  ],
  [
    'a quote removed',
    (r, b) => {
      const at = [...b.keys()].filter((i) => b[i] === 0x22);
      if (!at.length) return b;
      const i = pick(r, at);
      return Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
    },
  ],
  [
    'the last closing brace removed',
    (_r, b) => {
      const i = b.lastIndexOf(0x7d);
      return i < 0 ? b : Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
    },
  ],
  ['truncated at an interesting point', (r, b) => b.subarray(0, pick(r, interestingCuts(b)))],
  ['truncated anywhere', (r, b) => b.subarray(0, int(r, b.length + 1))],
  [
    'a slice duplicated',
    (r, b) => {
      const s = int(r, b.length + 1);
      const e = Math.min(b.length, s + int(r, 400));
      return insertAt(b, int(r, b.length + 1), b.subarray(s, e));
    },
  ],
  [
    'a slice deleted',
    (r, b) => {
      const s = int(r, b.length + 1);
      return Buffer.concat([b.subarray(0, s), b.subarray(Math.min(b.length, s + int(r, 200)))]);
    },
  ],
];

// ------------------------------------------------------------------------------------------- independent readers

/**
 * The keys BibTeX defines, modelled independently of the parser under test on bibtex.web's top level: text between
 * entries is ignored, `@comment` is skipped without reading braces, an entry's body runs to the delimiter that
 * balances its braces, and a body that never balances swallows the rest of the file. `biber`: `@comment{…}` is read
 * with balanced braces (an unclosed one swallows the rest) and a `"` outside braces opens a string that runs to the
 * next one.
 */
function readerKeys(text: string, biber: boolean): string[] {
  const keys: string[] = [];
  const head = /@[ \t\r\n]*([^\s"#%'(),={}@\\]+)[ \t\r\n]*([{(])/y;
  for (let i = text.indexOf('@'); i >= 0 && i < text.length;) {
    head.lastIndex = i;
    const m = head.exec(text);
    if (!m) {
      i = text.indexOf('@', i + 1);
      continue;
    }
    const type = m[1]!.toLowerCase();
    const body = head.lastIndex;
    if (type === 'comment' && !biber) {
      i = text.indexOf('@', i + 1);
      continue;
    }
    const close = m[2] === '{' ? '}' : ')';
    let depth = 0;
    let quoted = false;
    let end = -1;
    for (let j = body; j < text.length; j++) {
      const c = text[j];
      if (biber && type !== 'comment' && c === '"' && depth === 0) quoted = !quoted;
      else if (c === '{') depth++;
      else if (c === '}' && depth > 0) depth--;
      else if (c === close && depth === 0 && !quoted) {
        end = j;
        break;
      }
    }
    if (end < 0) break;
    if (type !== 'comment' && type !== 'string' && type !== 'preamble') {
      const key = /^\s*([^\s,{}()"#%'=\\~]+)/u.exec(text.slice(body, Math.min(end, body + 200)))?.[1];
      if (key) keys.push(key);
    }
    i = text.indexOf('@', end + 1);
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------------------- papers

const HOSTILE_STRINGS = [
  '{',
  '}',
  '}{',
  '\\',
  '\\}',
  '@misc{x,',
  '"',
  '%',
  '#',
  '~',
  '$',
  '&',
  '_',
  '^',
  '\u0000',
  '\r',
  '\n\n',
  '\u2028',
  '\ufeff',
  '\ud800',
  '@',
  '}\n@article{y,',
  '\\end{document}',
];

function hostilePaper(r: Rng, base: CitablePaper): CitablePaper {
  const mess = (s: string | null | undefined): string =>
    `${s ?? ''}${pick(r, HOSTILE_STRINGS)}${pick(r, HOSTILE_STRINGS)}`;
  return {
    ...base,
    title: mess(base.title),
    authors: (base.authors ?? ['A B']).map((a) => (r() < 0.5 ? mess(a) : a)),
    journal_name: mess(base.journal_name),
    volume: mess(base.volume),
    pages: mess(base.pages),
    url: r() < 0.5 ? `https://x.org/${pick(r, HOSTILE_STRINGS)}` : base.url,
    doi: r() < 0.5 ? `10.1/${pick(r, HOSTILE_STRINGS)}x` : base.doi,
  };
}

// ----------------------------------------------------------------------------------------------------------- suite

interface Stats {
  inputs: number;
  appended: number;
  refusedEncoding: number;
  refusedBlocked: number;
  tidied: number;
  /** The slowest input (small ones are dominated by fixed costs: the library's first decoding of a character). */
  slowestMs: number;
  slowestInput: string;
  /** The slowest time per MB among inputs of 1 MB or more. */
  slowestMsPerMb: number;
  slowestPerMb: string;
}

/** Everything the editor does with one .bib, with the assertions of the file comment. */
function exercise(bytes: Buffer, paper: CitablePaper, what: string, stats: Stats): void {
  try {
    exerciseOnce(bytes, paper, what, stats);
  } catch (err) {
    // BIB_FUZZ_DUMP=dir keeps the failing input and paper, to be read or replayed.
    const dir = process.env.BIB_FUZZ_DUMP;
    if (dir)
      writeFileSync(
        join(dir, `bibfuzz-${stats.inputs}.json`),
        JSON.stringify({ what, bytes: bytes.toString('base64'), paper }),
      );
    throw err;
  }
}

function exerciseOnce(bytes: Buffer, paper: CitablePaper, what: string, stats: Stats): void {
  // Only what the editor does is timed (CPU time: other processes on a busy machine do not count); the checks are not.
  let ms = 0;
  const timed = <T>(run: () => T): T => {
    const t0 = process.cpuUsage();
    try {
      return run();
    } finally {
      const t = process.cpuUsage(t0);
      ms += (t.user + t.system) / 1000;
    }
  };
  const read = timed(() => decodeUtf8(bytes));
  const text = read.ok ? read.text : timed(() => decodeLossy(bytes));
  const file = timed(() => parseBibFile(text));
  // Hover, Copy Reference, title comparison on a few entries.
  timed(() => {
    for (const e of [file.entries[0], file.entries[file.entries.length >> 1], file.entries.at(-1)]) {
      if (!e) continue;
      entryFields(file, e);
      entryToPaper(file, e);
    }
    findEntry(file, paper);
  });
  const ensured = timed(() => ensureEntry(file, paper));
  assert.ok(
    !entryKeys(file).some((k) => k.toLowerCase() === ensured.key.toLowerCase()) || ensured.existing,
    `${what}: key ${ensured.key} handed out again`,
  );
  const entryText = ensured.entryText ?? toBibtex(paper, ensured.key);
  const result = timed(() => appendToUtf8(bytes, entryText, read.ok ? file : undefined));
  if (result.ok) {
    stats.appended++;
    const tail = Buffer.from(result.bytes.subarray(bytes.length));
    assert.ok(
      Buffer.from(result.bytes.subarray(0, bytes.length)).equals(bytes),
      `${what}: a byte before the end changed`,
    );
    assert.equal(tail.toString('utf8'), result.appended, `${what}: the bytes appended are not the text appended`);
    assert.ok(
      // eslint-disable-next-line no-control-regex
      !/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/u.test(result.appended),
      `${what}: a control character was written`,
    );
    const after = decodeUtf8(result.bytes);
    assert.ok(after.ok, `${what}: the file is no longer UTF-8`);
    // Our parser, BibTeX and Biber each read what they read before, plus the new entry, last.
    assert.deepEqual(
      parseBibFile(after.text).entries.map((e) => e.key),
      [...file.entries.map((e) => e.key), ensured.key],
      `${what}: parse`,
    );
    for (const biber of [false, true])
      assert.deepEqual(
        readerKeys(after.text, biber),
        [...readerKeys(text, biber), ensured.key],
        `${what}: ${biber ? 'Biber' : 'BibTeX'} does not read the new entry last`,
      );
  } else if (result.reason === 'encoding') {
    stats.refusedEncoding++;
    assert.equal(read.ok, false, `${what}: refused a UTF-8 file`);
  } else {
    stats.refusedBlocked++;
    assert.ok(appendBlocker(file), `${what}: refused without a blocker`);
    assert.match(result.blocked.message, /line \d+/u);
  }
  const tidy = timed(() =>
    tidyBibliography(
      text,
      file.entries.slice(0, 3).map((e) => e.key),
    ),
  );
  if (tidy.text !== undefined) {
    stats.tidied++;
    // Every entry kept is in the tidied text as it was written, nothing else is an entry there, and the entries left
    // out are the ones reported removed. Entries are matched by text and a removed one by key and DOI, not by key
    // alone: a damaged file may hold two entries with one key, of which tidy removes one.
    const left = file.entries.map((e) => ({
      text: text.slice(e.start, e.end),
      id: `${e.key}\u0000${entryDoi(e) ?? ''}`,
    }));
    const tidied = parseBibFile(tidy.text);
    for (const e of tidied.entries) {
      const i = left.findIndex((x) => x.text === tidy.text!.slice(e.start, e.end));
      assert.ok(i >= 0, `${what}: tidy changed or lost an entry (${e.key} is not an entry of the input as written)`);
      left.splice(i, 1);
    }
    assert.deepEqual(
      left.map((x) => x.id).sort(),
      tidy.removed.map((x) => `${x.key}\u0000${x.doi}`).sort(),
      `${what}: tidy changed or lost an entry`,
    );
  }
  const mb = bytes.length / MB;
  if (ms > stats.slowestMs) {
    stats.slowestMs = ms;
    stats.slowestInput = `${what}, ${bytes.length} bytes`;
  }
  if (mb >= 1 && ms / mb > stats.slowestMsPerMb) {
    stats.slowestMsPerMb = ms / mb;
    stats.slowestPerMb = what;
  }
  assert.ok(ms < BUDGET_MS(bytes.length), `${what}: ${ms.toFixed(0)} ms for ${bytes.length} bytes`);
  stats.inputs++;
}

describe('bib/bibFile fuzz (seeded): mutated real-world .bib files through decode, parse, hover, append and tidy', function () {
  this.timeout(300_000);
  const stats: Stats = {
    inputs: 0,
    appended: 0,
    refusedEncoding: 0,
    refusedBlocked: 0,
    tidied: 0,
    slowestMs: 0,
    slowestInput: '',
    slowestMsPerMb: 0,
    slowestPerMb: '',
  };
  let papers: CitablePaper[] = [];
  let bases: [string, Buffer][] = [];

  before(async () => {
    await loadBibtexLibrary();
    papers = getCorpus(400).map(corpusCitePaper);
    const r = prng(SEED);
    bases = [
      ['JabRef', enc(JABREF)],
      ['Zotero', enc(ZOTERO)],
      ['corpus', enc(corpusFile(r, papers, 40))],
      ['corpus, CRLF', enc(corpusFile(r, papers, 20).replace(/\n/gu, '\r\n'))],
      ['mixed tools', enc(JABREF + ZOTERO + corpusFile(r, papers, 10))],
    ];
  });

  after(() => {
    console.log(
      `      ${stats.inputs} inputs: ${stats.appended} appended byte for byte, ${stats.refusedBlocked} refused (something unclosed), ${stats.refusedEncoding} refused (not UTF-8), ${stats.tidied} tidied; ` +
        `slowest per MB (inputs of 1 MB or more) ${stats.slowestMsPerMb.toFixed(0)} ms (${stats.slowestPerMb}); slowest input ${stats.slowestMs.toFixed(0)} ms (${stats.slowestInput})`,
    );
  });

  it('single mutations of each kind', () => {
    const r = prng(SEED + 1);
    for (const [base, bytes] of bases)
      for (const [name, mutate] of MUTATIONS)
        for (let i = 0; i < 10; i++) exercise(mutate(r, bytes), pick(r, papers), `${base} / ${name} #${i}`, stats);
  });

  it('truncation at every interesting point of a file', () => {
    const r = prng(SEED + 2);
    const bytes = enc(JABREF + ZOTERO);
    for (const cut of interestingCuts(bytes))
      exercise(bytes.subarray(0, cut), pick(r, papers), `truncated at ${cut}`, stats);
  });

  it('stacked mutations (3 to 8 at once)', () => {
    const r = prng(SEED + 3);
    for (let i = 0; i < 900; i++) {
      const [base, start] = pick(r, bases);
      let bytes = start;
      const names: string[] = [];
      for (let k = 3 + int(r, 6); k > 0; k--) {
        const [name, mutate] = pick(r, MUTATIONS);
        names.push(name);
        bytes = mutate(r, bytes);
      }
      exercise(bytes, pick(r, papers), `${base} / ${names.join(' + ')} #${i}`, stats);
    }
  });

  it('hostile papers appended to clean and damaged files', () => {
    const r = prng(SEED + 4);
    for (let i = 0; i < 400; i++) {
      const [base, bytes] = pick(r, bases);
      const damaged = r() < 0.3 ? pick(r, MUTATIONS)[1](r, bytes) : bytes;
      exercise(damaged, hostilePaper(r, pick(r, papers)), `${base} / hostile paper #${i}`, stats);
    }
  });

  it('5 MB lines: one long value, entries packed on one line, an unclosed @comment line, 5 MB without a line break', () => {
    const r = prng(SEED + 5);
    const five = 5 * MB;
    const inputs: [string, string][] = [
      ['a 5 MB title', `@article{long, title = {${'word '.repeat(five / 5)}}, year = 2020}\n`],
      ['entries packed on one 5 MB line', `${'@misc{k, title = {x}, doi = {10.1/x}}'.repeat(five / 38)}\n`],
      ['an unclosed @comment{ before a 5 MB line', `@comment{ open\n${'a'.repeat(five)}\n@misc{after, title = {y}}\n`],
      ['5 MB of one line with no break and an unclosed entry', `@misc{open, title = {${'x'.repeat(five)}`],
      ['5 MB of lone CRs between entries', `${'@misc{a, t = {x}}\r'.repeat(five / 18)}`],
    ];
    for (const [name, text] of inputs) exercise(enc(text), pick(r, papers), name, stats);
  });
});
