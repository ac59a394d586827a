/** Transport rules that need no server: base URL normalisation, and a refused connection → network. */
import assert from 'node:assert/strict';
import { getGlobalDispatcher } from 'undici';
import { ApiError, createClient } from '../../../src/api/index';
import { MAX_JSON_DEPTH, nestsDeeper, normalizeBaseUrl, Transport } from '../../../src/api/transport';
import { mulberry32 } from '../../emulator/corpus';

describe('api/transport', () => {
  it('normalises the base URL and refuses unsafe ones', () => {
    assert.equal(normalizeBaseUrl('https://api.consensus.app/'), 'https://api.consensus.app');
    assert.equal(normalizeBaseUrl('http://127.0.0.1:8787//'), 'http://127.0.0.1:8787');
    assert.equal(normalizeBaseUrl('https://example.org/proxy/'), 'https://example.org/proxy');
    for (const bad of [
      'ftp://x',
      'not a url',
      'https://user:pw@example.org',
      'https://example.org/?a=1',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ])
      assert.throws(() => normalizeBaseUrl(bad), TypeError, bad);
    assert.throws(() => createClient({ baseUrl: 'ftp://x', apiKey: 'k' }), TypeError);
  });

  it('never replaces the global dispatcher (VS Code networking stays untouched)', async () => {
    const before = getGlobalDispatcher();
    const clients = [
      createClient({ baseUrl: 'https://api.consensus.app', apiKey: 'k' }),
      createClient({ baseUrl: 'https://api.consensus.app', apiKey: 'k', proxy: 'http://127.0.0.1:3128' }),
    ];
    assert.equal(getGlobalDispatcher(), before);
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a refused connection is a network error naming the origin and code, not the key', async () => {
    const t = new Transport({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 });
    try {
      await assert.rejects(
        t.send({
          method: 'GET',
          path: '/v1/search',
          query: 'query=x',
          headers: { 'x-api-key': 'sk-secret-123' },
          secret: 'sk-secret-123',
        }),
        (e: unknown) =>
          e instanceof ApiError &&
          e.kind === 'network' &&
          /127\.0\.0\.1:1 \(ECONNREFUSED\)/.test(e.message) &&
          !e.message.includes('sk-secret'),
      );
    } finally {
      await t.close();
    }
  });

  it('nestsDeeper counts array and object nesting outside strings, linearly and without recursion', () => {
    assert.equal(nestsDeeper('{"a":[1,{"b":[]}]}', 4), false);
    assert.equal(nestsDeeper('{"a":[1,{"b":[]}]}', 3), true);
    assert.equal(
      nestsDeeper('["[[[[[[", "\\"[[[[", "\\\\"]', 1),
      false,
      'brackets inside strings, escaped quotes and backslashes',
    );
    assert.equal(nestsDeeper(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`, MAX_JSON_DEPTH), false);
    assert.equal(
      nestsDeeper(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`, MAX_JSON_DEPTH),
      true,
    );
    // 1 MB of shallow JSON with many strings: well under a second.
    const wide = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ t: `[{"${i}`, n: [i] })));
    assert.ok(wide.length > 1024 * 1024);
    const t = performance.now();
    assert.equal(nestsDeeper(wide, MAX_JSON_DEPTH), false);
    assert.ok(performance.now() - t < 500);
  });

  it('nestsDeeper agrees with a character-by-character reading on random text, valid JSON or not', () => {
    // The reading it replaced: every character in turn, a backslash in a string skipping the next one.
    const reference = (text: string, limit: number): boolean => {
      let depth = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === '"') {
          for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
        } else if (c === '[' || c === '{') {
          if (++depth > limit) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    const rand = mulberry32(20261129);
    const pieces = ['"', '\\', '\\\\', '\\"', '[', ']', '{', '}', 'a', ',', ':', ' ', 'é'];
    let deeper = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      for (let k = Math.floor(rand() * 40); k > 0; k--) text += pieces[Math.floor(rand() * pieces.length)];
      const limit = Math.floor(rand() * 5);
      const expected = reference(text, limit);
      if (expected) deeper++;
      assert.equal(nestsDeeper(text, limit), expected, `${JSON.stringify(text)} at limit ${limit}`);
    }
    assert.ok(deeper > 1000, 'both answers occur');
    // Generated JSON, strings full of brackets and escapes: deeper exactly when its nesting is.
    for (let n = 0; n < 300; n++) {
      const depth = 1 + Math.floor(rand() * 8);
      let value: unknown = { s: `"]}\\[{${n}`, t: ['\\', '"'] };
      for (let d = 1; d < depth; d++) value = rand() < 0.5 ? [value, '"[', 1] : { k: value, '[{': '}]"' };
      const text = JSON.stringify(value);
      const nesting = depth + 1;
      assert.equal(nestsDeeper(text, nesting - 1), true, text);
      assert.equal(nestsDeeper(text, nesting), false, text);
    }
  });

  it('a refused connection of a billed request is marked as never sent (so it may be retried), a dropped one is not', async () => {
    const t = new Transport({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 });
    try {
      await assert.rejects(
        t.send({ method: 'POST', path: '/v1/threads', query: '', headers: {}, body: '{}', effectful: true }),
        (e: unknown) =>
          e instanceof ApiError && e.kind === 'network' && !e.mayHaveTakenEffect && /nothing was sent/.test(e.message),
      );
    } finally {
      await t.close();
    }
  });
});
