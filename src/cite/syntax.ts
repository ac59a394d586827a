/**
 * Citation syntax per document language, and the edits that insert or extend a citation at a cursor. Pure
 * functions over (text, offset); the editor side turns the returned TextEdit into a WorkspaceEdit.
 *
 *   latex                   \cite{a,b}   \citep[p.~4]{a}   (command configurable: citep, citet, autocite, parencite…)
 *   pandoc (md, qmd, Rmd)   [@a; @b]     [@a, p. 4]
 *   typst                   @a @b        @a[p. 4]          (or #cite(<a>) with typstForm 'function')
 *   plain                   a formatted reference given by the caller (reference.ts)
 *
 * Inside or right after an existing citation the key is added to it instead of writing a second one
 * (`\cite{a}` → `\cite{a,b}`, `\citep[p. 4]{a}` keeps its optional arguments, `[@a, p. 4]` → `[@a, p. 4; @b]`).
 * An `@` preceded by a letter, digit or dot (an e-mail address) is never a citation.
 */
import type { TextEdit } from './edit';

export type CiteFlavour = 'latex' | 'pandoc' | 'typst' | 'plain';

/** The flavour for a VS Code language id (file name as a fallback for unknown ids). */
export function flavourOf(languageId: string, fileName = ''): CiteFlavour {
  const id = languageId.toLowerCase();
  if (['latex', 'tex', 'context', 'latex-expl3', 'doctex', 'rsweave'].includes(id)) return 'latex';
  if (['markdown', 'quarto', 'rmd', 'rmarkdown', 'pandoc', 'mdx'].includes(id)) return 'pandoc';
  if (id === 'typst') return 'typst';
  const ext = /\.([A-Za-z]+)$/u.exec(fileName)?.[1]?.toLowerCase();
  if (ext && ['tex', 'ltx', 'sty', 'rnw'].includes(ext)) return 'latex';
  if (ext && ['md', 'markdown', 'qmd', 'rmd'].includes(ext)) return 'pandoc';
  if (ext === 'typ') return 'typst';
  return 'plain';
}

export interface CiteOptions {
  /** LaTeX command without backslash (default 'cite'). */
  latexCommand?: string;
  /** Page or other locator: "4", "4-7", "p. 4", "chap. 2". */
  locator?: string;
  /** Typst: `@key` (default) or `#cite(<key>)`. */
  typstForm?: 'at' | 'function';
}

/** Locator text per flavour: bare numbers become "p. 4" / "pp. 4–7" (LaTeX: `p.~4`, `pp.~4--7`). */
export function formatLocator(locator: string, flavour: CiteFlavour): string {
  const l = locator.trim();
  const range = /^(\d+)\s*[-–—]+\s*(\d+)$/u.exec(l);
  if (flavour === 'latex') {
    if (/^\d+$/u.test(l)) return `p.~${l}`;
    if (range) return `pp.~${range[1]}--${range[2]}`;
    return l;
  }
  if (/^\d+$/u.test(l)) return `p. ${l}`;
  if (range) return `pp. ${range[1]}–${range[2]}`;
  return l;
}

/** A new citation of `keys` in the flavour (plain: the keys joined; use reference.ts for a real reference). */
export function formatCitation(flavour: CiteFlavour, keys: readonly string[], options: CiteOptions = {}): string {
  const loc = options.locator?.trim() ? formatLocator(options.locator, flavour) : '';
  switch (flavour) {
    case 'latex':
      return `\\${options.latexCommand ?? 'cite'}${loc ? `[${loc}]` : ''}{${keys.join(',')}}`;
    case 'pandoc':
      return `[${keys.map((k, i) => `@${k}${loc && i === keys.length - 1 ? `, ${loc}` : ''}`).join('; ')}]`;
    case 'typst':
      return keys
        .map((k, i) => {
          const l = loc && i === keys.length - 1 ? loc : '';
          return options.typstForm === 'function' ? `#cite(<${k}>${l ? `, supplement: [${l}]` : ''})` : `@${k}${l ? `[${l}]` : ''}`;
        })
        .join(' ');
    case 'plain':
      return keys.join(', ');
  }
}

