/**
 * The programs writers build their documents with, driven from Node: pandoc with citeproc (Markdown, Quarto,
 * R Markdown), pdflatex with BibTeX and natbib, pdflatex with biblatex and Biber, and Typst (the compiler of the
 * `@myriaddreamin/typst-ts-node-compiler` package, Typst's own code built for Node). Each runner compiles one
 * document and its .bib in a fresh folder and returns what the writer would see: errors, unresolved citations, and
 * each bibliography entry as the toolchain rendered it (authors, title, venue, year, DOI, URL), read from its own
 * output: pandoc's and Typst's rendered text through a style that prints every field between markers
 * (fixtures/toolchain-test.csl), the .bbl BibTeX or Biber wrote, with what is still LaTeX in it read by pandoc's LaTeX
 * reader. Nothing here uses Research Desk's own .bib reader: the point is to hear from the programs themselves.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CSL = join(__dirname, 'fixtures', 'toolchain-test.csl');

/** One bibliography entry as a toolchain rendered it (all text in Unicode). */
export interface RenderedEntry {
  key: string;
  authors: string[];
  title: string;
  journal?: string;
  year?: string;
  doi?: string;
  url?: string;
}

export interface CompileResult {
  /** Errors (LaTeX's `!` lines, Typst's errors, BibTeX's and Biber's error lines), each with its context. */
  errors: string[];
  /** Warnings the writer would see (pandoc's, Typst's, BibTeX's `Warning--`, Biber's WARN). */
  warnings: string[];
  /** Keys cited but not resolved. */
  unresolved: string[];
  /** Bibliography entries by key. */
  entries: Map<string, RenderedEntry>;
  /** The document's rendered text (pandoc and Typst), for checks on the body. */
  body?: string;
  /** Pandoc: every footnote in document order, its plain text and the keys it cites. */
  notes?: { text: string; keys: string[] }[];
  /** Wall time in milliseconds. */
  ms: number;
}

/** A document and its .bib. `bibName` without extension. */
export interface CompileInput {
  document: string;
  bib: string;
  bibName?: string;
  /** The bibliography's format, for pandoc (which reads CSL-JSON too): its file name extension. */
  bibExtension?: 'bib' | 'json';
}

const run = (
  cmd: string,
  args: string[],
  cwd: string,
  input?: string,
): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(cmd, args, { cwd, input, encoding: 'utf8', timeout: 300_000, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

const versionOf = (cmd: string, arg = '--version'): string | undefined => {
  const r = spawnSync(cmd, [arg], { encoding: 'utf8' });
  return r.status === 0 ? (r.stdout || r.stderr).split('\n')[0]?.trim() : undefined;
};

interface TypstModule {
  NodeCompiler: {
    create(args: { workspace: string }): {
      tryHtml(args: { mainFilePath: string }): {
        hasError(): boolean;
        result: { body(): string } | null;
        takeDiagnostics(): unknown;
      };
      fetchDiagnostics(err: unknown): { message?: string; severity?: string }[];
    };
  };
}

const typstModule = ((): TypstModule | undefined => {
  try {
    return createRequire(__filename)('@myriaddreamin/typst-ts-node-compiler') as TypstModule;
  } catch {
    return undefined;
  }
})();

/** What is installed; a missing tool's suite says so and is skipped (CI installs them all). */
export const tools = {
  pandoc: versionOf('pandoc'),
  pdflatex: versionOf('pdflatex'),
  bibtex: versionOf('bibtex'),
  biber: versionOf('biber'),
  typst: typstModule ? 'typst (typst-ts-node-compiler)' : undefined,
};

/**
 * Skips the running test when a tool it needs is not installed, saying which; fails instead where every tool must be
 * there (`RESEARCH_DESK_REQUIRE_TOOLCHAINS=1`, set by CI, which installs them all).
 */
export function needs(ctx: Mocha.Context, ...names: (keyof typeof tools)[]): void {
  const absent = names.filter((n) => !tools[n]);
  if (!absent.length) return;
  if (process.env.RESEARCH_DESK_REQUIRE_TOOLCHAINS === '1')
    throw new Error(`not installed, and this run requires every toolchain: ${absent.join(', ')}`);
  console.log(`      skipped: ${absent.join(', ')} not installed`);
  ctx.skip();
}

/** A fresh folder for one compilation, removed by `cleanup()` unless TOOLCHAINS_KEEP is set. */
function workdir(prefix: string): string {
  const root = join(tmpdir(), 'research-desk-toolchains');
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, `${prefix}-`));
}
const cleanup = (dir: string): void => {
  if (!process.env.TOOLCHAINS_KEEP) rmSync(dir, { recursive: true, force: true });
};

