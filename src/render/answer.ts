/**
 * The agent's Markdown answer → a safe HTML fragment for the answer webview.
 *
 * Pure (no vscode). The service's text is untrusted, so:
 *  - raw HTML is off (shown as text), typographer off;
 *  - links only for absolute `https:` URLs (`validateLink` replaced: markdown-it's default lets
 *    `command:`, `vscode:`, `file:` through), checked again on every link token after parsing;
 *    any other link is rendered as its text; linkify recognises only URLs written with a scheme;
 *  - images are never loaded: `![alt](url)` becomes its alt text in a placeholder span;
 *  - no `style` attribute anywhere (table alignment becomes a class), no script, no event
 *    handler, no id or class the answer text can choose (fence languages are sanitised);
 *  - citation markers become links to the references list, which carries each quote, its
 *    section and its paper as escaped text and data attributes for the webview script.
 */
import MarkdownIt from 'markdown-it';
import { type Citation } from '../api/schemas';
import { citeMarkers, type CiteMeta, type MarkerEnv } from './citeMarkers';
import { escapeHtml, plainParagraphs, splitForMarkdown } from './escape';
import { safeHttpsUrl } from '../shared/url';
import {
  DEFAULT_LABELS,
  indexCitations,
  markerLabel,
  renderReferences,
  type ReferenceEntry,
  type RenderLabels,
} from './references';

type Token = MarkdownIt.Token;

export type { ReferenceEntry, ReferenceQuote, RenderLabels } from './references';
export { DEFAULT_LABELS } from './references';
// The answer panel re-checks a link the webview sends with the same rule before opening it.
export { isSafeHttpsUrl, safeHttpsUrl } from '../shared/url';

export interface RenderOptions {
  /**
   * Prefix of every element id (`[A-Za-z0-9_-]`, other characters dropped), for several answers on one page. Default
   * "".
   */
  idPrefix?: string;
  /** Level the answer's top heading is moved to (2..6; default 2: the view's own h1 is the thread title). */
  topHeadingLevel?: number;
  /** Authors (or other details) the caller knows for a paper id; citations carry none. */
  paperInfo?: (paperId: string) => { authors?: readonly string[] | null } | undefined;
  /** Render Open Paper / Copy Quote buttons (`data-action`) in the references list. Default true. */
  actions?: boolean;
  /** Localised labels (the pure layer cannot call vscode.l10n). */
  labels?: Partial<RenderLabels>;
  /**
   * Also render the citations issue's Insert Citation / Copy BibTeX / Copy Reference buttons (`data-action`,
   * `data-n`) for every reference (needs `actions`). Default false.
   */
  citeActions?: boolean;
}

export interface RenderedAnswer {
  /** The whole fragment: `<div class="answer-body">…</div>` then the references section. */
  html: string;
  /** The answer alone. */
  bodyHtml: string;
  /** The references section alone ('' without citations). */
  referencesHtml: string;
  /** The checked citations, in order of `n` (for Copy Quote, Open Paper, export). */
  references: ReferenceEntry[];
  /** Distinct marker keys ("1.2", "3") linked, in order of first appearance. */
  markers: string[];
  /** Distinct marker keys with no matching citation or quote (shown as plain text). */
  unresolvedMarkers: string[];
  /** Problems found in the citations (duplicates, markers naming another paper, bad numbers). */
  warnings: string[];
}

interface Env extends MarkerEnv {
  idPrefix: string;
  labels: RenderLabels;
  topHeadingLevel: number;
  openTags: Map<string, string>;
}

const LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;
const ALIGN = /^text-align:(left|center|right)$/;

