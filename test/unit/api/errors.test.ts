/** The status → kind factory for every row of the spec's error table, the two 429s and reset dates. */
import assert from 'node:assert/strict';
import {
  ApiError,
  classify429,
  errorFromResponse,
  MAX_ISSUES,
  redact,
  sanitizeServiceText,
  scrubError,
  serviceText,
  validationError,
} from '../../../src/api/errors';
import { VSCODE_LINK } from '../../vscodeLinks';
import { defangLinks } from '../../../src/shared/plainText';

const ctx = { method: 'GET', path: '/v1/search' };
const MONTHLY = 'You have used all included calls for this month. Your usage resets on 2026-12-01.';
const PER_SECOND = 'Too many requests. Slow down to the published rate.';

describe('api/errors: errorFromResponse', () => {
  it('maps every status row of the error table to its kind', () => {
    const rows: [number, unknown, string][] = [
      [401, { detail: 'Invalid API key.', code: 'unauthorized' }, 'unauthorized'],
      [402, { detail: 'Billing past due.', code: 'payment_required' }, 'payment_required'],
      [403, { detail: 'Full-text excerpts need a paid plan.', code: 'feature_not_allowed' }, 'feature_not_allowed'],
      [409, { detail: 'The latest interaction is still running.', code: 'conflict' }, 'conflict'],
      [422, { detail: [{ loc: ['query', 'page'], msg: 'bad', type: 'less_than_equal' }] }, 'validation'],
      [429, { detail: MONTHLY }, 'quota_exhausted'],
      [429, { detail: PER_SECOND }, 'rate_limited'],
      [500, { detail: 'boom' }, 'server'],
      [502, 'Bad gateway', 'server'],
      [503, undefined, 'server'],
      [404, { detail: 'Thread not found.' }, 'not_found'],
      [302, undefined, 'invalid_response'],
      [418, {}, 'invalid_response'],
    ];
    for (const [status, body, kind] of rows) {
      const e = errorFromResponse(status, body, ctx);
      assert.ok(e instanceof ApiError && e instanceof Error);
      assert.equal(e.kind, kind, `${status}`);
      assert.equal(e.status, status);
      assert.equal(e.name, 'ApiError');
      assert.ok(e.message.length > 20, 'a sentence a person can act on');
    }
  });

  it('keeps the 403 code and the service sentence (sanitised)', () => {
    const e = errorFromResponse(
      403,
      { detail: 'Excerpts\u0007 need a paid plan.\n', code: 'feature_not_allowed' },
      ctx,
    );
    assert.equal(e.code, 'feature_not_allowed');
    assert.match(e.message, /The service said: "Excerpts need a paid plan\."/);
  });

  it('422 carries every detail item and names each field in the message', () => {
    const detail = [
      { loc: ['query', 'page'], msg: 'Input should be less than or equal to 49', type: 'less_than_equal' },
      { loc: ['query', 'sjr_min'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
      { bogus: true },
    ];
    const e = errorFromResponse(422, { detail }, ctx);
    assert.equal(e.detail?.length, 2);
    assert.match(e.message, /query\.page: .*; query\.sjr_min: /);
  });

  it('monthly 429 → quota_exhausted with the reset date; per-second 429 → rate_limited with Retry-After', () => {
    const q = errorFromResponse(429, { detail: MONTHLY }, ctx);
    assert.equal(q.kind, 'quota_exhausted');
    assert.equal(q.resetDate, '2026-12-01');
    assert.match(q.message, /resets on 2026-12-01/);
    const r = errorFromResponse(429, { detail: PER_SECOND }, { ...ctx, retryAfterSeconds: 1 });
    assert.equal(r.kind, 'rate_limited');
    assert.equal(r.retryAfterSeconds, 1);
    assert.equal(r.resetDate, undefined);
  });

  it('classify429: wording, codes, missing or impossible dates, unknown messages', () => {
    assert.deepEqual(classify429('Monthly quota exhausted'), { kind: 'quota_exhausted' });
    assert.deepEqual(classify429('All included searches are used; resets on 2027-01-01'), {
      kind: 'quota_exhausted',
      resetDate: '2027-01-01',
    });
    assert.deepEqual(classify429('Your usage resets on 2027-13-45.'), { kind: 'quota_exhausted' });
    assert.deepEqual(classify429('too many requests'), { kind: 'rate_limited' });
    assert.deepEqual(classify429('Something odd happened'), { kind: 'rate_limited' });
    assert.deepEqual(classify429(''), { kind: 'rate_limited' });
    assert.deepEqual(classify429('whatever', 'quota_exhausted'), { kind: 'quota_exhausted' });
    assert.equal(errorFromResponse(429, undefined, ctx).kind, 'rate_limited');
  });

  it('validationError names every field and is never sent', () => {
    const e = validationError([
      { loc: ['query', 'a'], msg: 'x', type: 't' },
      { loc: ['body', 'b'], msg: 'y', type: 't' },
    ]);
    assert.equal(e.kind, 'validation');
    assert.equal(e.status, undefined);
    assert.match(e.message, /not sent: query\.a: x; body\.b: y/);
  });

  it('sanitises and bounds service text; redact removes a secret everywhere', () => {
    assert.equal(sanitizeServiceText('a\u202Eb\u0000c'), 'a b c');
    assert.equal(sanitizeServiceText('x'.repeat(1000)).length, 300);
    assert.equal(redact('key sk-123456 and sk-123456', 'sk-123456'), 'key [redacted] and [redacted]');
    assert.equal(redact('short', ''), 'short');
  });
});

const KEY = 'sk-Live_9f8e7d6c5b4a&Q/z';

/** The time `f` takes, in ms (the best of two runs, so a GC pause does not count). */
function ms(f: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const t = performance.now();
    f();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

describe('api/errors: redaction in every encoding', () => {
  const bytes = [...Buffer.from(KEY)];
  const forms: Record<string, string> = {
    raw: KEY,
    upper: KEY.toUpperCase(),
    lower: KEY.toLowerCase(),
    'percent (upper hex)': bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join(''),
    'percent (lower hex)': bytes.map((b) => `%${b.toString(16)}`).join(''),
    'percent, only some characters': encodeURIComponent(KEY),
    'percent, twice': bytes.map((b) => `%25${b.toString(16)}`).join(''),
    'JSON \\u escapes': [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    'JSON \\u escapes, upper hex': [...KEY]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
      .join(''),
    'JSON \\/': KEY.replace('/', '\\/'),
    'HTML decimal entities': bytes.map((b) => `&#${b};`).join(''),
    'HTML hex entities': bytes.map((b) => `&#x${b.toString(16)};`).join(''),
    'HTML escaped (&amp;)': KEY.replace('&', '&amp;'),
    mixed: `${KEY.slice(0, 5).toUpperCase()}%${KEY.charCodeAt(5).toString(16)}\\u00${KEY.charCodeAt(6).toString(16)}${KEY.slice(7)}`,
  };
  for (const prefix of ['', 'a', 'ab']) {
    const b64 = Buffer.from(`${prefix}${KEY}!`).toString('base64');
    forms[`base64 after ${prefix.length} byte(s)`] = b64;
    forms[`base64url after ${prefix.length} byte(s)`] = b64.replace(/\+/g, '-').replace(/\//g, '_');
  }

  for (const [name, form] of Object.entries(forms)) {
    it(`${name}: redacted, the text around it kept`, () => {
      const out = redact(`before ${form} after`, KEY);
      assert.match(out, /^before .*\[redacted\].* after$/);
      // Nothing long enough to rebuild the key is left: a few boundary characters (of base64 groups shared with the
      // neighbours) at most.
      assert.ok(out.length <= 'before [redacted] after'.length + 6, out);
    });
  }

  it('leaves other text alone, and secrets under 4 characters are not redacted', () => {
    assert.equal(
      redact('sk-Live_9f8e7d6c5b4a&Q/ but not the same key', KEY),
      'sk-Live_9f8e7d6c5b4a&Q/ but not the same key',
    );
    assert.equal(redact('abc abc', 'abc'), 'abc abc');
    assert.equal(redact('short', ''), 'short');
  });

  it('serviceText redacts before cutting: no start of a key survives where the text is cut', () => {
    // White space folds away, so what stood at the cut becomes the visible start.
    const raw = `${' '.repeat(300 * 4 + 3)}${KEY}${'z'.repeat(10_000)}`;
    const out = serviceText(raw, KEY);
    assert.ok(!out.includes(KEY.slice(0, 6)), out.slice(0, 80));
    assert.ok(serviceText(`x ${KEY} y`, KEY) === 'x [redacted] y');
  });

  it('errorFromResponse and scrubError leave the key in no field (code, message, detail loc/msg/type)', () => {
    const e = errorFromResponse(
      422,
      {
        code: `bad_${KEY.toUpperCase()}`,
        detail: [{ loc: ['query', encodeURIComponent(KEY)], msg: `got ${KEY}`, type: KEY.toLowerCase() }],
      },
      { method: 'GET', path: '/v1/search', secret: KEY },
    );
    for (const t of [e.message, e.code ?? '', JSON.stringify(e.detail)])
      assert.ok(!t.toLowerCase().includes(KEY.toLowerCase()) && !t.includes('%2F') && !t.includes('9f8e7d'), t);
    const built = new ApiError('server', `x ${KEY}`, { code: KEY, detail: [{ loc: [KEY, 1], msg: KEY, type: KEY }] });
    const s = scrubError(built, KEY);
    assert.deepEqual(
      [s.message, s.code, s.detail],
      ['x [redacted]', '[redacted]', [{ loc: ['[redacted]', 1], msg: '[redacted]', type: '[redacted]' }]],
    );
    assert.ok(!(s.stack ?? '').includes(KEY));
  });
});

describe('api/errors: service text is bounded and shows no link', () => {
  it('Markdown and autolink syntax is defanged; the words stay', () => {
    const cases = [
      '[Renew](command:workbench.action.quit)',
      '[docs](https://evil.example/a "title") and [f](FILE:///etc/passwd)',
      '![img](https://evil.example/x.png)',
      '[a]\u0000(command:y) [b]\n(command:z)',
      '<command:workbench.action.quit> <https://evil.example>',
    ];
    for (const c of cases) {
      const out = sanitizeServiceText(c);
      assert.equal(out.match(VSCODE_LINK), null, out);
      assert.ok(!/<[a-z][a-z0-9+.-]*:/i.test(out), out);
      assert.match(out, /[a-z]/);
    }
    assert.equal(sanitizeServiceText('[Renew](command:x)'), '[Renew] (command:x)');
    assert.equal(defangLinks('plain [text] (not a link) a<b'), 'plain [text] (not a link) a<b');
  });

  it('a loc nested 100,000 deep is neither walked nor thrown on; 100,000 items are bounded', () => {
    let loc: unknown = 'query';
    for (let i = 0; i < 100_000; i++) loc = [loc];
    const e = errorFromResponse(
      422,
      {
        detail: [
          { loc, msg: 'bad', type: 't' },
          { loc: [['x']], msg: 'odd', type: 't' },
        ],
      },
      { method: 'GET', path: '/v1/search' },
    );
    assert.equal(e.kind, 'validation');
    assert.deepEqual(
      e.detail?.map((d) => d.loc),
      [['…'], ['…']],
    );
    const many = errorFromResponse(
      422,
      { detail: Array.from({ length: 100_000 }, (_, i) => ({ loc: ['query', `f${i}`], msg: 'm', type: 't' })) },
      { method: 'GET', path: '/v1/search' },
    );
    assert.equal(many.detail?.length, MAX_ISSUES);
    assert.match(many.message, /query\.f9: m; and 99990 more$/);
  });

  it('linear time: 1 MB of hostile text through sanitizeServiceText, serviceText and redact in well under a second each', () => {
    const MB = 1024 * 1024;
    const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));
    const inputs = {
      links: fill('[a](command:x)'),
      brackets: fill('](<a:'),
      'key prefixes': fill(KEY.slice(0, -1)),
      'escape prefixes': fill('%25\\u00&#x0000'),
      spaces: `${fill(' \u0000\u202e')}x`,
    };
    for (const [name, text] of Object.entries(inputs)) {
      assert.ok(text.length >= MB * 0.99, name);
      for (const [f, run] of [
        ['sanitizeServiceText', () => sanitizeServiceText(text, 10 * MB)],
        ['serviceText', () => serviceText(text, KEY)],
        ['redact', () => redact(text, KEY)],
      ] as const) {
        const t = ms(run);
        assert.ok(t < 500, `${f} on 1 MB of ${name}: ${Math.round(t)} ms`);
      }
    }
  });
});
