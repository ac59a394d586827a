// What the build writes for a bundle's non-ASCII characters. esbuild escapes them everywhere except inside regular
// expression literals (evanw/esbuild#4205), and one left there makes V8 keep the whole bundle's source as a two-byte
// string, twice its size, for as long as the extension host runs; V8 also scans a one-byte source faster.

/**
 * `text` with each UTF-16 unit above U+007F as `\uXXXX`, which means the same character in a string, a template, a
 * comment and a regular expression, with or without the `u` flag (an astral character becomes its two surrogates'
 * escapes, read as one code point under `u`). An identity escape before one (`\–`, which only a regular expression
 * without the `u` flag can hold) loses its backslash: the escape alone means the same character.
 */
export function escapeNonAscii(text) {
  return text.replace(/(\\*)([^\0-\x7f])/g, (_, slashes, c) => {
    const kept = slashes.length % 2 ? slashes.slice(1) : slashes;
    return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
