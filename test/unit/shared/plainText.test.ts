import * as assert from 'node:assert/strict';
import { clip, errorLine, noIcons, oneLine, plainText } from '../../../src/shared/plainText';
import { linksIn } from '../../vscodeLinks';

/** The codicon syntax of labels and status-bar text. */
const ICON = /\$\([a-z0-9~-]+\)/i;

describe('plainText (service and setting text for notifications, prompts, status bar)', () => {
  it('leaves no link VS Code would render, in any spelling of the scheme', () => {
    const hostile = [
      '[Renew](command:workbench.action.openSettings)',
      'Invalid value. [Renew your plan](command:researchDesk.clearApiKey?%5B%5D) now',
      '[x](COMMAND:workbench.action.terminal.new)',
      '[x](https://evil.example/phish "Open Billing")',
      '[x](file:///etc/passwd)',
      'query.[a](command:x).b',
      '[[a](command:x)](command:y)',
      '[a]\n(command:x)',
      '[a]\u200b(command:x)',
      '[a]\u202e(command:x)',
      '[a]\u0000(command:x)',
      '[a]\ufeff(command:x)',
    ];
    // The last five hide the link behind a character that removing or collapsing would otherwise join up.
    // eslint-disable-next-line no-control-regex
    const joined = (text: string): string => text.replace(/[\u200b\u202e\u0000\ufeff\n]/g, '');
    for (const text of hostile) {
      assert.ok(linksIn(joined(text)).length > 0, `the fixture is no attack: ${JSON.stringify(text)}`);
      const out = plainText(text);
      assert.deepEqual(linksIn(out), [], `${JSON.stringify(text)} → ${JSON.stringify(out)}`);
    }
  });

  it('keeps the words a person reads (the label and the target stay visible as text)', () => {
    assert.equal(plainText('Invalid value. [Renew](command:foo) now'), 'Invalid value. [Renew] (command:foo) now');
    assert.equal(plainText('  two\n\tlines \r\n here  '), 'two lines here');
    assert.equal(plainText('Effects of caffeine [a review] (2020)'), 'Effects of caffeine [a review] (2020)');
    assert.equal(plainText(undefined), '');
    assert.equal(plainText('Ünïcödé 李伟 محمد'), 'Ünïcödé 李伟 محمد');
  });

  it('breaks icon syntax, removes controls and bidirectional overrides', () => {
    assert.ok(!ICON.test(plainText('$(sync~spin) 99 threads running $(key)')));
    assert.equal(plainText('a\u202eb\u2066c\u200bd\u0007e'), 'abcde');
  });

  it('clips to the bound without splitting a surrogate pair', () => {
    assert.equal(plainText('abcdef', 4), 'abc…');
    const emoji = `${'a'.repeat(8)}😀😀`;
    const out = plainText(emoji, 10);
    assert.ok(out.length <= 10, out);
    assert.ok(!/[\ud800-\udbff]…$/.test(out), 'a lone high surrogate before the ellipsis');
  });

  it('no random mix of brackets, parentheses, schemes and invisible characters yields a link or an icon', () => {
    const parts = [
      '[',
      ']',
      '(',
      ')',
      'command:x',
      'https://e.x',
      'file:/a',
      '$',
      ' ',
      '\n',
      '\u200b',
      '\u202e',
      'a',
      '"t"',
    ];
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      let s = '';
      for (let k = rnd(30); k > 0; k--) s += parts[rnd(parts.length)];
      const out = plainText(s);
      assert.deepEqual(linksIn(out), [], JSON.stringify(s));
      assert.ok(!out.includes('$('), JSON.stringify(s));
    }
  });

  it('reads only the prefix it needs, with the result of reading the whole text', () => {
    // The whole text's result, computed the plain way: the prefix shortcut must never differ from it.
    const whole = (t: string, max: number): string =>
      clip(
        oneLine(
          t.replace(
            // eslint-disable-next-line no-control-regex
            /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g,
            '',
          ),
        )
          .replace(/\]\(/g, '] (')
          .replace(/<(?=[a-z][a-z0-9+.-]{1,31}:)/gi, '< ')
          .replace(/\$\(/g, '$ ('),
        max,
      );
    // Runs of white space and invisible characters make a prefix's result end near the bound.
    const parts = [
      '](',
      '$(',
      '<https:',
      ' ',
      ' '.repeat(40),
      '\u200b'.repeat(30),
      'a',
      'bc',
      '😀',
      '\ud83d',
      ']',
      '(',
    ];
    let seed = 11;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 20000; i++) {
      let t = '';
      for (let k = rnd(200); k > 0; k--) t += parts[rnd(parts.length)];
      const max = 1 + rnd(30);
      assert.equal(plainText(t, max), whole(t, max), JSON.stringify({ t, max }));
    }
    // A scheme cut by the first prefix read (2 × max + 64 characters), after white space that shrinks to one: there
    // its `<` is not yet made inert, and the bound lands inside it.
    for (const max of [8, 20, 33])
      for (let lead = 0; lead <= max; lead += 4)
        for (let cut = 1; cut <= 31; cut++) {
          const spaces = 2 * max + 64 - lead - 1 - cut;
          const t = `${'a'.repeat(lead)}${' '.repeat(spaces)}<${'b'.repeat(31)}:x tail`;
          assert.equal(plainText(t, max), whole(t, max), JSON.stringify({ t, max }));
        }
    // A megabyte of white space before the words: still read to the words.
    assert.equal(plainText(`${' '.repeat(1_000_000)}words here`, 20), 'words here');
  });

  it('is linear: 1 MB of hostile syntax in well under a second', () => {
    for (const unit of ['[a](command:x)', '](', '$(', '[[[[', '\u200b]\u200b(', ' \n\t ']) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      const t0 = performance.now();
      const out = plainText(text, 2_000_000);
      const ms = performance.now() - t0;
      assert.ok(ms < 500, `${JSON.stringify(unit)}: ${ms.toFixed(0)} ms per MB`);
      // VS Code's own link pattern is quadratic on `[[[[`: look for the two sequences instead.
      assert.ok(!out.includes('](') && !out.includes('$('));
    }
  });
});

