/**
 * "Export the answer as a Markdown file with its references": the agent's Markdown
 * as written, followed by a references list built from the checked citations. Citation fields
 * are untrusted text: Markdown/HTML-significant characters are escaped and line breaks folded,
 * so a title cannot open a heading, a link, an image or raw HTML in the exported file; only
 * `https:` paper links are written, as autolinks.
 */
import { type Citation } from '../api/schemas';
import { escapeInlineMarkdown } from '../shared/markdown';
import { cleanText } from './escape';
import { DEFAULT_LABELS, indexCitations, type RenderLabels } from './references';

export interface ExportOptions {
  /** Thread title, written as the document's h1 when given. */
  title?: string | null;
  /** The thread's web address (written only when it is https). */
  url?: string | null;
  paperInfo?: (paperId: string) => { authors?: readonly string[] | null } | undefined;
  labels?: Partial<RenderLabels>;
}

export function exportAnswerMarkdown(
  markdown: string | null | undefined,
  citations: readonly Citation[] | null | undefined,
  options: ExportOptions = {},
): string {
  const labels = { ...DEFAULT_LABELS, ...options.labels };
  const out: string[] = [];
  const title = cleanText(options.title, 1000);
  if (title) out.push(`# ${escapeInlineMarkdown(title)}`, '');
  const body = (typeof markdown === 'string' ? markdown : '').replace(/\r\n?/g, '\n').trimEnd();
  if (body) out.push(body, '');
  const { references } = indexCitations(citations, '', options.paperInfo);
  if (references.length > 0) {
    out.push(`## ${escapeInlineMarkdown(labels.references)}`, '');
    for (const r of references) {
      const parts = [escapeInlineMarkdown(r.title ?? labels.untitled)];
      if (r.authors.length > 0)
        parts.push(
          escapeInlineMarkdown(
            r.authors.length > 3 ? `${r.authors.slice(0, 3).join(', ')} et al.` : r.authors.join(', '),
          ),
        );
      const where = [r.journal ? escapeInlineMarkdown(r.journal) : '', r.year !== undefined ? String(r.year) : '']
        .filter(Boolean)
        .join(', ');
      if (where) parts.push(where);
      let line = `${r.n}. ${parts.map((p) => (/[.?!]$/.test(p) ? p : `${p}.`)).join(' ')}`;
      if (r.url) line += ` <${r.url}>`;
      out.push(line);
      for (const q of r.quotes) {
        const tag = q.marker ? `\\[${q.marker}\\] ` : '';
        const section = q.section
          ? ` (${escapeInlineMarkdown(labels.section)}: ${escapeInlineMarkdown(q.section)})`
          : '';
        out.push(`${' '.repeat(`${r.n}. `.length)}> ${tag}${escapeInlineMarkdown(q.quote)}${section}`);
      }
    }
    out.push('');
  }
  return out.join('\n');
}
