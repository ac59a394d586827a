/**
 * Where a document declares its bibliography. Returns paths as written (relative to the document, or absolute),
 * in order, without duplicates; the editor side resolves them, falls back to the configured default
 * (`references.bib`) and asks when nothing is found. Commented-out declarations are ignored. Pure.
 *
 *   LaTeX      \bibliography{a,b} (".bib" added when missing)   \addbibresource[opts]{x.bib}   (% comments)
 *   Markdown   YAML front matter `bibliography: refs.bib` or a list (block or [flow]); Quarto/R Markdown too
 *   _quarto.yml  the project's `bibliography:` (text passed by the caller; paths relative to that file)
 *   Typst      #bibliography("refs.bib") or #bibliography(("a.bib", "b.yml"))            (line and block comments)
 */
import type { CiteFlavour } from './syntax';

const uniq = (xs: string[]): string[] => [...new Set(xs.filter((x) => x.length > 0))];

/**
 * Remove LaTeX comments: `%` to the end of the line unless escaped as `\%`. Read as tokens, a backslash with the
 * character it escapes or a comment, so a run of backslashes is read once (not again from each of them).
 */
function stripLatexComments(text: string): string {
  return text.replace(/\\[\s\S]|%[^\n\r\u2028\u2029]*/gu, (m) => (m[0] === '%' ? '' : m));
}

export function latexBibliographies(text: string): string[] {
  const t = stripLatexComments(text);
  const out: string[] = [];
  // An argument holds no brace or bracket: an unclosed one is never read past the next command.
  for (const m of t.matchAll(
    /\\(bibliography|addbibresource|addglobalbib|addsectionbib)\s*(?:\[[^[\]]*\]\s*)?\{([^{}]*)\}/gu,
  )) {
    const names = m[1] === 'bibliography' ? m[2]!.split(',') : [m[2]!];
    for (const raw of names) {
      const n = raw.trim();
      if (!n) continue;
      out.push(m[1] === 'bibliography' && !/\.bib$/iu.test(n) ? `${n}.bib` : n);
    }
  }
  return uniq(out);
}

const MAGIC_ROOT = /^[ \t]*%[ \t]*![ \t]*T[Ee]X[ \t]+root[ \t]*=(.*)/u;

/** The main file of a LaTeX part: the `% !TEX root = …` magic comment (first 30 lines) or the subfiles class option. */
export function texRoot(text: string): string | undefined {
  let magic: string | undefined;
  // Line by line, each line read once (the value is trimmed afterwards rather than by a pattern around it).
  for (let line = 0, start = 0; line < 30 && start <= text.length && magic === undefined; line++) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    magic = MAGIC_ROOT.exec(text.slice(start, end))?.[1]?.trim() || undefined;
    start = end + 1;
  }
  const sub = /\\documentclass\s*\[([^[\]]+)\]\s*\{subfiles\}/u.exec(text)?.[1]?.trim();
  const root = magic ?? sub;
  if (!root) return undefined;
  return /\.[A-Za-z]+$/u.test(root) ? root : `${root}.tex`;
}

const unquote = (s: string): string => {
  const t = s.trim();
  const q = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/u.exec(t);
  if (q) return q[1] !== undefined ? q[1].replace(/\\(.)/gu, '$1') : q[2]!.replace(/''/gu, "'");
  // A comment starts at ` #` (found by one look at each character, not a pattern scanning every run of spaces).
  const comment = /\s#/u.exec(t);
  return (comment ? t.slice(0, comment.index) : t).trim();
};