describe('oneLine, clip, noIcons, errorLine (the small text helpers every view shares)', () => {
  it('oneLine: white space runs as one space, trimmed; absent text is empty', () => {
    assert.equal(oneLine('  a\r\n\tb \u00a0 c\n'), 'a b c');
    assert.equal(oneLine(undefined), '');
    assert.equal(oneLine(null), '');
    assert.equal(oneLine('[x](command:y)'), '[x](command:y)', 'nothing else changed');
  });

  it('clip: at most max units, the ellipsis counted, no surrogate pair split', () => {
    assert.equal(clip('abcdef', 6), 'abcdef');
    assert.equal(clip('abcdef', 4), 'abc…');
    assert.equal(clip('abcdef', 1), '…');
    assert.equal(clip('abcdef', 0), '');
    assert.equal(clip('ab😀cd', 4), 'ab…', 'the pair is dropped whole, not halved');
    for (let max = 1; max < 8; max++) {
      const out = clip('a😀b😀c😀d', max);
      assert.ok(out.length <= max, `${max}: ${out}`);
      assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(out), `${max}: a lone high surrogate`);
    }
  });

  it('noIcons: icon syntax inert, links left alone', () => {
    assert.equal(noIcons('$(alert) Renew [here](command:x)'), '$ (alert) Renew [here](command:x)');
    assert.doesNotMatch(noIcons('$(x)$(y)'), ICON);
  });

  it("errorLine: an error's message, or any thrown value, as one plain line", () => {
    assert.equal(errorLine(new Error('bad\n[x](command:y)')), plainText('bad [x](command:y)'));
    assert.equal(errorLine('text thrown'), 'text thrown');
    assert.equal(errorLine(42), '42');
    assert.equal(errorLine(Object.create(null)), '[object Object]');
    assert.equal(
      errorLine({
        toString: () => {
          throw new Error('no');
        },
      }),
      '[object Object]',
    );
    assert.equal(errorLine(new Error('x'.repeat(50)), 10).length, 10);
  });
});
