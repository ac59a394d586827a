/**
 * Cite-key completion, in the citation bundle (dist/cite.js). The entry bundle's adapter (src/citations/providers.ts)
 * calls in here only once its cheap check (src/shared/citeTrigger.ts) saw a cite context, so nothing is loaded while
 * someone types prose.
 *
 * Items, inside `\cite{…}` (after `{` or `,`), after `[@`, `; @`, ` @` / `@` at a line start (Pandoc, Typst) and in
 * Typst's `#cite(<`, never in an e-mail address (src/bib/syntax.ts completionContext):
 *   1. the document's bibliography entries: label = key, description = title (detail = title, documentation =
 *      authors · year · journal, on resolve);
 *   2. recent papers (results shown, answer citations) that are not in the bibliography: label = the key the paper
 *      would get, described "not in bibliography — adds it". Accepting one runs `researchDesk.addToBibliography`,
 *      which adds its entry through bibliographies.addEntries and apply; should the key written differ
 *      from the key predicted here (the file changed meanwhile), the same edit replaces the inserted key, so the key
 *      in the text is always the key in the file.
 * Filtering is ours (VS Code's fuzzy filter only sees one string): the typed prefix matches the start of the key,
 * anywhere in the key, or the start of a word of the title or of an author's name (accents ignored); in that order,
 * bibliography entries before recent papers. The list is marked incomplete, so each keystroke asks again.
 * Lists use the raw .bib text (braces and common accent macros removed): decoding 10,000 entries with the BibTeX
 * library would take seconds; the selected item is decoded exactly on resolve, which also gives its detail and
 * documentation (the items travel to the workbench without them). A large file is read and indexed in slices
 * (citeIndex.ts); the first list after `\cite{` comes from the first entries read, and for a large file not read yet
 * from its head alone (bibliographyCache.ts): the whole file is read after the list has had time to show. The first
 * item's details then come from the raw fields, without loading the BibTeX library (tens of milliseconds) right then.
 */
import * as vscode from 'vscode';
import { showError, showWarning } from '../platform/notify';
import { oneLine } from '../shared/plainText';
import type { BibFile } from '../bib/bibFile';
import { yearOf } from '../bib/bibtex';
import { isBibtexLibraryLoaded, loadBibtexLibrary } from '../bib/library';
import { Commands } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { citationSettings } from '../platform/settings';
import { CitationError } from './errors';
import { AFTER_LIST_MS, inSlices } from '../shared/slices';
import { CiteIndex, prefixOf } from './citeIndex';
import { EntryIndex, matchRank, predictKey, type MatchInfo } from './citeMatch';
import { byline } from './entryText';
import { citeSite, describeFromRaw, entryItem, filterText, firstItemSource, firstList } from './firstList';
import { asCitePaper } from './recentPapers';
import type { BibliographyEntry, BibliographyService, CitePaper, RecentPapers } from './types';

export interface CiteAssistOptions {
  bibliographies: BibliographyService;
  recentPapers: RecentPapers;
  log: Logger;
}

/** The argument of researchDesk.addToBibliography (a completion item's command). */
export interface AddToBibliographyArgs {
  /** The document the key was inserted into. */
  uri: string;
  /** Where the inserted key starts. */
  line: number;
  character: number;
  /** The key inserted (predicted). */
  key: string;
  paper: CitePaper;
}

/**
 * How many items one list holds at most, entries and recent papers together, best ranked first. The list is
 * incomplete, so each keystroke asks again and narrows it; the widget shows a dozen at a time. Every item travels to
 * the workbench (and, through vscode.executeCompletionItemProvider, back): 500 took twice as long as 100 on a
 * 10,000-entry file. clangd's default limit is the same.
 */
export const MAX_ITEMS = 100;

// ---------------------------------------------------------------------------------------------------------------

/** What an item stands for (a first list's items are firstList.ts's). */
type ItemSource = { kind: 'entry'; entry: BibliographyEntry } | { kind: 'recent'; paper: CitePaper; key: string };

