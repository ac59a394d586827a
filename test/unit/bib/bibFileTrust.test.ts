/**
 * The .bib reader and editor against hostile files: line breaks as VS Code counts them, control characters, entries
 * BibTeX would let swallow an append, keys that are in the file without being readable, bounded decoding, byte-exact
 * appends, and Tidy keeping what documents cite and BibTeX's crossref order.
 */
import * as assert from 'node:assert/strict';
import { appendBlocker, appendText, appendToUtf8, ensureEntry } from '../../../src/bib/bibAppend';
import { entryFields, entryToPaper, findEntry, MAX_DECODED_VALUE } from '../../../src/bib/bibEntry';
import { entryKeys, parseBibFile } from '../../../src/bib/bibFile';
import { tidyBibliography } from '../../../src/bib/bibTidy';
import { concatBytes, decodeUtf8, editorKeepsLineBreaks } from '../../../src/bib/bibBytes';
import { LineIndex } from '../../../src/bib/edit';
import { declarablePath, declarationEdit } from '../../../src/citations/declare';
import { loadBibtexLibrary } from '../../../src/bib/library';

const PAPER = {
  authors: ['Anna Smith'],
  title: 'A new paper',
  publish_year: 2024,
  doi: '10.5555/new',
  journal_name: 'J',
};

