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

/** Remove LaTeX comments: `%` to the end of the line unless escaped as `\%`. */
function stripLatexComments(text: string): string {
  return text.replace(/(^|[^\\])((?:\\\\)*)%.*$/gmu, '$1$2');
}

export function latexBibliographies(text: string): string[] {
  const t = stripLatexComments(text);
  const out: string[] = [];
  for (const m of t.matchAll(/\\(bibliography|addbibresource|addglobalbib|addsectionbib)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}/gu)) {
    const names = m[1] === 'bibliography' ? m[2]!.split(',') : [m[2]!];
    for (const raw of names) {
      const n = raw.trim();
      if (!n) continue;
      out.push(m[1] === 'bibliography' && !/\.bib$/iu.test(n) ? `${n}.bib` : n);
    }
  }
  return uniq(out);
}

/** The main file of a LaTeX part: the `% !TEX root = …` magic comment (first 30 lines) or the subfiles class option. */
export function texRoot(text: string): string | undefined {
  const head = text.split(/\r?\n/u, 30).join('\n');
  const magic = /^[ \t]*%[ \t]*!\s*T[Ee]X\s+root\s*=\s*(.+?)\s*$/mu.exec(head)?.[1];
  const sub = /\\documentclass\s*\[([^\]]+)\]\s*\{subfiles\}/u.exec(text)?.[1]?.trim();
  const root = magic ?? sub;
  if (!root) return undefined;
  return /\.[A-Za-z]+$/u.test(root) ? root : `${root}.tex`;
}

const unquote = (s: string): string => {
  const t = s.trim();
  const q = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/u.exec(t);
  if (q) return q[1] !== undefined ? q[1].replace(/\\(.)/gu, '$1') : q[2]!.replace(/''/gu, "'");
  return t.replace(/\s+#.*$/u, '').trim();
};

/** The `bibliography:` value of a YAML text (a top-level key): a string, a block list or a flow list. */
export function yamlBibliographies(yaml: string): string[] {
  const lines = yaml.split(/\r?\n/u);
  for (let i = 0; i < lines.length; i++) {
    const m = /^bibliography\s*:\s*(.*)$/u.exec(lines[i]!);
    if (!m) continue;
    const v = m[1]!.replace(/^#.*$/u, '').trim();
    if (v.startsWith('[')) return uniq(v.replace(/^\[|\]\s*(?:#.*)?$/gu, '').split(',').map(unquote));
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

/** Remove Typst comments (`// …` and `/* … *\/`), leaving strings alone. */
function stripTypstComments(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\/\*[\s\S]*?\*\/|\/\/.*$/gmu, (m) => (m.startsWith('"') ? m : ''));
}

export function typstBibliographies(text: string): string[] {
  const t = stripTypstComments(text);
  const out: string[] = [];
  for (const m of t.matchAll(/#bibliography\(\s*(\([^)]*\)|"(?:[^"\\]|\\.)*")/gu)) {
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
