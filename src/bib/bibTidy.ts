/**
 * Tidy Bibliography on a .bib's text: entries sorted by key with `crossref`/`xref` parents after their children, DOI
 * duplicates removed unless a document cites them, entries moved as written (never re-formatted), nothing done to a
 * file with errors or an unclosed entry. Apart from the parse (bibFile.ts) because only this command rewrites a file
 * rather than appending to it. Pure.
 */
import { appendBlocker, type AppendBlocker } from './bibAppend';
import { entryDoi } from './bibEntry';
import { parseBibFile, type BibDiagnostic, type BibEntry } from './bibFile';

export interface TidyOptions {
  /** Every key counts as cited (`\nocite{*}`): nothing is reported uncited. */
  everyKeyCited?: boolean;
  /**
   * False when the cited keys may be incomplete (a document could not be read, too many files): then no duplicate is
   * removed, since one of them may be cited where we did not look.
   */
  citedComplete?: boolean;
}

export interface TidyResult {
  /**
   * The whole new text, or undefined when the file has errors or something a reader would read on from (tidy refuses
   * to move broken text: in another place it would swallow other entries).
   */
  text: string | undefined;
  /** Why the text was not tidied, when it was for something other than an error. */
  blocked?: AppendBlocker;
  /** Entries removed as duplicates of an entry with the same DOI (cite the kept key instead). */
  removed: { key: string; keptKey: string; doi: string }[];
  /** Entries that share a DOI but were all kept, because documents cite them (or a crossref needs them). */
  keptDuplicates: { keys: string[]; doi: string }[];
  /** Keys not cited by the given set (empty when no set was given), in the new order. */
  uncited: string[];
  diagnostics: BibDiagnostic[];
}

/** The keys an entry refers to (`crossref`, `xref`): BibTeX wants such a parent after every entry that refers to it. */
const parentKeys = (e: BibEntry): string[] =>
  [e.field('crossref'), e.field('xref')].filter((v): v is string => !!v?.trim()).map((v) => v.trim().toLowerCase());

/**
 * Tidy: sort entries by key (case-insensitive), `@string`, `@preamble` and `@comment` first in their order, every
 * `crossref`/`xref` parent after the entries that refer to it (BibTeX reads the children first); text between
 * entries travels with the entry after it, except the file's header (set apart by a blank line), which stays on top;
 * entries are kept as written. Entries whose DOI repeats another's are
 * removed unless a document cites them or an entry refers to them: of a group of same-DOI entries, the cited (and
 * referred-to) ones stay, else the first. `cited`: the keys the documents cite; without it every later duplicate
 * goes and nothing is reported uncited.
 */