/** Whitespace (NBSP included) squashed, trimmed, NFC. */
export const norm = (s: string): string => s.normalize('NFC').replace(/\s+/gu, ' ').trim();

/** Fields between ⟦X:…⟧ markers in rendered text, in order (a field holds no ⟦ or ⟧). */
function markedFields(text: string): { tag: string; value: string }[] {
  return [...text.matchAll(/⟦([A-Z]):([^⟦⟧]*)⟧/gu)].map((m) => ({ tag: m[1]!, value: norm(m[2]!) }));
}

/** An entry from its marked fields. */
function entryFromFields(key: string, fields: { tag: string; value: string }[]): RenderedEntry {
  const e: RenderedEntry = { key, authors: [], title: '' };
  for (const { tag, value } of fields) {
    if (tag === 'A') e.authors = value.split('‖').map(norm).filter(Boolean);
    else if (tag === 'T') e.title = value;
    else if (tag === 'J') e.journal = value;
    else if (tag === 'Y') e.year = value;
    else if (tag === 'D') e.doi = value;
    else if (tag === 'U') e.url = value;
  }
  return e;
}

// ----------------------------------------------------------------------------------------------------------------
// pandoc

interface PandocNode {
  t: string;
  c?: unknown;
}

/** Pandoc's plain text for a list of block lists, one call: each list becomes a string. */
function pandocPlain(blockLists: unknown[][], meta: unknown, version: unknown, cwd: string): string[] {
  const blocks: unknown[] = [];
  blockLists.forEach((list, i) => {
    blocks.push({ t: 'Para', c: [{ t: 'Str', c: `⟦R${i}⟧` }] }, ...list);
  });
  blocks.push({ t: 'Para', c: [{ t: 'Str', c: `⟦R${blockLists.length}⟧` }] });
  const r = run(
    'pandoc',
    ['-f', 'json', '-t', 'plain', '--wrap=none'],
    cwd,
    JSON.stringify({ 'pandoc-api-version': version, meta, blocks }),
  );
  if (r.status !== 0) throw new Error(`pandoc -t plain failed: ${r.stderr}`);
  const out: string[] = [];
  for (let i = 0; i < blockLists.length; i++) {
    const start = r.stdout.indexOf(`⟦R${i}⟧`);
    const end = r.stdout.indexOf(`⟦R${i + 1}⟧`);
    out.push(start < 0 || end < 0 ? '' : r.stdout.slice(start + `⟦R${i}⟧`.length, end));
  }
  return out;
}

/**
 * Markdown through `pandoc --citeproc` (the bibliography and the test style given on the command line, as a
 * writer's front matter or `_quarto.yml` would): the entries as rendered, the footnotes in order with the keys each
 * cites, citeproc's warnings (unresolved keys among them) and any error.
 */
