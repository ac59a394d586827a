/**
 * Inspect rendered HTML the way a browser parses it (parse5, the WHATWG HTML parser), and hold
 * it to the answer view's safety rules. Also builders for citations.
 */
import { strict as assert } from 'node:assert';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { type Citation } from '../../../src/api/schemas';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

export interface El {
  tag: string;
  attrs: Record<string, string>;
  /** Concatenated descendant text. */
  text: string;
}

function isElement(n: Node): n is Element {
  return 'tagName' in n;
}

function textOf(n: Node): string {
  if (n.nodeName === '#text') return (n as DefaultTreeAdapterMap['textNode']).value;
  const kids = 'childNodes' in n ? n.childNodes : [];
  // <template> keeps its children in `content`.
  const content = 'content' in n ? n.content.childNodes : [];
  return [...kids, ...content].map(textOf).join('');
}

/** Every element of the fragment in document order (template contents included). */
export function elements(html: string): El[] {
  const out: El[] = [];
  const walk = (n: Node): void => {
    if (isElement(n))
      out.push({ tag: n.tagName, attrs: Object.fromEntries(n.attrs.map((a) => [a.name, a.value])), text: textOf(n) });
    const kids = 'childNodes' in n ? n.childNodes : [];
    for (const k of kids) walk(k);
    if ('content' in n) for (const k of n.content.childNodes) walk(k);
  };
  walk(parseFragment(html));
  return out;
}

/** Visible text of the fragment as a browser would build it. */
export function textContent(html: string): string {
  return textOf(parseFragment(html));
}

const TAGS = new Set([
  'div',
  'section',
  'p',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'a',
  'code',
  'pre',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'em',
  'strong',
  's',
  'blockquote',
  'span',
  'cite',
  'button',
  'br',
  'hr',
]);
const ATTRS = new Set(['class', 'href', 'id', 'role', 'rel', 'title', 'value', 'type', 'start']);

/**
 * The safety rules, checked on the parsed tree: only known harmless elements (no script, img,
 * iframe, style, object, form, svg, math…), only known attributes (no on*, style, src, srcset,
 * action, formaction…), every href `https:` or a `#` fragment naming an element of the fragment.
 */
export function assertSafe(html: string): El[] {
  const els = elements(html);
  const idList = els.map((e) => e.attrs.id).filter((x): x is string => x !== undefined);
  const ids = new Set(idList);
  assert.equal(ids.size, idList.length, 'ids are unique');
  for (const e of els) {
    assert.ok(TAGS.has(e.tag), `unexpected element <${e.tag}>`);
    for (const [name, value] of Object.entries(e.attrs)) {
      assert.ok(
        ATTRS.has(name) || /^aria-[a-z]+$/.test(name) || /^data-[a-z-]+$/.test(name),
        `unexpected attribute ${name}="${value}" on <${e.tag}>`,
      );
      if (name === 'href') {
        if (value.startsWith('#')) assert.ok(ids.has(value.slice(1)), `href ${value} names an element of the fragment`);
        else assert.equal(new URL(value).protocol, 'https:', `href ${value} is https`);
      }
      if (name === 'aria-describedby' || name === 'aria-labelledby')
        assert.ok(ids.has(value), `${name}=${value} names an element`);
    }
    if (e.tag === 'button') assert.equal(e.attrs.type, 'button');
  }
  // The same facts on the raw string, independently of the parser.
  assert.doesNotMatch(html, /<(script|img|iframe|style|object|embed|svg|math|form|input|link|meta|base|template)\b/i);
  // (attribute values are double-quoted with `"` escaped, so dropping them leaves the markup)
  assert.doesNotMatch(html.replace(/="[^"]*"/g, '=""'), /<[^>]*\s(on[a-z]+|style|src|srcset)\s*=/i);
  assert.doesNotMatch(html, /\bhref="(?!https:\/\/|#)/i);
  return els;
}

export function links(html: string): El[] {
  return elements(html).filter((e) => e.tag === 'a');
}

let seq = 0;
/** A citation of paper n with quotes m = 1..quotes. */
export function citation(n: number, quotes = 1, over: Partial<Citation> = {}): Citation {
  seq++;
  return {
    n,
    paper_id: `paper-${n}-${seq}`,
    title: `Paper ${n} title`,
    year: 2000 + n,
    journal: `Journal ${n}`,
    url: `https://consensus.app/papers/p${n}`,
    snippets: Array.from({ length: quotes }, (_, i) => ({
      marker: `[${n}.${i + 1}]`,
      quote: `Quote ${i + 1} of paper ${n}.`,
      section: i === 0 ? 'Abstract' : 'Results',
    })),
    ...over,
  };
}
