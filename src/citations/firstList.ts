/**
 * The first list after `\cite{` (nothing typed yet) and what it shares with every completion list: where a cite key is
 * being typed, the items made of entries, and their details read from the raw fields.
 *
 * Before the citation bundle (dist/cite.js) is loaded, the entry bundle's adapter (providers.ts) asks `FirstList`
 * here, in a bundle of its own (dist/firstList.js, about a third of the citation bundle's size, esbuild.mjs): a large
 * .bib's first entries come from its head (bibHead.ts), and the list waits only for this smaller bundle's load. When
 * the list is not of that kind (a prefix typed, a small or open .bib, several files, a head that cannot be read), it
 * answers nothing and the citation bundle gives the list, as it gives every later one. The citation bundle takes these
 * modules from this bundle (one instance of each), so its resolve knows this list's items.
 */
import * as vscode from 'vscode';
import type { BibEntry } from '../bib/bibFile';
import { COMPLETION_WINDOW, completionContext, flavourOf, type CompletionContext } from '../bib/syntax';
import { HEAD_ENTRIES, headCandidate, readHeadEntries } from './bibHead';
import { findBibliographies } from './bibliographyFind';
import { byline, entryInfo, entryTitle } from './entryText';

/** Where a cite key is being typed: what completionContext found, and the range the key replaces. */
export interface CiteSite {
  ctx: CompletionContext;
  range: vscode.Range;
}

/** The cite key being typed at `position`, if any (never in Markdown/Typst code). */
export function citeSite(document: vscode.TextDocument, position: vscode.Position): CiteSite | undefined {
  const flavour = flavourOf(document.languageId, document.fileName);
  if (flavour === 'plain') return undefined;
  // The characters completionContext reads before the cursor, no more (whole lines could be megabytes).
  const from = document.positionAt(Math.max(0, document.offsetAt(position) - COMPLETION_WINDOW));
  const before = document.getText(new vscode.Range(from, position));
  const ctx = completionContext(before, before.length, flavour);
  if (!ctx || (flavour !== 'latex' && inCode(document, position))) return undefined;
  return { ctx, range: new vscode.Range(position.translate(0, -ctx.prefix.length), position) };
}

/** Markdown/Typst: inside a fenced (``` or ~~~) block or an inline `code` span, where `@` is code, not a citation. */
export function inCode(document: vscode.TextDocument, position: vscode.Position): boolean {
  let fenced = false;
  for (let l = 0; l < position.line; l++) if (/^\s*(?:```|~~~)/u.test(document.lineAt(l).text)) fenced = !fenced;
  if (fenced) return true;
  const prefix = document.lineAt(position.line).text.slice(0, position.character);
  return (prefix.match(/`/gu)?.length ?? 0) % 2 === 1;
}

/**
 * Our filter decided already; VS Code's fuzzy filter must not drop a title/author match, so its filter text starts
 * with what was typed.
 */
export const filterText = (prefix: string, key: string): string => `${prefix} ${key}`;

/**
 * An entry's item: its key and title (read from the raw fields). Its detail and documentation (title, authors, year,
 * journal) are given on resolve, which VS Code asks for the item it shows them for: the list's items travel to the
 * workbench without them. What VS Code would take anyway is left out too (it sends every field given with each
 * item): the text inserted is the label, and with nothing typed the filter text is the label.
 */
export function entryItem(entry: BibEntry, prefix: string, range: vscode.Range): vscode.CompletionItem {
  const item = new vscode.CompletionItem(
    { label: entry.key, description: entryTitle(entry) },
    vscode.CompletionItemKind.Reference,
  );
  if (prefix) item.filterText = filterText(prefix, entry.key);
  // `range` for inserting and for replacing alike, in the form VS Code does not send with each item when it is the
  // word range it would use anyway.
  item.range = { inserting: range, replacing: range };
  return item;
}

/** What an item of a first list stands for: an entry of a list made before its file was read to the end. */
export interface FirstItemSource {
  document: vscode.TextDocument;
  entry: BibEntry;
}
const firstSources = new WeakMap<vscode.CompletionItem, FirstItemSource>();

/** The entry an item of a first list stands for (found again in the whole parse on resolve). */
export const firstItemSource = (item: vscode.CompletionItem): FirstItemSource | undefined => firstSources.get(item);