/** A recent paper that is not in the bibliography, with the key it would get. */
interface RecentCandidate extends MatchInfo {
  paper: CitePaper;
}

/**
 * The indexes of the last request, reused while the .bib parses (and the recent list) stay the same: the matching index
 * (built in slices; `built` settles when it is complete), the index of the papers in the bibliography (only once there
 * are recent papers to check), the recent candidates.
 */
interface Prepared {
  files: readonly BibFile[];
  entries: readonly BibliographyEntry[];
  index: CiteIndex;
  built: Promise<void>;
  inBib?: Promise<EntryIndex>;
  recents?: { list: readonly CitePaper[]; scheme: string | undefined; candidates: RecentCandidate[] };
}

const sameFiles = (a: readonly BibFile[], b: readonly BibFile[]): boolean =>
  a.length === b.length && a.every((f, i) => f === b[i]);

export class CiteCompletion {
  /** What each item of the last lists stands for (resolve fills in the exact metadata). */
  private readonly sources = new WeakMap<vscode.CompletionItem, ItemSource>();
  private prepared: Prepared | undefined;
  /** The preparation the last first list set going (tests wait for it before changing the files it reads). */
  afterList: Promise<void> = Promise.resolve();

  constructor(private readonly options: CiteAssistOptions) {}

  /** The indexes of these entries (reused while every bibliography's parse is the same object). */
  private indexFor(entries: readonly BibliographyEntry[]): Prepared {
    const files: BibFile[] = [];
    for (const e of entries)
      if (files[files.length - 1] !== e.bib.file && !files.includes(e.bib.file)) files.push(e.bib.file);
    if (this.prepared && sameFiles(this.prepared.files, files)) return this.prepared;
    const index = CiteIndex.after(
      this.prepared?.index,
      entries.map((e) => e.entry),
    );
    this.prepared = { files, entries, index, built: inSlices((until) => index.build(until)) };
    return this.prepared;
  }

  /**
   * Reads the document's bibliographies and builds the matching index in the background (in slices), so that the
   * requests after the first one are answered from it at once.
   */
  async prepare(document: vscode.TextDocument): Promise<void> {
    await this.indexFor(await this.options.bibliographies.entries(document)).built;
  }

  /**
   * After a first list: the next request has a prefix to match, so the whole file (of which the list may have read
   * only the head) and its index are made ready, in slices, once the list has had time to show (`waitMs`), rather
   * than by that request.
   */
  prepareAfterList(document: vscode.TextDocument, waitMs = AFTER_LIST_MS): void {
    this.afterList = new Promise((resolve) => setTimeout(resolve, waitMs))
      .then(() => this.prepare(document))
      .catch(() => undefined);
  }

  /** Recent papers not in the bibliography, each with its predicted key (reused while nothing changed). */
  private async recentCandidates(prepared: Prepared, scheme: string | undefined): Promise<RecentCandidate[]> {
    const list = this.options.recentPapers.list();
    const cached = prepared.recents;
    if (cached && cached.list === list && cached.scheme === scheme) return cached.candidates;
    if (!list.length) return [];
    const inBib = await (prepared.inBib ??= EntryIndex.build(prepared.entries));
    const taken = new Set(inBib.keys);
    const candidates: RecentCandidate[] = [];
    for (const paper of list) {
      if (inBib.find(paper)) continue;
      const key = predictKey(paper, taken, scheme);
      candidates.push({ paper, key, title: oneLine(paper.title), families: paper.authors ?? [] });
    }
    prepared.recents = { list, scheme, candidates };
    return candidates;
  }