/** One cited key and its offsets. */
export interface KeySpan {
  key: string;
  start: number;
  end: number;
}
/** A citation found in a document. */
export interface CitationSpan {
  flavour: CiteFlavour;
  start: number;
  end: number;
  keys: KeySpan[];
  /** Offset where a further key is inserted (before `}` or `]`; after the last key in Typst). */
  insertAt: number;
  /** Pandoc in-text citation (`@key` without brackets). */
  bare?: boolean;
}

const LATEX_CITE = /\\([A-Za-z]*cite[A-Za-z]*\*?|nocite)\s*((?:\[[^\]]*\]\s*){0,2})\{([^{}]*)\}/gu;
/** Pandoc: a bracketed group holding at least one `@key` not glued to a word (e-mail). */
const PANDOC_GROUP = /\[([^[\]]*)\]/gu;
const PANDOC_KEY = /(^|[^\w.@])-?@([\w][\w:.#$%&\-+?<>~/]*[\w])|(^|[^\w.@])-?@(\w)/gu;
const TYPST_CITE = /(^|[^\w.@\\])@([\w][\w\-:.]*[\w]|\w)(\[[^\]]*\])?|#cite\(\s*<([^>]+)>[^)]*\)/gu;

/** Every citation in a text (all flavours' rules are linear scans; call with the document's flavour). */
export function findCitations(text: string, flavour: CiteFlavour): CitationSpan[] {
  const out: CitationSpan[] = [];
  if (flavour === 'latex') {
    for (const m of text.matchAll(LATEX_CITE)) {
      const start = m.index;
      const braceOpen = start + m[0].length - m[3]!.length - 2;
      const keys: KeySpan[] = [];
      const re = /[^,\s]+/gu;
      for (const k of m[3]!.matchAll(re)) keys.push({ key: k[0], start: braceOpen + 1 + k.index, end: braceOpen + 1 + k.index + k[0].length });
      out.push({ flavour, start, end: start + m[0].length, keys, insertAt: start + m[0].length - 1 });
    }
  } else if (flavour === 'pandoc') {
    for (const m of text.matchAll(PANDOC_GROUP)) {
      const inner = m[1]!;
      const keys: KeySpan[] = [];
      for (const k of inner.matchAll(PANDOC_KEY)) {
        const key = k[2] ?? k[4]!;
        const s = m.index + 1 + k.index + k[0].indexOf('@') + 1;
        keys.push({ key, start: s, end: s + key.length });
      }
      // A link text like [see the docs](url) is not a citation; nor a group with no key.
      if (!keys.length || text[m.index + m[0].length] === '(') continue;
      out.push({ flavour, start: m.index, end: m.index + m[0].length, keys, insertAt: m.index + m[0].length - 1 });
    }
    // In-text citations (`@key says`) outside brackets: cited, but never extended (a new one goes after them).
    const groups = out.slice();
    for (const k of text.matchAll(PANDOC_KEY)) {
      const key = k[2] ?? k[4]!;
      const s = k.index + k[0].indexOf('@') + 1;
      if (groups.some((g) => s > g.start && s < g.end)) continue;
      out.push({ flavour, start: s - 1, end: s + key.length, keys: [{ key, start: s, end: s + key.length }], insertAt: s + key.length, bare: true });
    }
    out.sort((a, b) => a.start - b.start);
  } else if (flavour === 'typst') {
    for (const m of text.matchAll(TYPST_CITE)) {
      if (m[4] !== undefined) {
        const s = m.index + m[0].indexOf('<') + 1;
        out.push({ flavour, start: m.index, end: m.index + m[0].length, keys: [{ key: m[4], start: s, end: s + m[4].length }], insertAt: m.index + m[0].length });
      } else {
        const start = m.index + m[1]!.length;
        const key = m[2]!;
        out.push({ flavour, start, end: m.index + m[0].length, keys: [{ key, start: start + 1, end: start + 1 + key.length }], insertAt: m.index + m[0].length });
      }
    }
  }
  return out;
}

/** Every key a document cites, in order of first use (for Tidy Bibliography's uncited report). */
export function citedKeys(text: string, flavour: CiteFlavour): string[] {
  const out = new Set<string>();
  for (const c of findCitations(text, flavour)) for (const k of c.keys) out.add(k.key);
  return [...out];
}

/** The citation containing `offset` or ending right at it (`\cite{a}|`), if any. */
export function citationAt(text: string, offset: number, flavour: CiteFlavour): CitationSpan | undefined {
  // Only look at a window around the cursor: citations are short, documents can be long.
  const from = Math.max(0, text.lastIndexOf('\n\n', offset - 1));
  const toBreak = text.indexOf('\n\n', offset);
  const to = toBreak < 0 ? text.length : toBreak;
  const spans = findCitations(text.slice(from, to), flavour);
  const hit = spans.find((s) => offset - from > s.start && offset - from <= s.end);
  return hit && shift(hit, from);
}

function shift(s: CitationSpan, d: number): CitationSpan {
  return { ...s, start: s.start + d, end: s.end + d, insertAt: s.insertAt + d, keys: s.keys.map((k) => ({ key: k.key, start: k.start + d, end: k.end + d })) };
}

/** The key under the cursor (hover, Ctrl+click), multi-key and multi-line citations included. */
export function keyAt(text: string, offset: number, flavour: CiteFlavour): KeySpan | undefined {
  return citationAt(text, offset, flavour)?.keys.find((k) => offset >= k.start && offset <= k.end);
}

export interface InsertResult {
  edit: TextEdit;
  /** True when an existing citation was extended. */
  extended: boolean;
  /** True when the key was already in the citation at the cursor (the edit is empty). */
  already: boolean;
}

/**
 * The edit citing `key` at `offset`: extends the citation at/right before the cursor, else inserts a new one.
 * For 'plain', `reference` (from reference.ts) is inserted. A locator makes a LaTeX citation a new one (optional
 * arguments apply to the whole \cite).
 */
export function insertCitation(
  text: string,
  offset: number,
  flavour: CiteFlavour,
  key: string,
  options: CiteOptions & { reference?: string } = {},
): InsertResult {
  if (flavour === 'plain') return { edit: { offset, length: 0, text: options.reference ?? key }, extended: false, already: false };
  const loc = options.locator?.trim() ? formatLocator(options.locator, flavour) : '';
  const at = citationAt(text, offset, flavour);
  if (at && !at.bare && !(flavour === 'latex' && loc)) {
    if (at.keys.some((k) => k.key === key)) return { edit: { offset: at.end, length: 0, text: '' }, extended: false, already: true };
    let add: string;
    if (flavour === 'latex') {
      const inner = text.slice(at.insertAt - 1, at.insertAt);
      add = at.keys.length === 0 || inner === '{' ? key : `,${key}`;
    } else if (flavour === 'pandoc') add = `; @${key}${loc ? `, ${loc}` : ''}`;
    else add = ` ${formatCitation('typst', [key], options)}`;
    return { edit: { offset: at.insertAt, length: 0, text: add }, extended: true, already: false };
  }
  let cite = formatCitation(flavour, [key], options);
  // Typst/Pandoc: a citation glued to a word would read as an e-mail address or a different key.
  if (flavour !== 'latex' && offset > 0 && /[\w.@]/u.test(text[offset - 1]!)) cite = ` ${cite}`;
  return { edit: { offset, length: 0, text: cite }, extended: false, already: false };
}

export interface CompletionContext {
  /** The partial key typed so far. */
  prefix: string;
  /** Offset where the partial key starts (the completion's replace range is [start, offset)). */
  start: number;
}

/**
 * Whether a cite-key completion applies at `offset`: inside the braces of `\cite{…}` (after `{` or `,`), after
 * `[@`, `; @`, or ` @` in Pandoc, after `@` or `#cite(<` in Typst. Never after a word character (e-mail).
 */
export function completionContext(text: string, offset: number, flavour: CiteFlavour): CompletionContext | undefined {
  const before = text.slice(Math.max(0, offset - 300), offset);
  if (flavour === 'latex') {
    const m = /\\(?:[A-Za-z]*cite[A-Za-z]*\*?|nocite)\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]*)$/u.exec(before);
    if (!m) return undefined;
    const prefix = /[^,\s]*$/u.exec(m[1]!)![0];
    return { prefix, start: offset - prefix.length };
  }
  if (flavour === 'pandoc' || flavour === 'typst') {
    const m = /(^|[^\w.@\\])-?@([\w:.#$%&\-+?<>~/]*)$/u.exec(before);
    if (m) return { prefix: m[2]!, start: offset - m[2]!.length };
    if (flavour === 'typst') {
      const f = /#cite\(\s*<([^>\s]*)$/u.exec(before);
      if (f) return { prefix: f[1]!, start: offset - f[1]!.length };
    }
  }
  return undefined;
}
