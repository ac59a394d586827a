// The one link rule (src/shared/url.ts): every link the extension shows or opens passes it. Hostile URLs of every
// kind are refused, with the reason a caller turns into a sentence; an accepted one comes back in the canonical form
// that is opened.
import * as assert from 'node:assert/strict';
import {
  checkHttpsUrl,
  isSafeHttpsUrl,
  MAX_LINK_LENGTH,
  safeHttpsUrl,
  type LinkRefusal,
} from '../../../src/shared/url';
import { doiUrl } from '../../../src/search/query';

function refusal(url: unknown): LinkRefusal | undefined {
  const check = checkHttpsUrl(url);
  return check.ok ? undefined : check.refusal;
}

function assertRefused(urls: readonly unknown[], why: LinkRefusal): void {
  for (const url of urls) {
    assert.equal(refusal(url), why, JSON.stringify(url));
    assert.equal(safeHttpsUrl(url), undefined, JSON.stringify(url));
    assert.equal(isSafeHttpsUrl(url), false, JSON.stringify(url));
  }
}

describe('the one link rule (shared/url: checkHttpsUrl, safeHttpsUrl)', () => {
  it('accepts an https URL with a domain name and gives its canonical form', () => {
    assert.equal(safeHttpsUrl('https://consensus.app/papers/x/abc/'), 'https://consensus.app/papers/x/abc/');
    assert.equal(safeHttpsUrl('HTTPS://Example.ORG/A?q=1#f'), 'https://example.org/A?q=1#f');
    assert.equal(safeHttpsUrl('https://example.org'), 'https://example.org/');
    assert.equal(safeHttpsUrl('https://1.2.3.4/x'), 'https://1.2.3.4/x');
    assert.equal(safeHttpsUrl('https://[2001:db8::1]/x'), 'https://[2001:db8::1]/x');
    // An @ after the host is part of the path, query or fragment, not userinfo.
    assert.equal(safeHttpsUrl('https://example.org/a@b?c=@d#@e'), 'https://example.org/a@b?c=@d#@e');
    assert.deepEqual(checkHttpsUrl('https://example.org/'), { ok: true, url: 'https://example.org/' });
  });

  it('refuses credentials in any spelling, even empty ones and encoded separators', () => {
    assertRefused(
      [
        'https://user:pass@example.org/',
        'https://user@example.org/',
        'https://:pass@example.org/',
        'https://@example.org/',
        'https://:@example.org/',
        'https://consensus.app@evil.example/papers/x',
        'https://consensus.app%2F@evil.example/',
        'https://a@b@evil.example/',
        'HTTPS://USER:PASS@EXAMPLE.ORG/',
        'https://user%3Apass@example.org/',
      ],
      'credentials',
    );
    // Extra slashes the parser skips still leave no userinfo through.
    assert.equal(refusal('https:///user:pass@example.org/'), 'credentials');
  });

  it('refuses every other scheme, and schemes hidden by entities, percent-encoding or a missing //', () => {
    assertRefused(
      [
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        'javascript:https://example.org',
        'command:workbench.action.quit',
        'command:researchDesk.clearApiKey?%5B%5D',
        'vscode:extension/evil.extension',
        'vscode://file/etc/passwd',
        'file:///etc/passwd',
        'http://example.org/',
        'ftp://example.org/',
        'mailto:a@example.org',
        'data:text/html,<script>alert(1)</script>',
        '&#106;avascript:alert(1)',
        '&#x6A;avascript:alert(1)',
        'https&#58;//example.org/',
        '&#104;ttps://example.org/',
        '%68ttps://example.org/',
        'https%3A%2F%2Fexample.org/',
        'https:%2F%2Fexample.org/',
        'https:example.org',
        'https:/example.org',
        '//example.org/',
        '/papers/x',
        'example.org',
      ],
      'notHttps',
    );
  });

  it('refuses whitespace, control, invisible and bidi characters anywhere, and backslashes', () => {
    const inside = [
      ' ',
      '\t',
      '\n',
      '\r',
      '\u0000',
      '\u0007',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u009b',
      '\u00a0',
      '\u00ad',
      '\u061c',
      '\u1680',
      '\u180e',
      '\u2000',
      '\u200a',
      '\u200b',
      '\u200c',
      '\u200d',
      '\u200e',
      '\u200f',
      '\u2028',
      '\u2029',
      '\u202a',
      '\u202e',
      '\u202f',
      '\u205f',
      '\u2060',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u3000',
      '\ufeff',
      '\ufff9',
      '\ud800',
      '\udfff',
      '\ue000',
      '\\',
    ];
    const urls = inside.flatMap((c) => [
      `https://example.org/a${c}b`,
      `https://exa${c}mple.org/`,
      `https://example.org/${c}`,
      `https://example.org${c}.evil.example/`,
    ]);
    assertRefused(urls, 'characters');
    // The parser would drop a tab or newline (`https://exa\tmple.org` opens example.org) and read `\` as `/`, so a
    // link could read as one site and open another.
    assert.equal(new URL('https://exa\tmple.org/').href, 'https://example.org/');
    assert.equal(new URL('https://example.org\\@evil.example/').host, 'example.org');
    assertRefused(['https://example.org\\@evil.example/', 'https://evil.example\\.example.org/'], 'characters');
    assert.equal(refusal('https:\\\\example.org/'), 'notHttps');
    // Whitespace around is refused too: callers trim service text first when they mean to.
    assertRefused(['https://example.org/\n', 'https://example.org/ ', 'https://example.org/\u00a0'], 'characters');
    assertRefused(['\thttps://example.org/', ' https://example.org/', '\ufeffhttps://example.org/'], 'notHttps');
  });

  it('refuses single-label and malformed hosts, and ports the parser refuses', () => {
    assertRefused(['https://intranet/', 'https://localhost/', 'https://user/', 'https://localhost:8443/x'], 'host');
    assertRefused(
      [
        'https://',
        'https://:443/',
        'https://example.org:99999/',
        'https://example.org:0x50/',
        'https://exa%00mple.org/',
        'https://[::1/',
        'https://a b.org/'.replace(' ', '%20'),
      ],
      'malformed',
    );
  });

  it('keeps ports, dropping the default one', () => {
    assert.equal(safeHttpsUrl('https://example.org:443/x'), 'https://example.org/x');
    assert.equal(safeHttpsUrl('https://example.org:/x'), 'https://example.org/x');
    assert.equal(safeHttpsUrl('https://example.org:8443/x'), 'https://example.org:8443/x');
    assert.equal(safeHttpsUrl('https://example.org:80/x'), 'https://example.org:80/x');
  });

  it('gives an IDN or a look-alike host in punycode, the form opened and shown by the browser prompt', () => {
    assert.equal(safeHttpsUrl('https://bücher.example/'), 'https://xn--bcher-kva.example/');
    // Cyrillic "а" in "аpple": the look-alike shows as what it is.
    assert.equal(safeHttpsUrl('https://\u0430pple.com/'), 'https://xn--pple-43d.com/');
    assert.equal(safeHttpsUrl('https://xn--pple-43d.com/'), 'https://xn--pple-43d.com/');
    // Full-width letters and the ideographic full stop map to the host they stand for.
    assert.equal(safeHttpsUrl('https://ｅｘａｍｐｌｅ.org/'), 'https://example.org/');
    assert.equal(safeHttpsUrl('https://example\u3002org/'), 'https://example.org/');
    // A percent-encoded host is decoded: what is checked is what is opened.
    assert.equal(safeHttpsUrl('https://%65xample.org/'), 'https://example.org/');
  });

  it('refuses a link longer than 2,048 characters, as written or once canonical', () => {
    const path = 'a'.repeat(MAX_LINK_LENGTH - 'https://example.org/'.length);
    assert.equal(safeHttpsUrl(`https://example.org/${path}`), `https://example.org/${path}`);
    assert.equal(refusal(`https://example.org/${path}a`), 'tooLong');
    // Short as written, over the limit once its characters are percent-encoded.
    assert.equal(refusal(`https://example.org/${'é'.repeat(400)}`), 'tooLong');
  });

  it('refuses what is not a non-empty string', () => {
    assertRefused([undefined, null, '', 42, {}, ['https://example.org/'], new URL('https://example.org/')], 'missing');
  });

  it('builds DOI links through the same rule', () => {
    assert.equal(doiUrl('10.1000/xyz.1'), 'https://doi.org/10.1000/xyz.1');
    assert.equal(doiUrl('doi: 10.1000/a@b'), 'https://doi.org/10.1000/a%40b');
    assert.equal(
      doiUrl('https://doi.org/10.1000/javascript:alert(1)'),
      'https://doi.org/10.1000/javascript%3Aalert(1)',
    );
    assert.equal(doiUrl('10.1000/a\u202eb'), 'https://doi.org/10.1000/a%E2%80%AEb');
    assert.equal(doiUrl(`10.1000/${'a'.repeat(MAX_LINK_LENGTH)}`), undefined);
  });
});