/** After parsing: shift headings, re-check links, strip styles, sanitise fence languages. */
function sanitize(state: MarkdownIt.StateCore): void {
  const env = state.env as Partial<Env>;
  const top = env.topHeadingLevel ?? 2;
  let min = 7;
  for (const t of state.tokens) if (t.type === 'heading_open') min = Math.min(min, Number(t.tag.slice(1)));
  const shift = min === 7 ? 0 : top - min;
  for (const t of state.tokens) {
    switch (t.type) {
      case 'heading_open':
      case 'heading_close':
        t.tag = `h${Math.min(6, Math.max(1, Number(t.tag.slice(1)) + shift))}`;
        break;
      case 'th_open':
      case 'td_open': {
        const align = ALIGN.exec(String(t.attrGet('style') ?? ''));
        t.attrs = align ? [['class', `align-${align[1]}`]] : null;
        break;
      }
      case 'fence': {
        const lang = t.info.trim().split(/\s+/)[0] ?? '';
        t.info = LANG.test(lang) ? lang : '';
        break;
      }
      case 'inline':
        if (t.children) t.children = sanitizeInline(t.children);
        break;
    }
  }
}

function sanitizeInline(children: Token[]): Token[] {
  const out: Token[] = [];
  let dropClose = false;
  for (const t of children) {
    if (t.type === 'link_open') {
      const href = safeHttpsUrl(t.attrGet('href'));
      if (!href) {
        dropClose = true;
        continue;
      }
      const title = t.attrGet('title');
      t.attrs = [
        ['href', href],
        ['rel', 'noopener noreferrer'],
      ];
      if (title !== null && title !== '') t.attrs.push(['title', String(title)]);
    } else if (t.type === 'link_close' && dropClose) {
      dropClose = false;
      continue;
    }
    out.push(t);
  }
  return out;
}

/** Per paragraph being parsed: where the last URL `validateLink` refused ends. */
const refusedUntil = new WeakMap<MarkdownIt.StateInline, number>();

/**
 * Runs before markdown-it's inline linkify rule, which reads a URL with linkify-it from every `://` to the URL's end:
 * when the URL is refused (http:, too long), the rule fails and runs again at the next `://` inside it, so a run of
 * `http://a.b/` took minutes. The guard finds the URL once, remembers where a refused one ends, and lets each `://`
 * before that end be plain text, which is what the refused rule leaves it as.
 */
function linkifyGuard(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (!state.md.options.linkify || state.linkLevel > 0 || pos + 3 > state.posMax) return false;
  if (src.charCodeAt(pos) !== 0x3a /* : */ || src.charCodeAt(pos + 1) !== 0x2f || src.charCodeAt(pos + 2) !== 0x2f)
    return false;
  if (pos < (refusedUntil.get(state) ?? 0)) {
    if (!silent) state.pending += ':';
    state.pos++;
    return true;
  }
  // The scheme before `:` as the linkify rule takes it: up to 10 scheme characters of the pending text.
  const min = pos - Math.min(10, state.pending.length, pos);
  let start = pos;
  while (start > min && /[A-Za-z0-9+.-]/u.test(src[start - 1]!)) start--;
  if (start === pos || !/[A-Za-z]/u.test(src[start]!)) return false;
  const link = state.md.linkify.matchAtStart(src.slice(start));
  if (link && !state.md.validateLink(state.md.normalizeLink(link.url))) refusedUntil.set(state, start + link.lastIndex);
  return false;
}

let engine: MarkdownIt.MarkdownIt | undefined;

