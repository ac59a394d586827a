/**
 * markdown-it inline rule for the agent's citation markers (spec: `[1.1]` cites quote 1 of
 * paper 1, a bare `[1]` cites paper 1).
 *
 * Grammar (a marker group, recognised wherever a `[` starts inline text, before links):
 *   group := "[" item ( sep item )* "]"      item := N | N "." N      N := 1..4 digits
 *   sep   := optional spaces, "," or ";", optional spaces
 * so `[1.2]`, `[3]`, `[1.1, 2.3]`, `[1.1; 2]` are groups, and adjacent markers `[1.1][2.3]` are
 * two groups. Not markers: anything inside code spans and code blocks (those rules own their
 * text), inside a link's text (no link in a link), after a backslash (`\[1]`), or with other
 * characters (`[1-3]`, `[ 1 ]`, `[a]`).
 *
 * Each item resolving to a citation becomes a `cite_marker` token; an item that does not is
 * kept as plain text and reported. A group is consumed as a whole even when nothing resolves,
 * so a hostile link reference definition (`[1]: https://evil.example`) cannot turn a marker
 * into a link.
 */
import type MarkdownIt from 'markdown-it';
import { type CitationIndex, type ReferenceEntry, type ReferenceQuote } from './references';

type StateInline = MarkdownIt.StateInline;

export interface MarkerEnv {
  citeIndex: CitationIndex;
  /** Distinct resolved marker keys ("1.2", "3") in order of first appearance. */
  used: string[];
  /** Distinct unresolved marker keys in order of first appearance. */
  unresolved: string[];
  seen: Set<string>;
}

export interface CiteMeta {
  key: string;
  /** Text shown: "[1.2]" for a single marker, "1.2" inside a group. */
  text: string;
  ref: ReferenceEntry;
  quote: ReferenceQuote | undefined;
}

const GROUP = /^\d{1,4}(?:\.\d{1,4})?(?: *[,;] *\d{1,4}(?:\.\d{1,4})?)*$/;
const SEP = /( *[,;] *)/;
/** Longest bracketed text examined; a group is never longer (keeps scanning linear). */
const MAX_SPAN = 240;

function isMarkerChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e /* . */ || c === 0x2c /* , */ || c === 0x3b /* ; */ || c === 0x20;
}

function keyOf(item: string): string {
  const [n, m] = item.split('.');
  return m === undefined ? String(Number(n)) : `${Number(n)}.${Number(m)}`;
}

function note(env: MarkerEnv, key: string, resolved: boolean): void {
  const tag = `${resolved ? '+' : '-'}${key}`;
  if (env.seen.has(tag)) return;
  env.seen.add(tag);
  (resolved ? env.used : env.unresolved).push(key);
}

function citeMarkerRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  // Silent mode is only used by parseLinkLabel (skipToken): there a marker must count as a plain
  // bracket pair, or `[see [1.1]](https://…)` would be refused as a nested link.
  if (silent || src.charCodeAt(start) !== 0x5b /* [ */ || state.linkLevel > 0) return false;
  const env = state.env as Partial<MarkerEnv> | undefined;
  if (!env?.citeIndex) return false;
  const limit = Math.min(state.posMax, start + MAX_SPAN);
  let end = -1;
  for (let i = start + 1; i < limit; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x5d /* ] */) {
      end = i;
      break;
    }
    if (!isMarkerChar(c)) return false;
  }
  if (end < 0) return false;
  const inner = src.slice(start + 1, end);
  if (!GROUP.test(inner)) return false;
  {
    const full = env as MarkerEnv;
    const parts = inner.split(SEP);
    const single = parts.length === 1;
    const text = (content: string): void => {
      state.push('text', '', 0).content = content;
    };
    if (!single) text('[');
    parts.forEach((part, i) => {
      if (i % 2 === 1) return text(part);
      const key = keyOf(part);
      const hit = full.citeIndex.byKey.get(key);
      const shown = single ? `[${part}]` : part;
      note(full, key, hit !== undefined);
      if (!hit) return text(shown);
      const t = state.push('cite_marker', 'a', 0);
      t.meta = { key, text: shown, ref: hit.ref, quote: hit.quote } satisfies CiteMeta;
    });
    if (!single) text(']');
  }
  state.pos = end + 1;
  return true;
}

/** Install the rule (before `link`, so markers win over reference links). */
export function citeMarkers(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('link', 'cite_marker', citeMarkerRule);
}