describe('bib/bibFile against hostile files', () => {
  before(async () => {
    await loadBibtexLibrary();
  });

  it('counts lines as VS Code does: a lone CR ends a line, CRLF is one break, U+2028 and U+0085 are not breaks', () => {
    const idx = new LineIndex('a\rb\r\nc\nd\u2028e\u0085f');
    assert.deepEqual(
      [0, 2, 5, 7, 9, 11].map((o) => idx.position(o)),
      [
        { line: 0, character: 0 },
        { line: 1, character: 0 },
        { line: 2, character: 0 },
        { line: 3, character: 0 },
        { line: 3, character: 2 },
        { line: 3, character: 4 },
      ],
    );
    assert.equal(idx.lineCount, 4);
    // A diagnostic after lone CRs is on the line VS Code shows it on.
    const f = parseBibFile('@misc{a, title = {x}}\r@misc{b, title = {y}}\r@article{c, title = {never closed\r');
    assert.equal(f.diagnostics[0]?.range.start.line, 2);
  });

  it('a NUL or another control character in an @string or a field: decoding, hover metadata, finding and adding never throw', () => {
    for (const bad of ['\u0000', '\u0001', '\u001b', '\u007f', '\\\u0000']) {
      const text = `@string{j = "Jour${bad}nal"}\n@string{k = {${bad}}}\n@article{a, title = {Hello World}, journal = j # k, note = {${bad}}, year = 2020}\n`;
      const f = parseBibFile(text);
      assert.equal(f.entries.length, 1);
      const fields = entryFields(f, f.entries[0]!);
      assert.equal(fields['title'], 'Hello World', JSON.stringify(bad));
      assert.equal(entryToPaper(f, f.entries[0]!).title, 'Hello World');
      assert.equal(findEntry(f, { title: 'Hello world', publish_year: 2020 })?.key, 'a');
      assert.equal(ensureEntry(f, PAPER).existing, false);
    }
  });

  it('decodes only the fields the editor reads, each bounded: a 1 MB title is shown cut, a 1 MB abstract is never decoded', () => {
    const big = 'word '.repeat(200_000);
    const f = parseBibFile(
      `@article{a, title = {${big}}, abstract = {${big}}, author = {Smith, Ann}, journal = jn, year = 2021}\n@string{jn = {Journal}}\n`,
    );
    const t0 = performance.now();
    const fields = entryFields(f, f.entries[0]!);
    const ms = performance.now() - t0;
    assert.equal(typeof fields['title'], 'string');
    assert.equal((fields['title'] as string).length, MAX_DECODED_VALUE + 1);
    assert.ok((fields['title'] as string).endsWith('…'));
    assert.equal(fields['abstract'], undefined);
    assert.equal(fields['journal'], 'Journal');
    assert.deepEqual(fields['author'], [{ lastName: 'Smith', firstName: 'Ann' }]);
    assert.ok(ms < 1000, `decoding took ${ms.toFixed(0)} ms`);
  });

  it('never appends where BibTeX or Biber would read the new entry as part of an unclosed one, and says where', () => {
    const cases: [string, string, number][] = [
      ['@article{ok, title = {x}}\n@article{open2019,\n  title = {Never closed,\n  year = 2019\n', 'unclosed', 2],
      ['@article{open2019, title = {x}\n\n@article{ok, title = {y}}\n', 'unclosed', 1],
      ['@string{j = {Jour nal}\n', 'unclosed', 1],
      ['@misc{q, title = "never closed}\n', 'quote', 1],
      ['@misc{a, title = {x}}\n@comment{ not closed\n', 'comment', 2],
    ];
    for (const [text, reason, line] of cases) {
      const f = parseBibFile(text);
      const r = ensureEntry(f, PAPER);
      assert.equal(r.edit, undefined, text);
      assert.equal(r.blocked?.reason, reason, text);
      assert.equal(r.blocked?.line, line, text);
      assert.match(r.blocked?.message ?? '', /not closed/u);
    }
    assert.equal(ensureEntry(parseBibFile(cases[0]![0]), PAPER).blocked?.key, 'open2019');
    // A closed file, a closed @comment and a line comment are fine.
    for (const ok of ['', '@misc{a, title = {x}}', '@comment{ fine }\n@misc{a}\n', 'just text outside entries\n'])
      assert.equal(appendBlocker(parseBibFile(ok)), undefined, ok);
  });

  it('never hands out a key that is in the file: entries that are not closed, and entry types BibTeX reads that look odd', () => {
    const f = parseBibFile(
      '@article{smith2024new,\n  title = {Never closed\n\n@my.type{jones2020, title = {x}}\n@online-2{lee2021, title = {y}}\n',
    );
    assert.deepEqual(entryKeys(f).sort(), ['jones2020', 'lee2021', 'smith2024new']);
    const r = ensureEntry(
      parseBibFile('@article{smith2024new,\n  title = {Other paper}}\n@misc{x, title = {never closed\n'),
      PAPER,
    );
    assert.equal(r.key, 'smith2024newa');
    const broken = parseBibFile('@misc{x, title = {fine}}\n@article{smith2024new,\n  title = {never closed\n');
    assert.equal(ensureEntry(broken, PAPER).key, 'smith2024newa', "the unclosed entry's key was handed out");
  });

  it("appends after every kind of end: one blank line, the file's line breaks, nothing before the end changed", () => {
    const cases: [string, string][] = [
      ['', '@misc{a,\n}\n'],
      ['x}', 'x}\n\n@misc{a,\n}\n'],
      ['x}\n', 'x}\n\n@misc{a,\n}\n'],
      ['x}\n\n', 'x}\n\n@misc{a,\n}\n'],
      ['x}\n  \n', 'x}\n  \n@misc{a,\n}\n'],
      ['a}\r\nb}\r\n', 'a}\r\nb}\r\n\r\n@misc{a,\r\n}\r\n'],
      ['a}\r\nb}\r\n\r\n', 'a}\r\nb}\r\n\r\n@misc{a,\r\n}\r\n'],
      ['a}\r\nb}\r', 'a}\r\nb}\r\r\n@misc{a,\r\n}\r\n'],
      ['a}\rb}\r\r', 'a}\rb}\r\r@misc{a,\n}\n'],
    ];
    for (const [before, after] of cases)
      assert.equal(before + appendText(before, '@misc{a,\n}'), after, JSON.stringify(before));
  });

  it('appends to bytes byte for byte (BOM, CRLF, lone CR, NUL kept); refuses bytes that are not UTF-8 instead of re-encoding them', () => {
    const entry = '@article{k,\n  title = {T{\\"u}r}\n}';
    const files = [
      Buffer.from('\ufeff@misc{a, title = {x}}\r\n', 'utf8'),
      Buffer.from('@misc{a,\r title = {x\u0000y}}\n@misc{b}\r\n', 'utf8'),
      Buffer.from('% only text', 'utf8'),
      Buffer.alloc(0),
    ];
    for (const before of files) {
      const r = appendToUtf8(before, entry);
      assert.ok(r.ok, String(r.ok || r.reason));
      assert.deepEqual(Buffer.from(r.bytes.subarray(0, before.length)), before);
      assert.equal(Buffer.from(r.bytes.subarray(before.length)).toString('utf8'), r.appended);
      const read = decodeUtf8(r.bytes);
      assert.ok(read.ok);
      assert.deepEqual(
        parseBibFile(read.text)
          .entries.map((e) => e.key)
          .slice(-1),
        ['k'],
      );
    }
    const latin1 = Buffer.from('@misc{a, title = {M\xfcller}}\n', 'latin1');
    assert.deepEqual(appendToUtf8(latin1, entry), { ok: false, reason: 'encoding', encoding: 'invalid' });
    assert.deepEqual(appendToUtf8(Buffer.from('\ufffe@\u0000', 'utf16le'), entry), {
      ok: false,
      reason: 'encoding',
      encoding: 'utf16',
    });
    const blocked = appendToUtf8(Buffer.from('@misc{a, title = {x\n', 'utf8'), entry);
    assert.equal(blocked.ok, false);
    assert.equal(!blocked.ok && blocked.reason, 'blocked');
    assert.equal(Buffer.from(concatBytes(Buffer.from('ab'), Buffer.from('c'))).toString(), 'abc');
    assert.equal(editorKeepsLineBreaks('a\r\nb\r\n'), true);
    assert.equal(editorKeepsLineBreaks('a\nb\r\n'), false);
    assert.equal(editorKeepsLineBreaks('a\rb'), false);
  });

  it('tidy puts every crossref/xref parent after the entries that refer to it (BibTeX reads children first), otherwise sorted by key', () => {
    const text = [
      '@proceedings{aaconf, title = {Conf}}',
      '@inproceedings{zz, crossref = {aaconf}, title = {Z}}',
      '@inproceedings{mm, crossref = {AAconf}, title = {M}}',
      '@book{bb, title = {B}}',
      '@inbook{cc, xref = {bb}, title = {C}}',
      '@misc{loop1, crossref = {loop2}}',
      '@misc{loop2, crossref = {loop1}}',
    ].join('\n');
    const r = tidyBibliography(text);
    const keys = [...(r.text ?? '').matchAll(/^@\w+\{([^,]+),/gmu)].map((m) => m[1]);
    assert.deepEqual(keys, ['cc', 'bb', 'mm', 'zz', 'aaconf', 'loop1', 'loop2']);
    for (const [child, parent] of [
      ['zz', 'aaconf'],
      ['mm', 'aaconf'],
      ['cc', 'bb'],
    ] as const)
      assert.ok(keys.indexOf(child) < keys.indexOf(parent), `${child} after ${parent}`);
    assert.equal(tidyBibliography(r.text!).text, r.text, 'idempotent');
  });

  it('tidy keeps a DOI duplicate that a document cites (or a crossref needs), removes uncited ones, and removes none when the cited keys may be incomplete', () => {
    const text = [
      '@article{a, doi = {10.1/x}, title = {A}}',
      '@article{b, doi = {https://doi.org/10.1/X}, title = {B}}',
      '@article{c, doi = {10.1/x}, title = {C}}',
      '@article{d, doi = {10.2/y}, title = {D}}',
      '@article{e, doi = {10.2/y}, title = {E}}',
      '@article{f, doi = {10.3/z}}',
      '@article{g, doi = {10.3/z}}',
      '@inbook{h, crossref = {g}}',
    ].join('\n');
    const r = tidyBibliography(text, ['b', 'c', 'E', 'h']);
    assert.deepEqual(r.removed, [
      { key: 'a', keptKey: 'b', doi: '10.1/x' },
      { key: 'd', keptKey: 'e', doi: '10.2/y' },
      { key: 'f', keptKey: 'g', doi: '10.3/z' },
    ]);
    assert.deepEqual(r.keptDuplicates, [{ keys: ['b', 'c'], doi: '10.1/x' }]);
    assert.deepEqual(r.uncited, ['g']);
    const keys = [...(r.text ?? '').matchAll(/^@\w+\{([^,]+),/gmu)].map((m) => m[1]);
    assert.deepEqual(keys, ['b', 'c', 'e', 'h', 'g']);
    const unsure = tidyBibliography(text, ['b'], { citedComplete: false });
    assert.deepEqual(unsure.removed, []);
    assert.equal(unsure.keptDuplicates.length, 3);
    assert.deepEqual(tidyBibliography(text, ['b'], { everyKeyCited: true }).uncited, []);
  });

  it('declares a bibliography only by a path that cannot break out of the markup (it comes from a setting or a file name)', () => {
    for (const bad of [
      'refs}\\input{/etc/passwd}.bib',
      'a%b.bib',
      'my refs.bib',
      'a,b.bib',
      'a\\b.bib',
      '',
      'x'.repeat(1001),
    ]) {
      assert.equal(declarablePath('latex', bad), false, bad);
      assert.equal(declarationEdit('\\begin{document}\n\\end{document}\n', 'latex', bad), undefined, bad);
    }
    for (const bad of ['a\nbibliography: /etc/x.bib', 'a\rb.bib', 'a\u2028b.bib', 'a\u0000.bib']) {
      assert.equal(declarablePath('pandoc', bad), false, JSON.stringify(bad));
      assert.equal(declarablePath('typst', bad), false, JSON.stringify(bad));
    }
    assert.equal(
      declarationEdit('Text\n', 'pandoc', '../my "refs".bib')?.text,
      '---\nbibliography: "../my \\"refs\\".bib"\n---\n\n',
    );
    assert.equal(declarationEdit('Text\n', 'typst', 'a"b\\c.bib')?.text, '#bibliography("a\\"b\\\\c.bib")\n');
    assert.equal(
      declarationEdit('x\n\\end{document}\n', 'latex', '../refs/Müller-2.bib')?.text,
      '\\bibliography{../refs/Müller-2}\n',
    );
  });
});
