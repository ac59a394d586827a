/**
 * Linear time for every scanner of the .bib reader and editor (src/bib/bibFile.ts with bibScan.ts, bibEntry.ts,
 * bibAppend.ts, bibTidy.ts, edit.ts, bibBytes.ts and the incremental parse): each runs on hostile inputs of at least
 * 1 MB (unclosed `@comment{`/`@comment(` on every line, entries packed on one line, heads and braces that never close,
 * long runs of what the patterns repeat) and must finish far within a second. A quadratic scanner needs minutes on
 * these inputs (the unclosed-comment scan took 160 s per MB, decoding a 1 MB title 143 s), so the bound never flakes
 * on a linear one. Time is the process's CPU time, which other processes on a busy machine do not inflate. The
 * slowest time per MB is printed.
 */
import * as assert from 'node:assert/strict';
import { decodeUtf8, lineBreakKinds } from '../../../src/bib/bibBytes';
import { appendBlocker, appendText, appendToUtf8 } from '../../../src/bib/bibAppend';
import { entryDoi, entryFields, findEntry, titleKey } from '../../../src/bib/bibEntry';
import { entryKeys, parseBibFile, type BibFile } from '../../../src/bib/bibFile';
import { tidyBibliography } from '../../../src/bib/bibTidy';
import { countBreaks, LineIndex, newlineOf } from '../../../src/bib/edit';
import { loadBibtexLibrary } from '../../../src/bib/library';
import { canExtend, extendParse } from '../../../src/citations/incrementalParse';

const MB = 1 << 20;
/** CPU milliseconds `run` takes (user and system, this process). */
function cpuMs(run: () => unknown): number {
  const t0 = process.cpuUsage();
  run();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}
/** `unit` repeated to `size` characters. */
const fill = (unit: string, size = MB): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Hostile .bib texts of about 1 MB each. */
export const BIB_INPUTS: [string, () => string][] = [
  ['unclosed @comment{ on every line', () => fill('@comment{ x\n')],
  ['unclosed @comment( on every line', () => fill('@comment( x\n')],
  ['@comment( closed only by a } at its depth', () => fill('@comment( {a} }\n')],
  ['nested @comment{ never closed', () => fill('@comment{')],
  ['entries packed on one line', () => fill('@misc{k, t = {x}}')],
  ['broken entries packed on one line', () => fill('@misc{k, t = {x}')],
  ['entries without keys on one line', () => fill('@misc{, t = {x}}')],
  ['unclosed entry heads on every line', () => fill('@misc{k,\n')],
  ['unclosed heads after CR only', () => fill('@misc{k,\r')],
  ['heads that never open', () => fill('@a')],
  ['@ then a long type', () => `@${fill('a')}`],
  ['@ then white space', () => `@a${fill(' \t\r\n')}`],
  ['a 1 MB key', () => `@misc{${fill('k')}}`],
  ['a 1 MB bare value in a ( entry', () => `@misc(k, f = ${fill('x)')})`],
  ['a quoted value never closed, repeated', () => fill('@misc{k, t = "')],
  ['opening braces', () => fill('{')],
  ['closing braces', () => fill('}')],
  ['one entry with 1 MB of nested braces', () => `@misc{k, t = ${fill('{')}${fill('}')}}`],
  ['fields without values', () => `@misc{k, ${fill('f = ,')}}`],
  ['# concatenations', () => `@misc{k, t = ${fill('a # ')}b}`],
  ['@string definitions', () => fill('@string{s = {v}}\n')],
  ['lone CRs', () => fill('\r')],
  ['CR LF pairs split by text', () => fill('\r\n\r')],
  ['white space lines', () => fill(' \t\n')],
  ['indented heads without braces', () => fill('\n   @misc')],
  [
    'entries with a crossref chain',
    () =>
      Array.from({ length: 22_000 }, (_, i) => `@misc{k${i}, crossref = {k${i + 1}}, doi = {10.1/${i % 50}}}\n`).join(
        '',
      ),
  ],
  ['duplicate keys', () => fill('@misc{same, title = {x}}\n')],
  [
    'entries sharing one DOI',
    () => Array.from({ length: 34_000 }, (_, i) => `@misc{k${i}, doi = {10.1/same}}\n`).join(''),
  ],
];

/** Every scanner, with what it reads: the parse, then what the editor runs on a parsed file. */
const SCANNERS: [string, (text: string, file: BibFile) => unknown][] = [
  ['parseBibFile', (t) => parseBibFile(t)],
  [
    'LineIndex / countBreaks / newlineOf / lineBreakKinds',
    (t) => [new LineIndex(t).position(t.length), countBreaks(t), newlineOf(t), lineBreakKinds(t)],
  ],
  ['decodeUtf8', (t) => decodeUtf8(Buffer.from(t, 'utf8'))],
  ['entryKeys / entryDoi / titleKey', (_t, f) => [entryKeys(f).length, f.entries.map(entryDoi).length, titleKey(_t)]],
  ['appendBlocker / appendText', (t, f) => [appendBlocker(f), appendText(t, '@misc{new,\n}', f.newline)]],
  ['appendToUtf8', (t, f) => appendToUtf8(Buffer.from(t, 'utf8'), '@misc{new,\n}', f)],
  ['findEntry', (_t, f) => findEntry(f, { title: 'Some title nobody has', publish_year: 2020, doi: '10.1/none' })],
  ['tidyBibliography', (t) => tidyBibliography(t, ['k0', 'k1', 'k2', 'same'])],
  ['extendParse', (t, f) => (canExtend(f, `${t}\n@misc{z}\n`) ? extendParse(f, `${t}\n@misc{z}\n`) : undefined)],
  [
    'entryFields (first and last entry)',
    (_t, f) => [f.entries[0] && entryFields(f, f.entries[0]), f.entries.at(-1) && entryFields(f, f.entries.at(-1)!)],
  ],
];

describe('bib/bibFile scanners run in linear time (1 MB hostile inputs)', function () {
  this.timeout(120_000);
  let slowest = { perMb: 0, what: '' };

  before(async () => {
    await loadBibtexLibrary();
  });
  after(() => {
    console.log(`      slowest: ${slowest.perMb.toFixed(0)} ms per MB (${slowest.what})`);
  });

  for (const [input, build] of BIB_INPUTS) {
    it(input, () => {
      const text = build();
      assert.ok(text.length >= MB, `${input}: only ${text.length} characters`);
      const file = parseBibFile(text);
      for (const [name, run] of SCANNERS) {
        const ms = cpuMs(() => run(text, file));
        const perMb = ms / (text.length / MB);
        if (perMb > slowest.perMb) slowest = { perMb, what: `${name} on ${input}` };
        if (process.env.BIB_LINEAR_VERBOSE) console.log(`        ${name}: ${ms.toFixed(0)} ms`);
        assert.ok(ms < 1000, `${name} on ${input}: ${ms.toFixed(0)} ms`);
      }
    });
  }

  it('decoding a 1 MB title, abstract or @string for hover', () => {
    const big = fill('Word {\\"u} $x$ ');
    const text = `@string{s = {${big}}}\n@article{a, title = {${big}}, abstract = {${big}}, journal = s, author = {${fill('A and ', 100_000)}B}}\n`;
    const file = parseBibFile(text);
    const ms = cpuMs(() => entryFields(file, file.entries[0]!));
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms`);
  });
});
