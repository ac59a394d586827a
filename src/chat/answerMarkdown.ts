/**
 * Service text written as Markdown (an agent's answer, a model's reply about papers) made safe for VS Code's chat
 * view, which renders Markdown itself: parsed with markdown-it (raw HTML off) and written again from its tokens, so
 * structure survives (paragraphs, headings as bold lines, lists, quotes, code, tables, emphasis) while every text
 * run is escaped, a link is kept only when the one link rule allows it (else its text stays), an image becomes its
 * alt text (nothing remote is fetched), and no HTML, command link or autolink can appear. Citation markers such as
 * `[1.2]` stay as text. No vscode; linear in the length of the text.
 */
import MarkdownIt from 'markdown-it';
import { plainParagraphs, splitForMarkdown } from '../render/escape';
import { escapeMarkdown, inertMarkdown, linkDestination, markdownWithSafeLinks } from '../shared/markdown';
import { safeHttpsUrl } from '../shared/url';

type Token = MarkdownIt.Token;

let engine: MarkdownIt.MarkdownIt | undefined;
function md(): MarkdownIt.MarkdownIt {
  // linkify off: a bare URL is made a link below, by the link rule, not by markdown-it's own idea of a URL.
  engine ??= new MarkdownIt('default', { html: false, linkify: false, typographer: false });
  return engine;
}

/** `markdown` (untrusted) as Markdown the chat view renders with no link, image or HTML the rules do not allow. */
export function safeChatMarkdown(markdown: string): string {
  // Past markdown-it's share (slow on some hostile text), plain paragraphs, as the answer view does.
  const [markdownPart, rest] = splitForMarkdown(markdown);
  const tokens = md().parse(markdownPart, {});
  const out: string[] = [];
  /** Prefix of every line inside the open quotes and list items. */
  const prefixes: string[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  /** The first line of a list item takes its marker; later lines its indentation. */
  let pendingMarker: string | undefined;
  let row: string[] | undefined;
  let cells = 0;
  const linePrefix = (): string => {
    const p = prefixes.join('');
    if (pendingMarker === undefined) return p;
    const m = pendingMarker;
    pendingMarker = undefined;
    return p.slice(0, p.length - m.length) + m;
  };
  const write = (text: string): void => {
    const lines = text.split('\n');
    out.push(lines.map((l) => linePrefix() + l).join('\n'), '\n');
  };
  const blank = (): void => void out.push('\n');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open':
        write(`**${inline(tokens[i + 1]?.children ?? []).replace(/\n/g, ' ')}**`);
        blank();
        i += 2;
        break;
      case 'inline':
        if (row)
          row.push(
            inline(t.children ?? [])
              .replace(/\n/g, ' ')
              .replace(/\|/g, '\\|'),
          );
        else write(inline(t.children ?? []));
        break;
      case 'paragraph_close':
        if (!t.hidden) blank();
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) || 1 });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        blank();
        break;
      case 'list_item_open': {
        const l = lists[lists.length - 1];
        const marker = l?.ordered ? `${l.n++}. ` : '- ';
        prefixes.push(' '.repeat(marker.length));
        pendingMarker = marker;
        break;
      }
      case 'list_item_close':
        prefixes.pop();
        pendingMarker = undefined;
        break;
      case 'blockquote_open':
        prefixes.push('> ');
        break;
      case 'blockquote_close':
        prefixes.pop();
        blank();
        break;
      case 'fence':
      case 'code_block': {
        let longest = 2;
        for (const m of t.content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
        const ticks = '`'.repeat(longest + 1);
        write(`${ticks}\n${t.content.replace(/\n$/, '')}\n${ticks}`);
        blank();
        break;
      }
      case 'hr':
        write('---');
        blank();
        break;
      case 'tr_open':
        row = [];
        break;
      case 'tr_close':
        if (row) {
          write(`| ${row.join(' | ')} |`);
          if (cells === 0) write(`|${' --- |'.repeat(Math.max(1, row.length))}`);
          cells += row.length;
        }
        row = undefined;
        break;
      case 'table_open':
        cells = 0;
        break;
      case 'table_close':
        blank();
        break;
      default:
        break;
    }
  }
  for (const p of plainParagraphs(rest)) out.push(markdownWithSafeLinks(p), '\n\n');
  return out
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An inline run: text escaped, emphasis and code kept, links by the link rule, images as their alt text. */
function inline(children: readonly Token[]): string {
  let out = '';
  /** The open links' destinations and where their text began in `out`. */
  const links: { href: string | undefined; start: number }[] = [];
  for (let i = 0; i < children.length; i++) {
    const t = children[i]!;
    switch (t.type) {
      case 'text':
        // Inside a link's text a URL stays text (links do not nest); elsewhere it is a link by the link rule.
        out += links.length ? inertMarkdown(t.content) : markdownWithSafeLinks(t.content);
        break;
      case 'softbreak':
        out += '\n';
        break;
      case 'hardbreak':
        out += '\\\n';
        break;
      case 'strong_open':
      case 'strong_close':
        out += '**';
        break;
      case 'em_open':
      case 'em_close':
        out += '*';
        break;
      case 's_open':
      case 's_close':
        out += '~~';
        break;
      case 'code_inline': {
        const code = t.content.replace(/\n/g, ' ');
        let longest = 0;
        for (const m of code.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
        const ticks = '`'.repeat(longest + 1);
        out += code.startsWith('`') || code.endsWith('`') ? `${ticks} ${code} ${ticks}` : `${ticks}${code}${ticks}`;
        break;
      }
      case 'link_open':
        links.push({ href: String(t.attrGet('href') ?? ''), start: out.length });
        break;
      case 'link_close': {
        const l = links.pop();
        const href = safeHttpsUrl(l?.href);
        // Not allowed: the text stays, without the link.
        if (l && href)
          out = `${out.slice(0, l.start)}[${out.slice(l.start) || inertMarkdown(href)}](${linkDestination(href)})`;
        break;
      }
      case 'image':
        out += escapeMarkdown(t.content || 'image');
        break;
      default:
        // html_inline cannot occur (html off); anything else unknown is dropped rather than passed through.
        break;
    }
  }
  return out;
}
