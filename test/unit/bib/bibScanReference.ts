/** bibScan's readKey and readFields as they were (regular expressions, parts joined): the reference the tests hold the faster scans to. */
import { matchClose } from '../../../src/bib/bibScan';

const KEY = /\s*([^\s,{}()"#%'=\\~]*)\s*,?/y;
export function readKeyReference(text: string, from: number): { key: string; keyStart: number; after: number } {
  const m = KEY;
  m.lastIndex = from;
  const r = m.exec(text);
  if (!r) return { key: '', keyStart: from, after: from };
  return { key: r[1]!, keyStart: from + r[0].indexOf(r[1]!), after: m.lastIndex };
}

const isWs = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160;
/** Characters that end a bare value (a number or a macro name). */
const endsBare = (c: number): boolean =>
  isWs(c) || c === 44 || c === 35 || c === 123 || c === 125 || c === 34 || c === 61;

/**
 * Read `name = value` pairs between `from` and `end`; returns the offset where reading failed, if it did. `spans`
 * receives each value's extent as written (braces, quotes and `#` included).
 */
export function readFieldsReference(
  text: string,
  from: number,
  end: number,
  raw: Record<string, string>,
  spans?: Map<string, [number, number]>,
): number | undefined {
  let j = from;
  const ws = (): void => {
    while (j < end && (isWs(text.charCodeAt(j)) || text.charCodeAt(j) === 44)) j++;
  };
  for (;;) {
    ws();
    if (j >= end) return undefined;
    const name = FIELD_NAME;
    name.lastIndex = j;
    const nm = name.exec(text);
    if (!nm) return j;
    j = name.lastIndex;
    while (j < end && isWs(text.charCodeAt(j))) j++;
    if (text[j] !== '=') return j;
    j++;
    const parts: string[] = [];
    while (j < end && isWs(text.charCodeAt(j))) j++;
    const valueStart = j;
    let valueEnd: number;
    for (;;) {
      while (j < end && isWs(text.charCodeAt(j))) j++;
      const c = text[j];
      if (c === '{') {
        const close = matchClose(text, j + 1, '}', end);
        if (close < 0) return j;
        parts.push(text.slice(j + 1, close));
        j = close + 1;
      } else if (c === '"') {
        let k = j + 1;
        let depth = 0;
        for (; k < end; k++) {
          const d = text.charCodeAt(k);
          if (d === 123) depth++;
          else if (d === 125) depth--;
          else if (d === 34 && depth === 0) break;
        }
        if (k >= end) return j;
        parts.push(text.slice(j + 1, k));
        j = k + 1;
      } else {
        let k = j;
        while (k < end && !endsBare(text.charCodeAt(k))) k++;
        if (k === j) return j;
        parts.push(text.slice(j, k));
        j = k;
      }
      valueEnd = j;
      while (j < end && isWs(text.charCodeAt(j))) j++;
      if (text[j] === '#') j++;
      else break;
    }
    raw[nm[0].toLowerCase()] = parts.join('');
    spans?.set(nm[0].toLowerCase(), [valueStart, valueEnd]);
    if (j < end && text[j] !== ',') return j;
  }
}
const FIELD_NAME = /[A-Za-z][\w\-:.+]*/y;
