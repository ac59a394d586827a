/**
 * Citation syntax per document language, and the edits that insert or extend a citation at a cursor. Pure
 * functions over (text, offset); the editor side turns the returned TextEdit into a WorkspaceEdit.
 *
 *   latex                   \cite{a,b}   \citep[p.~4]{a}   (command configurable: citep, citet, autocite, parencite…)
 *   pandoc (md, qmd, Rmd)   [@a; @b]     [@a, p. 4]        (@{key} for a key the short form cannot hold)
 *   typst                   @a @b        @a[p. 4]          (or #cite(<a>) with typstForm 'function';
 *                                                           #cite(label("key")) for a key neither can hold)
 *   plain                   a formatted reference given by the caller (reference.ts)
 *
 * Inside or right after an existing citation the key is added to it instead of writing a second one
 * (`\cite{a}` → `\cite{a,b}`, `\citep[p. 4]{a}` keeps its optional arguments, `[@a, p. 4]` → `[@a, p. 4; @b]`).
 * A new citation is set apart from the text around it as each format needs (fitCitation).
 * An `@` preceded by a letter, digit or dot (an e-mail address) is never a citation.
 *
 * Every pattern here reads a document in linear time, whatever it holds: no quantifier can take back what another
 * one took, and an unclosed opener (`\cite[`, `@a[`, `#cite(<`) is never rescanned from the next one.
 */
import { citingFlavourOf, type CitingFlavour } from '../shared/citeFlavour';
import { lazy } from '../shared/lazy';
import type { TextEdit } from './edit';

export type CiteFlavour = CitingFlavour | 'plain';