/** The `bibliography:` value of a YAML text (a top-level key): a string, a block list or a flow list. */
export function yamlBibliographies(yaml: string): string[] {
  const lines = yaml.split(/\r?\n/u);
  for (let i = 0; i < lines.length; i++) {
    const m = /^bibliography\s*:\s*(.*)$/u.exec(lines[i]!);
    if (!m) continue;
    const v = m[1]!.replace(/^#.*$/u, '').trim();
    if (v.startsWith('['))
      return uniq(
        v
          .replace(/^\[|\]\s*(?:#.*)?$/gu, '')
          .split(',')
          .map(unquote),
      );
    if (v && v !== '|' && v !== '>') return uniq([unquote(v)]);
    const out: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (/^\s*(?:#.*)?$/u.test(l)) continue;
      const item = /^\s+-\s+(.*)$/u.exec(l) ?? /^-\s+(.*)$/u.exec(l);
      if (!item) break;
      out.push(unquote(item[1]!));
    }
    return uniq(out);
  }
  return [];
}

/** The YAML front matter of a Markdown/Quarto/R Markdown document (between the leading `---` lines), if any. */
export function frontMatter(text: string): string | undefined {
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/u.exec(text);
  return m?.[1];
}

/**
 * Remove Typst comments (`// …` and `/* … *\/`), leaving strings alone: what one leftmost pass of
 * `"(?:[^"\\]|\\.)*"|\/\*[\s\S]*?\*\/|\/\/.*$` removes, in linear time. That pattern fails at a string or block comment
 * that never closes and tries again one character on, reading to the end each time. Here a failed one says where
 * the next may start: every `"` before the point where a string failed fails there too (escapes pair up the same
 * way from any of them), and no `/*` after one without `*\/` has one either.
 */
function stripTypstComments(text: string): string {
  const out: string[] = [];
  const special = /["/]/gu;
  let copied = 0;
  let stringsFrom = 0;
  let blocks = true;
  for (let m = special.exec(text); m; m = special.exec(text)) {
    const i = m.index;
    if (text[i] === '"') {
      if (i < stringsFrom) continue;
      const close = closingQuote(text, i + 1);
      if (close.ok) special.lastIndex = close.at + 1;
      else stringsFrom = close.at + 1;
      continue;
    }
    let end: number;
    if (text[i + 1] === '*' && blocks) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) {
        blocks = false;
        continue;
      }
      end = close + 2;
    } else if (text[i + 1] === '/') {
      LINE_ENDS.lastIndex = i + 2;
      end = LINE_ENDS.exec(text)?.index ?? text.length;
    } else continue;
    out.push(text.slice(copied, i));
    copied = end;
    special.lastIndex = end;
  }
  out.push(text.slice(copied));
  return out.join('');
}
const LINE_END = /[\n\r\u2028\u2029]/u;
const LINE_ENDS = /[\n\r\u2028\u2029]/gu;

/** Where the string whose text starts at `from` closes, or where it fails (a backslash before a line end, the end). */
function closingQuote(text: string, from: number): { ok: boolean; at: number } {
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === '"') return { ok: true, at: j };
    if (c === '\\') {
      if (j + 1 >= text.length || LINE_END.test(text[j + 1]!)) return { ok: false, at: j };
      j++;
    }
  }
  return { ok: false, at: text.length };
}

export function typstBibliographies(text: string): string[] {
  const t = stripTypstComments(text);
  const out: string[] = [];
  for (const m of t.matchAll(/#bibliography\(\s*(\([^()]*\)|"(?:[^"\\]|\\.)*")/gu)) {
    for (const s of m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/gu)) out.push(s[1]!.replace(/\\(.)/gu, '$1'));
  }
  return uniq(out);
}

export interface LocatedBibliographies {
  /** Paths relative to the document (or absolute). */
  fromDocument: string[];
  /** Paths from `_quarto.yml`, relative to that file. */
  fromProject: string[];
}

/** The bibliographies a document declares; `quartoYml` is the project's `_quarto.yml` text when there is one. */
export function locateBibliographies(text: string, flavour: CiteFlavour, quartoYml?: string): LocatedBibliographies {
  let fromDocument: string[] = [];
  if (flavour === 'latex') fromDocument = latexBibliographies(text);
  else if (flavour === 'typst') fromDocument = typstBibliographies(text);
  else if (flavour === 'pandoc') {
    const fm = frontMatter(text);
    fromDocument = fm ? yamlBibliographies(fm) : [];
  }
  return { fromDocument, fromProject: quartoYml && flavour === 'pandoc' ? yamlBibliographies(quartoYml) : [] };
}