export function compilePandoc(input: CompileInput): CompileResult {
  const started = performance.now();
  const dir = workdir('pandoc');
  try {
    const bibName = `${input.bibName ?? 'refs'}.${input.bibExtension ?? 'bib'}`;
    writeFileSync(join(dir, bibName), input.bib);
    writeFileSync(join(dir, 'doc.md'), input.document);
    const r = run(
      'pandoc',
      ['--citeproc', '--csl', CSL, '--bibliography', bibName, '-f', 'markdown', '-t', 'json', 'doc.md'],
      dir,
    );
    const warnings = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const errors = r.status === 0 ? [] : [`pandoc exited ${r.status}: ${r.stderr}`];
    const unresolved = warnings.flatMap((w) => /Citeproc: citation (.+?) not found/u.exec(w)?.[1] ?? []);
    if (r.status !== 0) return { errors, warnings, unresolved, entries: new Map(), ms: performance.now() - started };
    const doc = JSON.parse(r.stdout) as { 'pandoc-api-version': unknown; meta: unknown; blocks: PandocNode[] };

    // The bibliography: Div #refs holding one Div #ref-<key> per entry.
    const refs: { key: string; blocks: unknown[] }[] = [];
    const bodyBlocks: PandocNode[] = [];
    for (const b of doc.blocks) {
      const attr = b.t === 'Div' ? (b.c as [[string, string[], unknown], unknown[]]) : undefined;
      if (attr?.[0][0] === 'refs') {
        for (const child of attr[1] as PandocNode[]) {
          const [[id], blocks] = child.c as [[string], unknown[]];
          if (id.startsWith('ref-')) refs.push({ key: id.slice(4), blocks });
        }
      } else bodyBlocks.push(b);
    }

    // Footnotes in document order, with the keys cited inside each.
    const notes: { blocks: unknown[]; keys: string[] }[] = [];
    const citeKeys = (value: unknown, out: string[]): void => {
      if (Array.isArray(value)) for (const v of value) citeKeys(v, out);
      else if (value && typeof value === 'object') {
        const n = value as PandocNode;
        if (n.t === 'Cite') for (const c of (n.c as [{ citationId: string }[]])[0]) out.push(c.citationId);
        citeKeys(n.c, out);
      }
    };
    const findNotes = (value: unknown): void => {
      if (Array.isArray(value)) for (const v of value) findNotes(v);
      else if (value && typeof value === 'object') {
        const n = value as PandocNode;
        if (n.t === 'Note') {
          const keys: string[] = [];
          citeKeys(n.c, keys);
          notes.push({ blocks: n.c as unknown[], keys });
          return;
        }
        findNotes(n.c);
      }
    };
    findNotes(bodyBlocks);

    const texts = pandocPlain(
      [...refs.map((x) => x.blocks), ...notes.map((n) => n.blocks), bodyBlocks],
      doc.meta,
      doc['pandoc-api-version'],
      dir,
    );
    const entries = new Map<string, RenderedEntry>();
    refs.forEach((ref, i) =>
      entries.set(
        ref.key,
        entryFromFields(
          ref.key,
          markedFields(texts[i]!).filter((f) => f.tag !== 'K'),
        ),
      ),
    );
    return {
      errors,
      warnings,
      unresolved,
      entries,
      notes: notes.map((n, i) => ({ text: norm(texts[refs.length + i]!), keys: n.keys })),
      body: texts[texts.length - 1],
      ms: performance.now() - started,
    };
  } finally {
    cleanup(dir);
  }
}

// ----------------------------------------------------------------------------------------------------------------
// Typst

const decodeHtml = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/giu, (_, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }[e.toLowerCase()] ?? '';
  });

/**
 * A Typst document (it should end with `#bibliography("refs.bib", style: CSL)`; see `typstBibliography`) compiled
 * to HTML; the entries read from its text. Typst reports an unresolved citation as an error naming the label.
 */
export function compileTypst(input: CompileInput): CompileResult {
  const started = performance.now();
  if (!typstModule)
    throw new Error('Typst is not installed (npm dev dependency @myriaddreamin/typst-ts-node-compiler)');
  const dir = workdir('typst');
  try {
    writeFileSync(join(dir, `${input.bibName ?? 'refs'}.bib`), input.bib);
    writeFileSync(join(dir, 'style.csl'), readFileSync(CSL));
    writeFileSync(join(dir, 'doc.typ'), input.document);
    const compiler = typstModule.NodeCompiler.create({ workspace: dir });
    const r = compiler.tryHtml({ mainFilePath: join(dir, 'doc.typ') });
    const diagnostics = r.takeDiagnostics();
    const list = diagnostics ? compiler.fetchDiagnostics(diagnostics) : [];
    const messages = list.map((d) => `${d.severity ?? ''} ${d.message ?? JSON.stringify(d)}`.trim());
    const errors = r.hasError()
      ? messages.length
        ? messages.filter((m) => !/^warning/iu.test(m))
        : ['Typst failed without a message']
      : [];
    const warnings = messages.filter((m) => /^warning/iu.test(m));
    const unresolved = errors.flatMap(
      (e) => /label `?<([^>]+)>`? does not exist/u.exec(e)?.[1] ?? /key `([^`]+)` does not exist/u.exec(e)?.[1] ?? [],
    );
    const html = r.result?.body() ?? '';
    const text = decodeHtml(html.replace(/<[^>]*>/gu, ' '));
    const entries = new Map<string, RenderedEntry>();
    // Each entry starts at its ⟦K:key⟧ marker.
    const parts = text.split(/(?=⟦K:)/u).slice(1);
    for (const part of parts) {
      const fields = markedFields(part);
      const key = fields.find((f) => f.tag === 'K')?.value;
      if (key)
        entries.set(
          key,
          entryFromFields(
            key,
            fields.filter((f) => f.tag !== 'K'),
          ),
        );
    }
    return { errors, warnings, unresolved, entries, body: norm(text), ms: performance.now() - started };
  } finally {
    cleanup(dir);
  }
}

/** The line that ends a Typst test document: its bibliography in the test style. */
export const typstBibliography = (bibName = 'refs'): string =>
  `\n#bibliography("${bibName}.bib", style: "style.csl")\n`;

// ----------------------------------------------------------------------------------------------------------------
// pdflatex with BibTeX or Biber

/** LaTeX's errors from a log: each `! ` line with the lines up to the `l.N` line that says where. */
export function latexErrors(log: string): string[] {
  const lines = log.split(/\r?\n/u);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('! ')) continue;
    const block = [lines[i]!];
    for (let j = i + 1; j < Math.min(lines.length, i + 12); j++) {
      block.push(lines[j]!);
      if (/^l\.\d+/u.test(lines[j]!)) break;
    }
    out.push(block.join('\n'));
  }
  // A glyph the font does not have is dropped without an error: as bad for the reader.
  for (const m of log.matchAll(/^Missing character: There is no .*$/gmu)) out.push(m[0]);
  return out;
}

