/**
 * What hover and links decode of a bibliography entry: only the fields they show (title, authors, venue, year, URL,
 * DOI), each cut to what a hover can show, and only the `@string` macros those fields use. The BibTeX library
 * decodes about a kilobyte in milliseconds but takes seconds for a long field (a 200 KB abstract took 11 s), and an
 * entry's metadata is decoded whole (bibFile.entryToPaper): hovering a key must never wait on an abstract. Pure.
 */
import { entryToPaper, type BibEntry, type BibFile } from '../cite/bibFile';
import type { CitePaper } from './types';

/** The fields shown, and the most of each decoded (a hover shows six authors, then "et al."). */
const SHOWN = new Map<string, number>([
  ['title', 1000],
  ['author', 2000],
  ['journal', 500],
  ['journaltitle', 500],
  ['booktitle', 500],
  ['howpublished', 500],
  ['year', 100],
  ['date', 100],
  ['url', 2048],
  ['doi', 2048],
]);
/** Authors decoded: one more than shown, so "et al." still appears. */
const AUTHORS = 7;

interface FieldSpan {
  name: string;
  start: number;
  end: number;
  /** Bare words in the value: `@string` macros it may use. */
  macros: string[];
}

const FIELD_NAME = /[A-Za-z][\w\-:.+]*/y;
const BARE = /[^\s,#{}"=]+/y;
const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/u.test(c);

/**
 * The `name = value` spans from `from` to `end` (an entry's fields, or a `@string`'s one), read as bibFile reads
 * them: braces balanced, quotes to the next `"` outside braces, bare words, `#` joining parts. Stops at the first
 * thing it cannot read. One pass.
 */
export function fieldSpans(text: string, from: number, end: number): FieldSpan[] {
  const out: FieldSpan[] = [];
  let j = from;
  for (;;) {
    while (j < end && (isSpace(text[j]) || text[j] === ',')) j++;
    FIELD_NAME.lastIndex = j;
    const name = FIELD_NAME.exec(text);
    if (!name || j >= end) return out;
    const fieldStart = j;
    j = FIELD_NAME.lastIndex;
    while (j < end && isSpace(text[j])) j++;
    if (text[j] !== '=') return out;
    j++;
    const macros: string[] = [];
    let valueEnd: number;
    for (;;) {
      while (j < end && isSpace(text[j])) j++;
      const c = text[j];
      if (c === '{' || c === '"') {
        let depth = c === '{' ? 1 : 0;
        let k = j + 1;
        for (; k < end; k++) {
          const d = text[k];
          if (d === '{') depth++;
          else if (d === '}') {
            depth--;
            if (c === '{' && depth === 0) break;
          } else if (d === '"' && c === '"' && depth === 0) break;
        }
        if (k >= end) return out;
        j = k + 1;
      } else {
        BARE.lastIndex = j;
        const bare = BARE.exec(text);
        if (!bare || j >= end) return out;
        if (/^[A-Za-z]/u.test(bare[0])) macros.push(bare[0].toLowerCase());
        j = BARE.lastIndex;
      }
      valueEnd = j;
      while (j < end && isSpace(text[j])) j++;
      if (text[j] !== '#') break;
      j++;
    }
    out.push({ name: name[0].toLowerCase(), start: fieldStart, end: valueEnd, macros });
    if (j < end && text[j] !== ',') return out;
  }
}

/** The raw value cut to `max` characters at a whole word, braces closed, an ellipsis after it. */
function cut(raw: string, max: number): string {
  let s = raw.slice(0, /[\ud800-\udbff]/u.test(raw[max - 1] ?? '') ? max - 1 : max);
  const space = s.lastIndexOf(' ');
  if (space > max / 2) s = s.slice(0, space);
  // No half command, no open brace: the library must read what is left.
  s = s.replace(/\\[A-Za-z]*$|\\$/u, '');
  let depth = 0;
  for (const c of s) {
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
  }
  return `${s}${'}'.repeat(depth)}…`;
}

/** The first `count` names of a raw author list (split at ` and ` outside braces). */
function firstAuthors(raw: string, count: number): string {
  let depth = 0;
  let seen = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 0 && /\s/u.test(c!) && /^and\s/iu.test(raw.slice(i + 1, i + 5)) && ++seen === count) return raw.slice(0, i);
  }
  return raw;
}

