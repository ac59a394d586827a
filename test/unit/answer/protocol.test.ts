/** The answer view's message validator (shared by host and webview): exactly the typed messages pass. */
import assert from 'node:assert/strict';
import { FOLLOW_UP_MAX, parseViewState, parseWebviewMessage } from '../../../src/answer/protocol';

const ok = (raw: unknown) => {
  const r = parseWebviewMessage(raw);
  assert.ok('message' in r, `refused ${JSON.stringify(raw)}: ${'problem' in r ? r.problem : ''}`);
  return r.message;
};
const refused = (raw: unknown) => {
  const r = parseWebviewMessage(raw);
  assert.ok('problem' in r, `accepted ${JSON.stringify(raw)}`);
  return r.problem;
};

describe('answer/messages', () => {
  it('accepts every well-formed message as it is', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'export' },
      { type: 'openPaper', n: 3 },
      { type: 'copyQuote', marker: '1.2' },
      { type: 'copyQuote', marker: '12' },
      { type: 'selectInteraction', interactionId: 'int_abc-1' },
      { type: 'toggleTrace', on: false },
      { type: 'followUp', text: 'And in older adults?', mode: 'deep' },
    ])
      assert.deepEqual(ok(m), m);
  });

  it('refuses non-objects, unknown types and extra fields', () => {
    for (const raw of [
      null,
      undefined,
      'openPaper',
      42,
      [],
      [{ type: 'ready' }],
      {},
      { type: 'runCommand', command: 'x' },
      { type: 'READY' },
      { type: 'ready', x: 1 },
      { type: 'export', uri: 'file:///etc/passwd' },
    ])
      refused(raw);
    assert.match(refused({ type: 'openUrl', url: 'https://x' }), /unknown type "openUrl"/);
  });

  it('refuses wrong field types and ranges (never a URL)', () => {
    for (const raw of [
      { type: 'openPaper', n: '1' },
      { type: 'openPaper', n: 0 },
      { type: 'openPaper', n: 1.5 },
      { type: 'openPaper', n: Number.NaN },
      { type: 'openPaper', n: 1, url: 'javascript:alert(1)' },
      { type: 'openPaper', url: 'https://evil.example' },
      { type: 'copyQuote', marker: '[1.2]' },
      { type: 'copyQuote', marker: '1.2.3' },
      { type: 'copyQuote', marker: '"><script>' },
      { type: 'copyQuote', marker: 12 },
      { type: 'selectInteraction', interactionId: '../../x' },
      { type: 'selectInteraction', interactionId: '' },
      { type: 'toggleTrace', on: 'true' },
      { type: 'followUp', text: 'x', mode: 'fast' },
      { type: 'followUp', text: 5, mode: 'pro' },
      { type: 'followUp', text: 'x'.repeat(FOLLOW_UP_MAX + 1), mode: 'pro' },
    ])
      refused(raw);
  });

  it('restored state keeps only well-typed fields', () => {
    assert.equal(parseViewState(undefined), undefined);
    assert.equal(parseViewState({ threadId: 'a/b' }), undefined);
    assert.deepEqual(
      parseViewState({
        threadId: 't1',
        interactionId: 5,
        trace: 'yes',
        draft: 'keep me',
        mode: 'deep',
        scrollY: 120,
        evil: '<script>',
      }),
      {
        threadId: 't1',
        draft: 'keep me',
        mode: 'deep',
        scrollY: 120,
      },
    );
  });
});