/** A first list: the entries in bibliography order, their items remembered for resolve. Incomplete: typing asks again. */
export function firstList(
  document: vscode.TextDocument,
  entries: readonly BibEntry[],
  range: vscode.Range,
): vscode.CompletionList {
  const items = entries.map((entry, i) => {
    const item = entryItem(entry, '', range);
    firstSources.set(item, { document, entry });
    item.sortText = String(i).padStart(5, '0');
    return item;
  });
  return new vscode.CompletionList(items, true);
}

/** An entry item's detail and documentation from its raw fields (plain text: nothing in a .bib is meant as Markdown). */
export function describeFromRaw(item: vscode.CompletionItem, entry: BibEntry): vscode.CompletionItem {
  const info = entryInfo(entry);
  item.detail = info.title;
  item.documentation = byline(info.families, info.year, info.journal);
  return item;
}

/** The first list while the citation bundle is not loaded (see above): dist/firstList.js's service. */
export class FirstList {
  /** The head read ahead of the first list (`warm`): its .bib, the file's mtime and size then, its entries. */
  private head: { uri: string; stamp: string; entries: BibEntry[] } | undefined;
  /** The read of a head under way, which a list asked meanwhile takes rather than reading the head again. */
  private reading: { uri: string; stamp: string; entries: Promise<BibEntry[] | undefined> } | undefined;
  /** How many times a .bib's head was read (tests). */
  headReads = 0;
  /** How long the last list took here, from the request to the list made (the benchmark reports it). */
  provideMs: number | undefined;

  /**
   * @param hasRecentPapers whether papers were shown this session (the list would offer them, after checking them
   *   against the whole file: the citation bundle's list).
   */
  constructor(private readonly hasRecentPapers: () => boolean) {}

  /**
   * The first entries of the document's one large .bib, read from its head, right after `\cite{` with nothing typed;
   * undefined when the list is not of that kind (the citation bundle answers instead).
   */
  async provide(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined> {
    const started = performance.now();
    const site = citeSite(document, position);
    if (!site || site.ctx.prefix || this.hasRecentPapers()) return undefined;
    // Nothing was chosen this session: that happens in the citation bundle, not loaded yet.
    const entries = await this.headOf(document);
    if (!entries || token.isCancellationRequested) return undefined;
    const list = firstList(document, entries, site.range);
    this.provideMs = performance.now() - started;
    return list;
  }

  /**
   * Reads the head of the document's large .bib ahead of its first list (the entry bundle asks once the editor of a
   * document that cites has been active a moment): the list then waits for neither this bundle nor the read.
   */
  async warm(document: vscode.TextDocument): Promise<void> {
    await this.headOf(document);
  }

  /**
   * The first entries of the document's one large .bib: read again unless the file is as it was when last read. A
   * list asked while the same head is being read ahead takes that read.
   */
  private async headOf(document: vscode.TextDocument): Promise<BibEntry[] | undefined> {
    const [bib] = await findBibliographies(document, () => undefined);
    const stat = bib && (await headCandidate(bib.uri));
    if (!bib || !stat) return undefined;
    const uri = bib.uri.toString();
    const stamp = `${stat.mtime}:${stat.size}`;
    if (this.head?.uri === uri && this.head.stamp === stamp) return this.head.entries;
    if (this.reading?.uri === uri && this.reading.stamp === stamp) return this.reading.entries;
    this.headReads++;
    const reading = { uri, stamp, entries: readHeadEntries(bib.uri, HEAD_ENTRIES) };
    this.reading = reading;
    try {
      const entries = await reading.entries;
      this.head = entries && { uri, stamp, entries };
      return entries;
    } finally {
      if (this.reading === reading) this.reading = undefined;
    }
  }

  /** A first list's item, described from its raw fields; others are left as they are. */
  resolve(item: vscode.CompletionItem): vscode.CompletionItem {
    const source = firstSources.get(item);
    return source ? describeFromRaw(item, source.entry) : item;
  }

  dispose(): void {
    this.head = undefined;
    this.reading = undefined;
  }
}

export function createFirstList(hasRecentPapers: () => boolean): FirstList {
  return new FirstList(hasRecentPapers);
}

export interface FirstListModule {
  createFirstList(hasRecentPapers: () => boolean): FirstList;
}
