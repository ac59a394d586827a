/**
 * The bundles are ASCII (scripts/asciiOnly.mjs, applied by esbuild.mjs): the escapes it writes mean what the characters
 * meant, in regular expression literals above all (with and without `u`, in classes, astral characters, identity
 * escapes), in strings and in templates; and the bundles the build wrote hold no other character.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { mulberry32 } from '../../emulator/corpus';

const root = join(__dirname, '..', '..', '..');
let escapeNonAscii: (text: string) => string;
/** Evaluates JavaScript source, as the extension host does a bundle. */
const evaluate = (code: string): unknown => runInThisContext(code);

const PIECES = [
  'a',
  'é',
  '–',
  '“',
  '”',
  '\u00a0',
  '😀',
  '𝔸',
  '[',
  ']',
  '-',
  '\\',
  '\\–',
  '\\s',
  '*',
  '+',
  '?',
  '(',
  ')',
  '|',
  '^',
  '.',
  'x',
];
const INPUT = ['a', 'é', '–', '“', '😀', '𝔸', '\ud83d', ' ', 'x', '-', '\\', '\u00a0'];

function randomOf(rnd: () => number, from: readonly string[], n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += from[Math.floor(rnd() * from.length)]!;
  return s;
}

describe('build: ASCII bundles', () => {
  before(async () => {
    // ESM, as esbuild.mjs imports it.
    ({ escapeNonAscii } = await import('../../../scripts/asciiOnly.mjs'));
  });

  it('a regular expression literal escaped matches exactly what it matched, with or without `u`', () => {
    const rnd = mulberry32(11);
    let compared = 0;
    for (let i = 0; i < 4000; i++) {
      const source = randomOf(rnd, PIECES, 1 + Math.floor(rnd() * 8));
      const flags = ['g', 'gu', 'giu', 'gi'][i % 4]!;
      let original: RegExp;
      try {
        original = evaluate(`/${source}/${flags}`) as RegExp;
      } catch {
        continue; // not a regular expression (an unbalanced bracket, an identity escape under `u`…)
      }
      const code = escapeNonAscii(`/${source}/${flags}`);
      assert.match(code, /^[\0-\x7f]*$/);
      const escaped = evaluate(code) as RegExp;
      assert.equal(escaped.flags, original.flags);
      for (let k = 0; k < 8; k++) {
        const input = randomOf(rnd, INPUT, Math.floor(rnd() * 10));
        assert.deepEqual(
          [...input.matchAll(escaped)].map((m) => [m.index, m[0]]),
          [...input.matchAll(original)].map((m) => [m.index, m[0]]),
          JSON.stringify([source, flags, input]),
        );
        compared++;
      }
    }
    assert.ok(compared > 10_000, `only ${compared} inputs compared`);
  });

  it('strings, templates and comments keep their characters', () => {
    const code = '(() => { const s = "é–“😀"; const t = `𝔸${s}\\u00e9–`; // a comment – “quoted”\nreturn [s, t]; })()';
    const escaped = escapeNonAscii(code);
    assert.match(escaped, /^[\0-\x7f]*$/);
    assert.deepEqual(evaluate(escaped), evaluate(code));
  });

  it('the bundles the build wrote are ASCII', function () {
    const dist = join(root, 'dist');
    if (!existsSync(join(dist, 'cite.js'))) this.skip(); // the build gate of `npm test` runs first
    const bundles = readdirSync(dist).filter((f) => f.endsWith('.js'));
    assert.ok(bundles.includes('bibtex.js') && bundles.includes('core.js'), bundles.join(', '));
    for (const f of bundles) {
      const at = readFileSync(join(dist, f), 'utf8').search(/[^\0-\x7f]/u);
      assert.equal(at, -1, `${f} has a non-ASCII character at ${at}`);
    }
  });
});
