/**
 * Untrusted text (the service's, a .bib file's) inside Markdown that VS Code or another renderer shows: hovers,
 * tooltips, the abstract document, an exported answer, a reference written into a document. `escapeMarkdown` keeps
 * the text text; `markdownWithSafeLinks` does that too, and makes a URL in it a link only when the one link rule
 * (src/shared/url.ts) allows it. No `vscode` import; every pattern is one pass of a bounded class, so the time is
 * linear in the length of the text.
 */
import { safeHttpsUrl } from './url';

/**
 * Text as inline Markdown that stays text: `&` and `<` as entities (no HTML, autolink or character reference can
 * start; entities work in every Markdown dialect), every other ASCII punctuation that can start Markdown syntax
 * backslash-escaped (`\ ` * _ { } [ ] ( ) # + - . ! | ~ >`: emphasis, code, links and images, headings and list
 * markers, tables, strike-through, block quotes; an escaped `.` also stops `www.` and e-mail autolinks), and white
 * space runs as one space, so the text cannot leave its line. A `scheme://` is left as it is: where a renderer
 * links bare URLs, use `markdownWithSafeLinks`.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~>]/g, '\\$&')
    .replace(/\s+/g, ' ');
}

/**
 * Text as Markdown for a file a person also reads as it is (an exported answer): inline syntax is escaped, and what
 * would open a block at the start (a list marker, a quote, a heading, a setext underline), since the text goes after
 * a block marker (`# `, `1. `, `> `) where a block can open again. The rest stays as written, so the source is
 * readable; white space runs as one space, trimmed. A renderer may still link a bare URL in it.
 */
export function escapeInlineMarkdown(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~&!#]/g, '\\$&')
    .replace(/^([+\-=]|\d{1,9}(?=[.)]))/, (m) => (/\d/.test(m) ? `${m}\\` : `\\${m}`));
}

/**
 * A scheme followed by `//` and what follows up to a space or `<`: the runs VS Code's Markdown (GitHub's autolinks)
 * would make a link of by itself, and anything else that looks like one. The scheme's length is bounded so that a
 * long word costs linear time; a run missed that way is still made inert.
 */
const URL_RUN = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s<]*/gi;

/**
 * Service text as Markdown (escaped as `escapeMarkdown`) in which a URL is a link only when the one link rule
 * allows it, to its canonical form; any other (credentials, another scheme, invisible characters…) is plain text.
 * Without this, VS Code's Markdown makes every `https://…` in a tooltip a link by itself, past the rule.
 * Trailing punctuation and an unbalanced `)` stay outside a link, as in GitHub's autolinks.
 */
export function markdownWithSafeLinks(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_RUN)) {
    const start = m.index;
    const url = trimLinkEnd(m[0]);
    const href = safeHttpsUrl(url);
    out += inertMarkdown(text.slice(last, start));
    out += href ? `[${inertMarkdown(url)}](${linkDestination(href)})` : inertMarkdown(url);
    last = start + url.length;
  }
  return out + inertMarkdown(text.slice(last));
}

/** Escaped, and no `scheme://` left for an autolink to start at (`\:` shows as `:`). */
export function inertMarkdown(text: string): string {
  return escapeMarkdown(text).replace(/:\/\//g, '\\://');
}

/** `[label](<url>)` to the canonical form of `url` when the link rule allows it; else the label alone, as text. */
export function markdownLink(label: string, url: string | undefined): string {
  const href = safeHttpsUrl(url);
  return href ? `[${inertMarkdown(label)}](${linkDestination(href)})` : inertMarkdown(label);
}

/** A link destination in angle brackets, with the characters that could end it early encoded. */
export function linkDestination(href: string): string {
  return `<${href.replace(/[()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}>`;
}

/** Drops trailing punctuation (and a `>` closing `<url>`) and a `)` that closes nothing opened in the URL. */
function trimLinkEnd(url: string): string {
  const opened = url.split('(').length - 1;
  let closed = url.split(')').length - 1;
  let end = url.length;
  for (;;) {
    const c = url[end - 1];
    if (c !== undefined && '.,:;!?\'"*_~>'.includes(c)) end--;
    else if (c === ')' && opened < closed) {
      end--;
      closed--;
    } else break;
  }
  return url.slice(0, end);
}