function md(): MarkdownIt.MarkdownIt {
  if (engine) return engine;
  const m = new MarkdownIt('default', {
    html: false,
    linkify: true,
    typographer: false,
    breaks: false,
    xhtmlOut: false,
  });
  // Only URLs written with their scheme are linkified (no `www.` → http:, no bare e-mail → mailto:).
  m.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  m.validateLink = (url: string) => safeHttpsUrl(url) !== undefined;
  m.inline.ruler.before('linkify', 'research_desk_linkify_guard', linkifyGuard);
  m.use(citeMarkers);
  m.core.ruler.push('research_desk_sanitize', sanitize);
  const rules = m.renderer.rules;
  // Belt and braces: html is off, so these tokens cannot occur; if they did, they stay text.
  rules.html_block = (tokens, idx) => `<p>${escapeHtml(tokens[idx]!.content)}</p>\n`;
  rules.html_inline = (tokens, idx) => escapeHtml(tokens[idx]!.content);
  rules.image = (tokens, idx, options, env, self) => {
    const alt = self.renderInlineAsText(tokens[idx]!.children ?? [], options, env).trim();
    const labels = (env as Partial<Env> | undefined)?.labels ?? DEFAULT_LABELS;
    return `<span class="image-omitted">[${escapeHtml(labels.image)}${alt ? `: ${escapeHtml(alt)}` : ''}]</span>`;
  };
  rules.cite_marker = (tokens, idx, _options, env) => {
    const meta = tokens[idx]!.meta as unknown as CiteMeta;
    const e = env as unknown as Env;
    // The opening tag of a key is the same every time: built once per render.
    let open = e.openTags.get(meta.key);
    if (open === undefined) {
      open = openTag(meta, e);
      e.openTags.set(meta.key, open);
    }
    return `${open}${escapeHtml(meta.text)}</a>`;
  };
  engine = m;
  return m;
}

function openTag(meta: CiteMeta, e: Env): string {
  const target = meta.quote?.id ?? meta.ref.id;
  const attrs = [
    'class="cite"',
    `href="#${target}"`,
    `data-marker="${meta.key}"`,
    `data-n="${meta.ref.n}"`,
    'role="doc-noteref"',
    `aria-label="${escapeHtml(markerLabel(meta.key, meta.ref, e.labels))}"`,
  ];
  if (meta.quote?.id) attrs.push(`aria-describedby="${meta.quote.id}-text"`);
  return `<a ${attrs.join(' ')}>`;
}

/** Render the answer and its references; see `RenderedAnswer`. */
export function renderAnswerDetailed(
  markdown: string | null | undefined,
  citations: readonly Citation[] | null | undefined,
  options: RenderOptions = {},
): RenderedAnswer {
  const idPrefix = (options.idPrefix ?? '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
  const labels = { ...DEFAULT_LABELS, ...options.labels };
  const top = Math.min(6, Math.max(2, Math.trunc(options.topHeadingLevel ?? 2)));
  const citeIndex = indexCitations(citations, idPrefix, options.paperInfo);
  const env: Env = {
    citeIndex,
    used: [],
    unresolved: [],
    seen: new Set(),
    idPrefix,
    labels,
    topHeadingLevel: top,
    openTags: new Map(),
  };
  const [src, rest] = splitForMarkdown(typeof markdown === 'string' ? markdown : '');
  // Past the Markdown limit: plain paragraphs (NUL shown as U+FFFD, as markdown-it shows it).
  const plain = plainParagraphs(rest)
    .map(
      (p) =>
        `<p class="answer-plain">${escapeHtml(p.split('\u0000').join('\uFFFD')).replace(/\r?\n/g, '<br>\n')}</p>\n`,
    )
    .join('');
  const bodyHtml = `<div class="answer-body">\n${md().render(src, env as unknown as MarkdownIt.Env)}${plain}</div>\n`;
  const referencesHtml = renderReferences(
    citeIndex,
    idPrefix,
    labels,
    options.actions !== false,
    top,
    options.citeActions === true,
  );
  return {
    html: referencesHtml ? `${bodyHtml}${referencesHtml}\n` : bodyHtml,
    bodyHtml,
    referencesHtml,
    references: citeIndex.references,
    markers: env.used,
    unresolvedMarkers: env.unresolved,
    warnings: citeIndex.warnings,
  };
}

/** The agent's Markdown answer with its citations → a safe HTML fragment (answer, then references). */
export function renderAnswer(
  markdown: string | null | undefined,
  citations: readonly Citation[] | null | undefined,
  options?: RenderOptions,
): string {
  return renderAnswerDetailed(markdown, citations, options).html;
}