/** The flavour for a VS Code language id (file name as a fallback for unknown ids): the shared table, else plain. */
export function flavourOf(languageId: string, fileName = ''): CiteFlavour {
  return citingFlavourOf(languageId, fileName) ?? 'plain';
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

/**
 * Keys each syntax reads whole, as written and as findCitations reads them back. Pandoc's short form `@key` takes
 * letters, digits and `_`, with `:.#$%&-+?<>~/` only between them (its citeKey parser); any other key is written
 * `@{key}`. Typst's `@key` takes label characters, but its lexer gives a trailing `.` or `:` back to the text and
 * `/` or `+` end it; `<key>` takes label characters after a first identifier character (Unicode identifier
 * characters, `-`, `_`, `.`, `:`); any other key (`DBLP:journals/x`, `a+b`) is written `#cite(label("key"))`. The
 * short forms are kept to ASCII letters, which is what findCitations reads in them.
 */
const PANDOC_SIMPLE_KEY = /^\w(?:\w|[:.#$%&\-+?<>~/](?=\w)|[:/](?=\/))*$/u;
const TYPST_REF_KEY = /^\w(?:[\w\-.:]*\w)?$/u;
const TYPST_LABEL_KEY = /^[\p{XID_Continue}-][\p{XID_Continue}.:-]*$/u;

/** A key as Pandoc reads it: `@key`, else `@{key}`. */
export const pandocKey = (key: string): string => (PANDOC_SIMPLE_KEY.test(key) ? `@${key}` : `@{${key}}`);

/** A Typst string literal. */
const typstText = (s: string): string => `"${s.replace(/[\\"]/gu, (c) => `\\${c}`)}"`;

/** One Typst citation of `key` with an optional supplement, in the requested form when Typst can read it. */
function typstCitation(key: string, supplement: string, form: CiteOptions['typstForm']): string {
  if (form !== 'function' && TYPST_REF_KEY.test(key)) return `@${key}${supplement ? `[${supplement}]` : ''}`;
  const label = TYPST_LABEL_KEY.test(key) ? `<${key}>` : `label(${typstText(key)})`;
  return `#cite(${label}${supplement ? `, supplement: [${supplement}]` : ''})`;
}

/** A new citation of `keys` in the flavour (plain: the keys joined; use reference.ts for a real reference). */
export function formatCitation(flavour: CiteFlavour, keys: readonly string[], options: CiteOptions = {}): string {
  const loc = options.locator?.trim() ? formatLocator(options.locator, flavour) : '';
  switch (flavour) {
    case 'latex':
      return `\\${options.latexCommand ?? 'cite'}${loc ? `[${loc}]` : ''}{${keys.join(',')}}`;
    case 'pandoc':
      return `[${keys.map((k, i) => `${pandocKey(k)}${loc && i === keys.length - 1 ? `, ${loc}` : ''}`).join('; ')}]`;
    case 'typst':
      return keys.map((k, i) => typstCitation(k, loc && i === keys.length - 1 ? loc : '', options.typstForm)).join(' ');
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

/**
 * A LaTeX cite command and its optional arguments (group 1): any command whose name holds "cite" (`\citep`,
 * `\parencite`, `\nocite`…), checked by a look-ahead so a run of letters is read once. An optional argument ends at
 * the first `]` (as LaTeX reads it) and holds no `[`, so an unclosed `\cite[` is never read past the next one.
 */
const LATEX_CITE_HEAD = String.raw`\\(?=[A-Za-z]*cite)[A-Za-z]+\*?\s*((?:\[[^[\]]*\]\s*){0,2})`;
const LATEX_CITE = new RegExp(String.raw`${LATEX_CITE_HEAD}\{([^{}]*)\}`, 'gu');
const LATEX_OPEN = new RegExp(String.raw`${LATEX_CITE_HEAD}\{([^{}]*)$`, 'u');
/** Pandoc: a bracketed group holding at least one `@key` not glued to a word (e-mail). */
const PANDOC_GROUP = /\[([^[\]]*)\]/gu;
const PANDOC_KEY = /(^|[^\w.@])-?@([\w][\w:.#$%&\-+?<>~/]*[\w])|(^|[^\w.@])-?@(\w)|(^|[^\w.@])-?@\{([^{}\s]+)\}/gu;
/** The key of a PANDOC_KEY match and where it starts in the match (after `@`, or after `@{`). */
const pandocKeyOf = (k: RegExpMatchArray): { key: string; at: number } =>
  k[6] !== undefined
    ? { key: k[6], at: k[0].length - k[6].length - 1 }
    : { key: k[2] ?? k[4]!, at: k[0].length - (k[2] ?? k[4]!).length };
/**
 * Typst: `@key` with an optional supplement `[…]` (one level of brackets inside), or `#cite(<key>, …)` (one level of
 * parentheses inside). A label holds no `<` or `>`.
 */
const TYPST_CITE =
  /(^|[^\w.@\\])@([\w][\w\-:.]*[\w]|\w)(\[(?:[^[\]]|\[[^[\]]*\])*\])?|#cite\(\s*<([^<>]+)>(?:[^()]|\([^()]*\))*\)|#cite\(\s*label\(\s*"((?:[^"\\]|\\.)*)"\s*\)(?:[^()]|\([^()]*\))*\)/gu;

/** Every citation in a text (all flavours' rules are linear scans; call with the document's flavour). */
export function findCitations(text: string, flavour: CiteFlavour): CitationSpan[] {
  const out: CitationSpan[] = [];
  if (flavour === 'latex') {
    for (const m of text.matchAll(LATEX_CITE)) {
      const start = m.index;
      const braceOpen = start + m[0].length - m[2]!.length - 2;
      const keys: KeySpan[] = [];
      const re = /[^,\s]+/gu;
      for (const k of m[2]!.matchAll(re))
        keys.push({ key: k[0], start: braceOpen + 1 + k.index, end: braceOpen + 1 + k.index + k[0].length });
      out.push({ flavour, start, end: start + m[0].length, keys, insertAt: start + m[0].length - 1 });
    }
  } else if (flavour === 'pandoc') {
    for (const m of text.matchAll(PANDOC_GROUP)) {
      const inner = m[1]!;
      const keys: KeySpan[] = [];
      for (const k of inner.matchAll(PANDOC_KEY)) {
        const { key, at } = pandocKeyOf(k);
        const s = m.index + 1 + k.index + at;
        keys.push({ key, start: s, end: s + key.length });
      }
      // A link text like [see the docs](url) is not a citation; nor a group with no key.
      if (!keys.length || text[m.index + m[0].length] === '(') continue;
      out.push({ flavour, start: m.index, end: m.index + m[0].length, keys, insertAt: m.index + m[0].length - 1 });
    }
    // In-text citations (`@key says`) outside brackets: cited, but never extended (a new one goes after them).
    // Groups and keys both come in text order: one pass over each.
    const groups = out.slice();
    let g = 0;
    for (const k of text.matchAll(PANDOC_KEY)) {
      const { key, at } = pandocKeyOf(k);
      const s = k.index + at;
      const at0 = k.index + k[0].indexOf('@');
      const end = k.index + k[0].length;
      while (g < groups.length && groups[g]!.end <= s) g++;
      if (g < groups.length && s > groups[g]!.start) continue;
      out.push({ flavour, start: at0, end, keys: [{ key, start: s, end: s + key.length }], insertAt: end, bare: true });
    }
    out.sort((a, b) => a.start - b.start);
  } else if (flavour === 'typst') {
    for (const m of text.matchAll(TYPST_CITE)) {
      if (m[4] !== undefined) {
        const s = m.index + m[0].indexOf('<') + 1;
        out.push({
          flavour,
          start: m.index,
          end: m.index + m[0].length,
          keys: [{ key: m[4], start: s, end: s + m[4].length }],
          insertAt: m.index + m[0].length,
        });
      } else if (m[5] !== undefined) {
        const s = m.index + m[0].indexOf('"') + 1;
        const key = m[5].replace(/\\(.)/gsu, '$1');
        out.push({
          flavour,
          start: m.index,
          end: m.index + m[0].length,
          keys: [{ key, start: s, end: s + m[5].length }],
          insertAt: m.index + m[0].length,
        });
      } else {
        const start = m.index + m[1]!.length;
        const key = m[2]!;
        out.push({
          flavour,
          start,
          end: m.index + m[0].length,
          keys: [{ key, start: start + 1, end: start + 1 + key.length }],
          insertAt: m.index + m[0].length,
        });
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
  // Only look at the paragraph around the cursor (between blank lines, LF or CRLF): citations are short, documents
  // can be long.
  const from = Math.max(0, text.lastIndexOf('\n\n', offset - 1), text.lastIndexOf('\n\r\n', offset - 1));
  const toLf = text.indexOf('\n\n', offset);
  const toCrlf = text.indexOf('\n\r\n', offset);
  const to = Math.min(toLf < 0 ? text.length : toLf, toCrlf < 0 ? text.length : toCrlf);
  const spans = findCitations(text.slice(from, to), flavour);
  const hit = spans.find((s) => offset - from > s.start && offset - from <= s.end);
  return hit && shift(hit, from);
}

function shift(s: CitationSpan, d: number): CitationSpan {
  return {
    ...s,
    start: s.start + d,
    end: s.end + d,
    insertAt: s.insertAt + d,
    keys: s.keys.map((k) => ({ key: k.key, start: k.start + d, end: k.end + d })),
  };
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
  /**
   * Offset right after the citation in the text with the edit applied, before any space written after it: where the
   * next key goes to join the same citation.
   */
  end: number;
}

/** What a new citation needs around it (fitCitation). */
export interface CitationFit {
  /** Characters right before the insertion point that `lead` replaces (spaces that become a LaTeX tie). */
  remove: number;
  lead: string;
  trail: string;
}

/** How much text on each side fitCitation looks at (a longer run of spaces before a citation is kept as it is). */
export const FIT_CONTEXT = 32;

/** Opening brackets and quotes: a citation right after one needs nothing before it. */
const OPENING = lazy(() => /[([{<“‘«„‚]/u);
/** A word goes on after the citation: keep them apart. */
const WORD = /[\p{L}\p{N}]/u;
/**
 * LaTeX that starts a run of text rather than ending a word: an alignment tab (a table cell) and commands that start
 * an item or a paragraph. A tie after them would put a space at the start of that text (`\item~\cite{a}`).
 */
const STARTS_TEXT =
  /(?:^|[^\\])(?:\\\\)*(?:&|\\(?:item|par|noindent|indent|centering|raggedright|raggedleft|hline|newline|linebreak|smallskip|medskip|bigskip))$/u;
/** Characters Typst reads as more of a label (`is_id_continue` of its lexer, and `.`/`:` inside a label). */
const TYPST_LABEL_RUN = /^[\p{XID_Continue}\-.:]*/u;
const TYPST_ID_START = /[\p{XID_Start}_]/u;

/**
 * What a new citation written between `before` and `after` (the text on each side; FIT_CONTEXT characters are
 * enough) needs so the format reads it as the writer means: a citation of these keys, apart from the words around.
 *
 *   LaTeX   a tie before it after a word or punctuation (`results~\cite{a}`; spaces there become the tie), nothing at
 *           the start of a line, after an opening bracket, a table cell's `&` or `\item` (STARTS_TEXT); a space before
 *           a word that follows.
 *   Pandoc  a space before it after a word or punctuation (`word[@a]` is read, but set glued to the word); a space
 *           after it before a word, and before `(`, `[` and `{` (`[@a](x)`, `[@a][x]` and `[@a]{.c}` are a link, a
 *           reference link and a span, not citations).
 *   Typst   a space before it after a word or punctuation. After `@key`, a space before anything its lexer would take
 *           as more of the label (letters, digits, `_`, `-`, and `.`/`:` followed by those: `@a` + `memory` is the
 *           key `amemory`) or as a supplement (`[`). After `#cite(…)`, a space before `(`, `[` or `.name` (a call, a
 *           field access) and `;` before `;` (which would end the expression and vanish); a space before a word.
 */
export function fitCitation(flavour: CiteFlavour, citation: string, before: string, after: string): CitationFit {
  const fit: CitationFit = { remove: 0, lead: '', trail: '' };
  if (flavour === 'plain') return fit;
  const last = before[before.length - 1];
  if (flavour === 'latex') {
    let run = 0;
    while (run < before.length && (before[before.length - 1 - run] === ' ' || before[before.length - 1 - run] === '\t'))
      run++;
    const prev = before[before.length - 1 - run];
    if (prev !== undefined && !/[\n\r~\\([{]/u.test(prev) && !STARTS_TEXT.test(before.slice(0, before.length - run))) {
      fit.remove = run;
      fit.lead = '~';
    }
  } else if (last !== undefined && !/\s/u.test(last) && !OPENING().test(last)) {
    // A straight quote after a space or a bracket opens a quotation: the citation starts inside it.
    const opensQuote =
      (last === '"' || last === "'") && (before.length < 2 || /[\s([{]/u.test(before[before.length - 2]!));
    if (!opensQuote) fit.lead = ' ';
  }
  const next = after[0];
  if (next === undefined) return fit;
  if (WORD.test(next)) fit.trail = ' ';
  else if (flavour === 'pandoc') {
    if (/[([{]/u.test(next)) fit.trail = ' ';
  } else if (flavour === 'typst') {
    if (citation.endsWith(')')) {
      if (next === '(' || next === '[' || (next === '.' && TYPST_ID_START.test(after[1] ?? ''))) fit.trail = ' ';
      else if (next === ';') fit.trail = ';';
    } else if (!citation.endsWith(']')) {
      // The lexer takes every label character, then gives back trailing `.` and `:`.
      if (next === '[' || /[^.:]/u.test(TYPST_LABEL_RUN.exec(after)![0])) fit.trail = ' ';
    }
  }
  return fit;
}

/** fitCitation for a citation written at `offset` of `text`. */
export function fitCitationAt(flavour: CiteFlavour, citation: string, text: string, offset: number): CitationFit {
  return fitCitation(
    flavour,
    citation,
    text.slice(Math.max(0, offset - FIT_CONTEXT), offset),
    text.slice(offset, offset + FIT_CONTEXT),
  );
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
  if (flavour === 'plain') {
    const reference = options.reference ?? key;
    return {
      edit: { offset, length: 0, text: reference },
      extended: false,
      already: false,
      end: offset + reference.length,
    };
  }
  const loc = options.locator?.trim() ? formatLocator(options.locator, flavour) : '';
  const at = citationAt(text, offset, flavour);
  if (at && !at.bare && !(flavour === 'latex' && loc)) {
    if (at.keys.some((k) => k.key === key))
      return { edit: { offset: at.end, length: 0, text: '' }, extended: false, already: true, end: at.end };
    let add: string;
    let trail = '';
    if (flavour === 'latex') {
      const inner = text.slice(at.insertAt - 1, at.insertAt);
      add = at.keys.length === 0 || inner === '{' ? key : `,${key}`;
    } else if (flavour === 'pandoc') add = `; ${pandocKey(key)}${loc ? `, ${loc}` : ''}`;
    else {
      add = ` ${formatCitation('typst', [key], options)}`;
      // A Typst citation is extended after its end: what follows must not run into the new key.
      trail = fitCitationAt('typst', add, text, at.insertAt).trail;
    }
    return {
      edit: { offset: at.insertAt, length: 0, text: add + trail },
      extended: true,
      already: false,
      end: at.insertAt + add.length,
    };
  }
  const cite = formatCitation(flavour, [key], options);
  const fit = fitCitationAt(flavour, cite, text, offset);
  const start = offset - fit.remove;
  return {
    edit: { offset: start, length: fit.remove, text: fit.lead + cite + fit.trail },
    extended: false,
    already: false,
    end: start + fit.lead.length + cite.length,
  };
}

/** How much text before the cursor completionContext reads (a citation's key list is shorter). */
export const COMPLETION_WINDOW = 300;

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
  const before = text.slice(Math.max(0, offset - COMPLETION_WINDOW), offset);
  if (flavour === 'latex') {
    const m = LATEX_OPEN.exec(before);
    if (!m) return undefined;
    const prefix = m[2]!.split(/[,\s]/u).pop()!;
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