export function tidyBibliography(text: string, cited?: Iterable<string>, options: TidyOptions = {}): TidyResult {
  const file = parseBibFile(text);
  const errors = file.diagnostics.filter((d) => d.severity === 'error');
  const blocked = appendBlocker(file);
  // Problems past the listed ones may be errors: not tidied either.
  if (errors.length || blocked || file.omitted)
    return {
      text: undefined,
      ...(blocked ? { blocked } : {}),
      removed: [],
      keptDuplicates: [],
      uncited: [],
      diagnostics: file.diagnostics,
    };
  const nl = file.newline;
  const citedSet = cited ? new Set([...cited].map((k) => k.toLowerCase())) : undefined;
  const referred = new Set(file.entries.flatMap(parentKeys));
  const needed = (e: BibEntry): boolean =>
    referred.has(e.key.toLowerCase()) || (citedSet?.has(e.key.toLowerCase()) ?? false);
  // Leading text (comments) of each item: from the end of the previous item. Entries and directives are each in
  // text order: merged, not sorted.
  const directiveChunks: string[] = [];
  const entryItems: { entry: BibEntry; chunk: string; sortKey: string }[] = [];
  let prev = 0;
  // The file's header (a `% Encoding: UTF-8` line, a licence, a note) stays on top: the text before the first item
  // when a blank line sets it apart; text right above the first item belongs to that item and travels with it.
  const first = Math.min(file.entries[0]?.start ?? text.length, file.directives[0]?.start ?? text.length);
  const before = text.slice(0, first);
  const lead = before.trimEnd();
  const header = lead.trim() && /\n[ \t]*\r?\n/.test(before.slice(lead.length)) ? lead.trim() : '';
  if (header) prev = lead.length;
  const chunkOf = (start: number, end: number): string => {
    const lead = text.slice(prev, start).trim();
    prev = end;
    return (lead ? lead + nl : '') + text.slice(start, end);
  };
  for (let e = 0, d = 0; e < file.entries.length || d < file.directives.length;) {
    const entry = file.entries[e];
    const directive = file.directives[d];
    if (entry && (!directive || entry.start < directive.start)) {
      entryItems.push({ entry, chunk: chunkOf(entry.start, entry.end), sortKey: entry.key.toLowerCase() });
      e++;
    } else if (directive) {
      directiveChunks.push(chunkOf(directive.start, directive.end));
      d++;
    }
  }
  // Same-DOI groups: who stays.
  const byDoi = new Map<string, BibEntry[]>();
  for (const { entry } of entryItems) {
    const doi = entryDoi(entry);
    if (!doi) continue;
    const group = byDoi.get(doi);
    if (group) group.push(entry);
    else byDoi.set(doi, [entry]);
  }
  const removed: TidyResult['removed'] = [];
  const keptDuplicates: TidyResult['keptDuplicates'] = [];
  const dropped = new Set<BibEntry>();
  const mayRemove = options.citedComplete !== false;
  for (const [doi, group] of byDoi) {
    if (group.length < 2) continue;
    const stay = group.filter(needed);
    if (stay.length > 1 || !mayRemove) keptDuplicates.push({ keys: (mayRemove ? stay : group).map((e) => e.key), doi });
    if (!mayRemove) continue;
    const keep = stay[0] ?? group[0]!;
    const staying = new Set(stay);
    for (const e of group) {
      if (e === keep || staying.has(e)) continue;
      dropped.add(e);
      removed.push({ key: e.key, keptKey: keep.key, doi });
    }
  }
  const kept = entryItems.filter((k) => !dropped.has(k.entry));
  const trailing = text.slice(prev).trim();
  kept.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.entry.start - b.entry.start));
  const ordered = childrenFirst(kept);
  const uncited =
    citedSet && !options.everyKeyCited
      ? ordered.map((k) => k.entry.key).filter((k) => !citedSet.has(k.toLowerCase()))
      : [];
  const parts = [
    ...(header ? [header] : []),
    ...directiveChunks,
    ...ordered.map((k) => k.chunk),
    ...(trailing ? [trailing] : []),
  ];
  return {
    text: parts.length ? parts.join(nl + nl) + nl : '',
    removed,
    keptDuplicates,
    uncited,
    diagnostics: file.diagnostics,
  };
}

/**
 * `sorted` reordered so that each entry comes before every entry it refers to (`crossref`/`xref`), otherwise in the
 * given order: the earliest entry none of whose children is still waiting goes next. Entries in a reference cycle
 * keep their order at the end.
 */
function childrenFirst<T extends { entry: BibEntry; sortKey: string }>(sorted: readonly T[]): T[] {
  if (!sorted.some((s) => s.entry.field('crossref') !== undefined || s.entry.field('xref') !== undefined))
    return [...sorted];
  const index = new Map<string, number>();
  sorted.forEach((s, i) => {
    if (!index.has(s.sortKey)) index.set(s.sortKey, i);
  });
  const none: number[] = [];
  const parents = sorted.map((s, i) => {
    const keys = parentKeys(s.entry);
    if (!keys.length) return none;
    return [...new Set(keys.map((k) => index.get(k)).filter((p): p is number => p !== undefined && p !== i))];
  });
  const waiting = new Array<number>(sorted.length).fill(0);
  for (const ps of parents) for (const p of ps) waiting[p]!++;
  if (!waiting.some((w) => w > 0)) return [...sorted];
  const ready = new MinHeap();
  waiting.forEach((w, i) => w === 0 && ready.push(i));
  const out: T[] = [];
  const done = new Array<boolean>(sorted.length).fill(false);
  while (ready.size) {
    const i = ready.pop();
    out.push(sorted[i]!);
    done[i] = true;
    for (const p of parents[i]!) if (--waiting[p]! === 0) ready.push(p);
  }
  sorted.forEach((s, i) => !done[i] && out.push(s));
  return out;
}

/** A binary min-heap of indices. */
class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (a[p]! <= a[i]!) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}
