// The citation buttons in the answer's references list (opt-in) and their webview messages.
import { strict as assert } from 'node:assert';
import { parseWebviewMessage } from '../../../src/answer/protocol';
import { renderAnswerDetailed } from '../../../src/render/answer';
import { assertSafe, citation } from './html';

describe('render: citation actions', () => {
  const evil = '"><img src=x onerror=alert(1)>';
  const cs = [citation(1, 1, { title: evil }), citation(2, 0, { url: 'javascript:alert(1)' })];

  it('are off by default (only Copy Quote and Open Paper)', () => {
    const els = assertSafe(renderAnswerDetailed('[1.1] [2]', cs).html);
    assert.deepEqual(
      els.filter((e) => e.tag === 'button').map((e) => e.attrs['data-action']),
      ['copyQuote', 'openPaper'],
    );
  });

  it('with citeActions: Insert Citation, Copy BibTeX, Copy Reference on every reference (with or without URL), labels escaped', () => {
    const r = renderAnswerDetailed('[1.1] [2]', cs, { citeActions: true, labels: { insertCitation: 'Zitieren <b>' } });
    const els = assertSafe(r.html);
    const actions = els
      .filter((e) => e.tag === 'button')
      .map((e) => `${e.attrs['data-action']}:${e.attrs['data-marker'] ?? e.attrs['data-n']}`);
    assert.deepEqual(actions, [
      'copyQuote:1.1',
      'openPaper:1',
      'insertCitation:1',
      'copyBibtex:1',
      'copyReference:1',
      'insertCitation:2',
      'copyBibtex:2',
      'copyReference:2',
    ]);
    const insert = els.find((e) => e.attrs['data-action'] === 'insertCitation')!;
    assert.equal(insert.text, 'Zitieren <b>');
    assert.equal(insert.attrs['aria-label'], `Zitieren <b> 1: ${evil}`);
    assert.equal(
      renderAnswerDetailed('[1]', cs, { citeActions: true, actions: false }).html.includes('<button'),
      false,
      'actions: false wins',
    );
  });

  it('their messages carry a reference number only', () => {
    for (const type of ['insertCitation', 'copyBibtex', 'copyReference'] as const) {
      assert.deepEqual(parseWebviewMessage({ type, n: 3 }), { message: { type, n: 3 } });
      assert.ok('problem' in parseWebviewMessage({ type, n: 0 }));
      assert.ok('problem' in parseWebviewMessage({ type, n: 1.5 }));
      assert.ok('problem' in parseWebviewMessage({ type, n: '1' }));
      assert.ok('problem' in parseWebviewMessage({ type, n: 1, paper: { doi: 'x' } }));
    }
    assert.deepEqual(parseWebviewMessage({ type: 'insertAnswer' }), { message: { type: 'insertAnswer' } });
    assert.ok('problem' in parseWebviewMessage({ type: 'insertAnswer', threadId: 't' }));
  });
});