interface StringDefinition {
  start: number;
  end: number;
  /** Where its `name = value` starts. */
  fields: number;
}
const names = new WeakMap<BibFile, Map<string, StringDefinition>>();
/** The file's `@string` definitions by name (lower case). */
function stringDefinitions(file: BibFile): Map<string, StringDefinition> {
  let map = names.get(file);
  if (!map) {
    map = new Map();
    for (const d of file.directives) {
      if (d.type !== 'string') continue;
      const m = /^@\s*string\s*[{(]\s*([A-Za-z][\w\-:.+]*)/iu.exec(file.text.slice(d.start, Math.min(d.end, d.start + 200)));
      if (m) map.set(m[1]!.toLowerCase(), { start: d.start, end: d.end, fields: d.start + m[0].length - m[1]!.length });
    }
    names.set(file, map);
  }
  return map;
}

/**
 * The entry's shown fields as a small BibTeX text with the `@string`s they use (following macros that use other
 * macros), and the raw values of those fields: what `shownPaper` hands to the library.
 */
export function shownEntry(file: BibFile, entry: BibEntry): { file: BibFile; entry: BibEntry } {
  const text = file.text;
  const fields: string[] = [];
  const raw: Record<string, string> = {};
  const wanted: string[] = [];
  const comma = text.indexOf(',', entry.keyStart + entry.key.length);
  for (const f of comma < 0 || comma >= entry.end ? [] : fieldSpans(text, comma + 1, entry.end - 1)) {
    const max = SHOWN.get(f.name);
    if (max === undefined || raw[f.name] !== undefined) continue;
    let value = entry.raw[f.name] ?? '';
    if (f.name === 'author') value = firstAuthors(value, AUTHORS);
    if (f.end - f.start <= max && value === (entry.raw[f.name] ?? '')) {
      fields.push(text.slice(f.start, f.end));
      wanted.push(...f.macros);
    } else fields.push(`${f.name} = {${value.length > max ? cut(value, max) : value}}`);
    raw[f.name] = value.length > max ? value.slice(0, max) : value;
  }
  // The macros used, and the macros those use, each once.
  const defs = stringDefinitions(file);
  const used: StringDefinition[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < wanted.length && used.length < 100; i++) {
    const name = wanted[i]!;
    const d = defs.get(name);
    if (seen.has(name) || !d || d.end - d.start > 10_000) continue;
    seen.add(name);
    used.push(d);
    for (const f of fieldSpans(text, d.fields, d.end - 1)) wanted.push(...f.macros.filter((m) => m !== name));
  }
  const parts: string[] = [];
  const directives: BibFile['directives'] = [];
  let offset = 0;
  for (const d of used.sort((a, b) => a.start - b.start)) {
    const def = text.slice(d.start, d.end);
    directives.push({ type: 'string', start: offset, end: offset + def.length });
    parts.push(def);
    offset += def.length + 1;
  }
  const body = `@${entry.type}{${entry.key},\n  ${fields.join(',\n  ')}\n}`;
  parts.push(body);
  const small = parts.join('\n');
  const start = small.length - body.length;
  return {
    file: { text: small, entries: [], directives, brokenKeys: [], diagnostics: [], omitted: 0, newline: '\n' },
    entry: { type: entry.type, key: entry.key, start, end: small.length, keyStart: start + entry.type.length + 2, raw },
  };
}

const shown = new WeakMap<BibEntry, CitePaper>();

/** The metadata hover and links show for an entry, decoded from its shown fields only (once per parsed entry). */
export function shownPaper(file: BibFile, entry: BibEntry): CitePaper {
  let paper = shown.get(entry);
  if (!paper) {
    const small = shownEntry(file, entry);
    paper = { ...entryToPaper(small.file, small.entry), key: entry.key };
    shown.set(entry, paper);
  }
  return paper;
}