/** Citations LaTeX could not resolve, from the last log. */
const latexUnresolved = (log: string): string[] => [
  ...new Set([...log.matchAll(/Citation [`'‘]([^'’]+)['’] (?:on page \d+ )?undefined/gu)].map((m) => m[1]!)),
];

/** A braced group starting at `open` (the `{`): its content and the index after its `}`. */
function braced(text: string, open: number): { value: string; end: number } {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return { value: text.slice(open + 1, i), end: i + 1 };
  }
  return { value: text.slice(open + 1), end: text.length };
}

/**
 * LaTeX fragments read by pandoc's LaTeX reader, one call: each comes back as its plain text. `macros` are
 * definitions the fragments use (a .bbl's `\providecommand`s).
 */
export function latexToText(fragments: string[], macros = ''): string[] {
  if (!fragments.length) return [];
  const dir = workdir('latex-text');
  try {
    const body = fragments.map((f, i) => `⟦R${i}⟧\n\n${f}\n\n`).join('') + `⟦R${fragments.length}⟧\n`;
    const r = run('pandoc', ['-f', 'latex', '-t', 'plain', '--wrap=none'], dir, `${macros}\n${body}`);
    if (r.status !== 0) throw new Error(`pandoc -f latex failed: ${r.stderr}`);
    return fragments.map((_, i) => {
      const start = r.stdout.indexOf(`⟦R${i}⟧`);
      const end = r.stdout.indexOf(`⟦R${i + 1}⟧`);
      return start < 0 || end < 0 ? '' : norm(r.stdout.slice(start + `⟦R${i}⟧`.length, end));
    });
  } finally {
    cleanup(dir);
  }
}

/** Run pdflatex; the log's text. */
function pdflatex(dir: string): string {
  run('pdflatex', ['-interaction=nonstopmode', '-file-line-error=no', 'doc.tex'], dir);
  return existsSync(join(dir, 'doc.log')) ? readFileSync(join(dir, 'doc.log'), 'latin1') : '';
}

/** A log read as UTF-8 for the messages (pdflatex writes bytes as it got them). */
const utf8Log = (dir: string): string =>
  existsSync(join(dir, 'doc.log')) ? readFileSync(join(dir, 'doc.log'), 'utf8') : '';

/**
 * A LaTeX document with natbib or plain BibTeX: pdflatex, bibtex, pdflatex twice. The entries are the .bbl's
 * `\bibitem`s read back (with plainnat: authors, then title, in the first two `\newblock`s); `log` is the last
 * pdflatex log (overfull boxes and the like).
 */
export function compileBibtex(input: CompileInput): LatexResult {
  return compileLatex(input, 'bibtex', {
    run: (dir) => run('bibtex', ['doc'], dir),
    errors: blgErrors,
    warnings: (blg) => blg.split('\n').filter((l) => l.startsWith('Warning--')),
    entries: readNatbibBbl,
  });
}

type LatexResult = CompileResult & { bbl: string; log: string };

/** pdflatex, the bibliography program, pdflatex twice; what the writer would see. */
function compileLatex(
  input: CompileInput,
  name: 'bibtex' | 'biber',
  program: {
    run: (dir: string) => { stdout: string; stderr: string };
    errors: (blg: string) => string[];
    warnings: (blg: string) => string[];
    entries: (bbl: string) => Map<string, RenderedEntry>;
  },
): LatexResult {
  const started = performance.now();
  const dir = workdir(name);
  try {
    writeFileSync(join(dir, `${input.bibName ?? 'refs'}.bib`), input.bib);
    writeFileSync(join(dir, 'doc.tex'), input.document);
    pdflatex(dir);
    const out = program.run(dir);
    const blg = existsSync(join(dir, 'doc.blg')) ? readFileSync(join(dir, 'doc.blg'), 'utf8') : out.stdout + out.stderr;
    pdflatex(dir);
    pdflatex(dir);
    const log = utf8Log(dir);
    const bbl = existsSync(join(dir, 'doc.bbl')) ? readFileSync(join(dir, 'doc.bbl'), 'utf8') : '';
    const errors = [...latexErrors(log), ...program.errors(blg)];
    return {
      errors,
      warnings: program.warnings(blg),
      unresolved: latexUnresolved(log),
      entries: program.entries(bbl),
      bbl,
      log,
      ms: performance.now() - started,
    };
  } finally {
    cleanup(dir);
  }
}

/** BibTeX's error messages from its .blg (a line ending in `---line N of file x.bib` and its context). */
function blgErrors(blg: string): string[] {
  const lines = blg.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (/---line \d+ of file/u.test(l) || /^I couldn't open|^I found no/u.test(l))
      out.push(lines.slice(Math.max(0, i - 1), i + 3).join('\n'));
  });
  return out;
}

/** The macros a natbib .bbl defines before its first `\bibitem`, as pandoc can read them. */
const NATBIB_MACROS = String.raw`
\newcommand{\natexlab}[1]{#1}
\newcommand{\urlprefix}{}
\newcommand{\doi}[1]{#1}
\newcommand{\eprint}[1]{#1}
\newcommand{\bibinfo}[2]{#2}
\newcommand{\bibnamefont}[1]{#1}
\newcommand{\bibfnamefont}[1]{#1}
\newcommand{\citenamefont}[1]{#1}
\newcommand{\urlstyle}[1]{}
`;

/**
 * plainnat's `\bibitem`s: "Authors.\newblock Title.\newblock …". Authors are split at ", ", ", and " and " and "
 * only when the rendered list is compared as a whole by the caller; here they are kept as one string in `authors[0]`.
 * The DOI and URL are read from `\doi{…}` and `\url{…}` as written.
 */
function readNatbibBbl(bbl: string): Map<string, RenderedEntry> {
  const items: { key: string; blocks: string[]; doi?: string; url?: string }[] = [];
  const starts = [...bbl.matchAll(/\\bibitem(?:\[)?/gu)].map((m) => m.index);
  for (let s = 0; s < starts.length; s++) {
    let text = bbl.slice(
      starts[s],
      s + 1 < starts.length ? starts[s + 1] : bbl.indexOf('\\end{thebibliography}', starts[s]),
    );
    let i = '\\bibitem'.length;
    if (text[i] === '[') {
      // The label is bracketed and may hold braced `]`.
      let depth = 0;
      for (i++; i < text.length; i++) {
        if (text[i] === '{') depth++;
        else if (text[i] === '}') depth--;
        else if (text[i] === ']' && depth === 0) break;
      }
      i++;
    }
    while (/\s/u.test(text[i] ?? '')) i++;
    const key = braced(text, i);
    text = text.slice(key.end);
    const doi = /\\doi\{/u.exec(text);
    const url = /\\url\{/u.exec(text);
    items.push({
      key: key.value,
      blocks: text.split('\\newblock'),
      doi: doi ? braced(text, doi.index + 4).value : undefined,
      url: url ? braced(text, url.index + 4).value : undefined,
    });
  }
  const decoded = latexToText(
    items.flatMap((it) => it.blocks.slice(0, 2)),
    NATBIB_MACROS,
  );
  const entries = new Map<string, RenderedEntry>();
  items.forEach((it, n) => {
    entries.set(it.key, {
      key: it.key,
      authors: [decoded[2 * n] ?? ''],
      title: decoded[2 * n + 1] ?? '',
      doi: it.doi,
      url: it.url,
    });
  });
  return entries;
}

/** A LaTeX document with biblatex: pdflatex, biber, pdflatex twice. The entries are read from Biber's .bbl. */
export function compileBiber(input: CompileInput): LatexResult {
  return compileLatex(input, 'biber', {
    run: (dir) => run('biber', ['--quiet', 'doc'], dir),
    errors: (blg) => blg.split('\n').filter((l) => /\bERROR\b/u.test(l)),
    warnings: (blg) => blg.split('\n').filter((l) => /\bWARN\b/u.test(l)),
    entries: readBiberBbl,
  });
}

/** What Biber puts between the words of a name, as pandoc can read it. */
const BIBER_MACROS = String.raw`
\newcommand{\bibnamedelima}{ }
\newcommand{\bibnamedelimb}{ }
\newcommand{\bibnamedelimc}{ }
\newcommand{\bibnamedelimd}{ }
\newcommand{\bibnamedelimi}{ }
\newcommand{\bibinitperiod}{.}
\newcommand{\bibinitdelim}{ }
\newcommand{\bibinithyphendelim}{.-}
\newcommand{\mkbibquote}[1]{#1}
`;

/** `name={value}` pairs inside one Biber name. */
function nameParts(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(?:^|[,\s%])(family|given|prefix|suffix)=\{/gu)) {
    out[m[1]!] = braced(text, m.index + m[0].length - 1).value;
  }
  return out;
}

/** Biber's .bbl: `\entry{key}…\endentry` with `\name{author}`, `\field{title}`, `\verb{doi}` and so on. */
function readBiberBbl(bbl: string): Map<string, RenderedEntry> {
  interface Raw {
    key: string;
    names: Record<string, string>[];
    fields: Record<string, string>;
    verbs: Record<string, string>;
  }
  const raws: Raw[] = [];
  for (const m of bbl.matchAll(/\\entry\{([^}]*)\}\{[^}]*\}\{[^}]*\}([\s\S]*?)\\endentry/gu)) {
    const body = m[2]!;
    const raw: Raw = { key: m[1]!, names: [], fields: {}, verbs: {} };
    const author = /\\name\{author\}\{\d+\}\{[^}]*\}\{/u.exec(body);
    if (author) {
      const list = braced(body, author.index + author[0].length - 1).value;
      // Each name is `{{options}{% parts }}`.
      for (let i = 0; i < list.length;) {
        const open = list.indexOf('{', i);
        if (open < 0) break;
        const one = braced(list, open);
        const inner = one.value.replace(/^\{[^}]*\}/u, '');
        raw.names.push(nameParts(inner));
        i = one.end;
      }
    }
    for (const f of body.matchAll(/\\field\{(\w+)\}\{/gu))
      raw.fields[f[1]!] = braced(body, f.index + f[0].length - 1).value;
    for (const f of body.matchAll(/\\verb\{(\w+)\}\s*\\verb (.*)\s*\\endverb/gu)) raw.verbs[f[1]!] = f[2]!.trim();
    raws.push(raw);
  }
  const fragments: string[] = [];
  const slot = (s: string | undefined): number => (s === undefined ? -1 : fragments.push(s) - 1);
  const plan = raws.map((r) => ({
    names: r.names.map((n) => ({
      given: slot(n['given']),
      prefix: slot(n['prefix']),
      family: slot(n['family']),
      suffix: slot(n['suffix']),
    })),
    title: slot(r.fields['title']),
    journal: slot(r.fields['journaltitle'] ?? r.fields['howpublished']),
  }));
  const text = latexToText(fragments, BIBER_MACROS);
  const at = (i: number): string | undefined => (i < 0 ? undefined : text[i]);
  const entries = new Map<string, RenderedEntry>();
  raws.forEach((r, n) => {
    const p = plan[n]!;
    entries.set(r.key, {
      key: r.key,
      authors: p.names.map((nm) =>
        norm([at(nm.given), at(nm.prefix), at(nm.family), at(nm.suffix)].filter(Boolean).join(' ')),
      ),
      title: at(p.title) ?? '',
      journal: at(p.journal),
      year: r.fields['year'],
      doi: r.verbs['doi'],
      url: r.verbs['url'],
    });
  });
  return entries;
}