  async provide(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined> {
    const site = citeSite(document, position);
    if (!site) return undefined;
    const { ctx, range } = site;

    // Nothing typed yet and no recent paper to offer: every entry ranks first, so the list is the first entries in
    // bibliography order, shown as soon as they are read (a 10,000-entry file need not be parsed to the end first).
    if (!ctx.prefix && !this.options.recentPapers.list().length) {
      const first = await this.options.bibliographies.firstEntries(document, MAX_ITEMS);
      if (token.isCancellationRequested) return undefined;
      this.prepareAfterList(document);
      return firstList(document, first, range);
    }

    const entries = await this.options.bibliographies.entries(document);
    if (token.isCancellationRequested) return undefined;
    const prepared = this.indexFor(entries);
    await prepared.built;
    if (token.isCancellationRequested) return undefined;

    // Rank first, build items only for what is kept: entries (bibliography order within a rank), then recent papers.
    const prefix = prefixOf(ctx.prefix);
    const entryHits: { rank: number; e: BibliographyEntry }[] = [];
    for (let i = 0; i < entries.length; i++) {
      const rank = prepared.index.rank(i, prefix);
      if (rank !== undefined) entryHits.push({ rank, e: entries[i]! });
    }
    entryHits.sort((a, b) => a.rank - b.rank);
    const recentHits: { rank: number; c: RecentCandidate }[] = [];
    for (const c of await this.recentCandidates(prepared, citationSettings(document.uri).keyScheme)) {
      const rank = matchRank(ctx.prefix, c);
      if (rank !== undefined) recentHits.push({ rank, c });
    }
    recentHits.sort((a, b) => a.rank - b.rank);
    if (token.isCancellationRequested) return undefined;

    // The best MAX_ITEMS of both: at the same rank an entry comes before a recent paper.
    let entryCount = 0;
    let recentCount = 0;
    while (entryCount + recentCount < MAX_ITEMS) {
      const e = entryHits[entryCount];
      const r = recentHits[recentCount];
      if (e && (!r || e.rank <= r.rank)) entryCount++;
      else if (r) recentCount++;
      else break;
    }
    const ranked: { rank: number; item: vscode.CompletionItem }[] = [];
    for (const { rank, e } of entryHits.slice(0, entryCount)) {
      const item = entryItem(e.entry, ctx.prefix, range);
      this.sources.set(item, { kind: 'entry', entry: e });
      ranked.push({ rank: rank * 2, item });
    }
    const marker = ` ${vscode.l10n.t('(not in bibliography — adds it)')}`;
    for (const { rank, c } of recentHits.slice(0, recentCount)) {
      const { paper, key } = c;
      const item = new vscode.CompletionItem(
        { label: key, detail: marker, description: c.title },
        vscode.CompletionItemKind.Value,
      );
      item.detail = c.title;
      item.documentation = `${byline(c.families, yearOf(paper), paper.journal_name)}\n\n${vscode.l10n.t('Not in the bibliography yet: accepting adds its entry.')}`;
      this.finish(item, key, ctx.prefix, range);
      const args: AddToBibliographyArgs = {
        uri: document.uri.toString(),
        line: range.start.line,
        character: range.start.character,
        key,
        paper,
      };
      item.command = {
        command: Commands.addToBibliography,
        title: vscode.l10n.t('Add to Bibliography'),
        arguments: [args],
      };
      this.sources.set(item, { kind: 'recent', paper, key });
      ranked.push({ rank: rank * 2 + 1, item });
    }

    // Stable sort: rank (entries before recent papers at the same rank), then bibliography / recency order.
    ranked.sort((a, b) => a.rank - b.rank);
    const items = ranked.map((r, i) => {
      r.item.sortText = String(i).padStart(5, '0');
      return r.item;
    });
    return new vscode.CompletionList(items, true);
  }

  private finish(item: vscode.CompletionItem, key: string, prefix: string, range: vscode.Range): void {
    item.insertText = key;
    item.range = range;
    item.filterText = filterText(prefix, key);
  }

  /** The selected item's metadata: read from the raw fields, then decoded exactly by the library. */
  async resolve(item: vscode.CompletionItem): Promise<vscode.CompletionItem> {
    const own = this.sources.get(item);
    const listed = own?.kind === 'entry' ? own.entry : undefined;
    const first = firstItemSource(item);
    const raw = listed?.entry ?? first?.entry;
    if (!raw) return item;
    describeFromRaw(item, raw);
    if (!isBibtexLibraryLoaded()) {
      // The first list's focused item: the raw fields' reading stands (the library's first load and the whole file's
      // parse would take the CPU the workbench needs to draw the list); the library loads after, for the next items.
      setTimeout(() => void loadBibtexLibrary().catch(() => undefined), AFTER_LIST_MS);
      return item;
    }
    try {
      await loadBibtexLibrary();
      const entry =
        listed ??
        // A first list's entry may come from the file's head alone: the same entry of the whole parse starts there.
        (first &&
          (await this.options.bibliographies.entries(first.document)).find(
            (e) => e.entry.start === raw.start && e.entry.key === raw.key,
          ));
      if (!entry) return item;
      const p = entry.paper;
      if (p.title) item.detail = p.title;
      // Plain text: .bib text is untrusted and nothing in it is meant as Markdown.
      item.documentation = byline(p.authors ?? [], p.publish_year, p.journal_name);
    } catch (err) {
      this.options.log.debug(
        `Could not decode the entry ${raw.key}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return item;
  }

  /**
   * researchDesk.addToBibliography: after a recent paper's key was inserted by completion, adds its entry to the
   * document's bibliography (asking for one when the document has none and the default setting is empty); when
   * the key written differs from the one inserted, the inserted key is replaced in the same edit. Returns the key.
   */
  async addToBibliography(arg: unknown): Promise<string | undefined> {
    const a = parseArgs(arg);
    if (!a) throw new Error('researchDesk.addToBibliography needs {uri, line, character, key, paper}.');
    const uri = vscode.Uri.parse(a.uri, true);
    const document = await vscode.workspace.openTextDocument(uri);
    let bib;
    let key: string | undefined;
    const edit = new vscode.WorkspaceEdit();
    try {
      const target = await this.options.bibliographies.target(document);
      if (!target) return undefined; // the writer cancelled choosing a bibliography, or did not allow writing to it
      bib = await this.options.bibliographies.load(target);
      [key] = await this.options.bibliographies.addEntries(edit, bib, [a.paper], document);
    } catch (err) {
      // Refused before anything was written (not a .bib, an unclosed entry, an encoding): a completion item's command
      // has no one else to tell the writer why.
      if (err instanceof CitationError) {
        void showError(err.message);
        return undefined;
      }
      throw err;
    }
    if (!key) return undefined;
    if (key !== a.key) {
      const start = new vscode.Position(a.line, a.character);
      const range = new vscode.Range(start, start.translate(0, a.key.length));
      if (document.getText(range) === a.key) edit.replace(uri, range, key);
      else {
        void showWarning(
          vscode.l10n.t('The paper was added to the bibliography as "{0}"; cite it with that key.', key),
        );
      }
    }
    let applied: boolean;
    try {
      applied = await this.options.bibliographies.apply(edit);
    } catch (err) {
      if (err instanceof CitationError) {
        void showError(err.message);
        return undefined;
      }
      throw err;
    }
    if (!applied) {
      throw new Error(
        vscode.l10n.t(
          'The bibliography {0} could not be changed (read-only or changed meanwhile); nothing was written.',
          vscode.workspace.asRelativePath(bib.uri),
        ),
      );
    }
    this.options.recentPapers.remember([a.paper]);
    this.options.log.info(`Added ${key} to ${vscode.workspace.asRelativePath(bib.uri)} (completion).`);
    return key;
  }
}

function parseArgs(arg: unknown): AddToBibliographyArgs | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const a = arg as Record<string, unknown>;
  if (
    typeof a['uri'] !== 'string' ||
    typeof a['key'] !== 'string' ||
    typeof a['line'] !== 'number' ||
    typeof a['character'] !== 'number'
  )
    return undefined;
  // A paper to write needs a title or a DOI; a key alone names an entry that exists.
  const paper = asCitePaper(a['paper']);
  if (!paper || (!paper.title && !paper.doi)) return undefined;
  return { uri: a['uri'], key: a['key'], line: a['line'], character: a['character'], paper };
}
