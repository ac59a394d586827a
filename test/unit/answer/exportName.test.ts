import * as assert from 'node:assert/strict';
import { EXPORT_NAME_MAX, exportFileName, freeName } from '../../../src/answer/exportName';

/** What Windows, macOS and Linux refuse in a file name (control characters: \p{Cc}). */
const UNSAFE = /[<>:"/\\|?*\p{Cc}]|[. ]$|^\s/u;

describe('answer: the exported file name', () => {
  it('cuts a long title between words, not inside one', () => {
    const title =
      'Does spaced repetition improve long-term retention of pharmacology knowledge in second-year medical students?';
    const name = exportFileName(title);
    assert.ok([...name].length <= EXPORT_NAME_MAX, name);
    assert.ok(title.replace('?', '').startsWith(name), `not a prefix of whole words: ${name}`);
    const next = title.slice(name.length);
    assert.match(next, /^[\s?]/u, `cut inside a word: "${name}" + "${next.slice(0, 10)}"`);
  });

  it('is safe on every system: no reserved character, device name or trailing dot', () => {
    for (const title of [
      'A/B testing: "what works" <really>? | 50% * 2\u0007.',
      'CON',
      'nul',
      'Com1',
      '...',
      '   ',
      '\u202Eevil\u202C name',
      'What the studies show — a review…',
    ]) {
      const name = exportFileName(title);
      assert.ok(name.length > 0, JSON.stringify(title));
      assert.ok(!UNSAFE.test(name), `${JSON.stringify(title)} → ${JSON.stringify(name)}`);
      assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)$/iu.test(name), name);
    }
    assert.equal(exportFileName('A/B testing: "what works"'), 'A B testing what works');
    assert.equal(exportFileName('CON'), 'CON answer');
    assert.equal(exportFileName(null), 'answer');
    assert.equal(exportFileName('?!'), 'answer');
  });

  it("keeps letters of every script and their marks, and an apostrophe's word whole", () => {
    assert.equal(exportFileName("Children's sleep and memory"), 'Childrens sleep and memory');
    assert.equal(exportFileName('Müdigkeit und Gedächtnis'), 'Müdigkeit und Gedächtnis');
    assert.equal(exportFileName('हिन्दी शोध'), 'हिन्दी शोध');
    // A script without spaces: cut at the limit, by code point.
    const cjk = exportFileName('睡眠'.repeat(50));
    assert.equal([...cjk].length, EXPORT_NAME_MAX);
  });

  it('proposes a name that is free: base.md, else base (2).md…', async () => {
    const taken = new Set(['Sleep.md', 'Sleep (2).md']);
    assert.equal(await freeName('Sleep', (n) => Promise.resolve(taken.has(n))), 'Sleep (3).md');
    assert.equal(await freeName('Other', (n) => Promise.resolve(taken.has(n))), 'Other.md');
  });
});
