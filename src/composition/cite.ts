/**
 * Entry of the citation bundle (dist/cite.js): what cite-key completion, hover and links need, `require`d by the entry
 * bundle on the first citation request. The core bundle (dist/core.js) takes these modules from this bundle at run time
 * rather than bundling copies (esbuild.mjs), and builds its citation commands on this same instance: one cache of each
 * .bib, one list of recent papers, one class of each error.
 */
import type * as vscode from 'vscode';
import { Bibliographies } from '../citations/bibliography';
import { CiteCompletion } from '../citations/completion';
import { CiteHover } from '../citations/hover';
import type { CiteAssistant } from '../citations/providers';
import { RecentPapersList, type ShownResults } from '../citations/recentPapers';
import type { Logger } from '../platform/logger';
import { Disposable } from '../shared/disposable';

export interface CiteServices {
  log: Logger;
  /** The results the Research view shows: recent papers follow them. */
  results: ShownResults;
}

export class CiteCore extends Disposable implements CiteAssistant {
  /** A document's bibliographies, read and extended. */
  readonly bibliographies: Bibliographies;
  /** Papers seen this session (results view, answer citations). */
  readonly recentPapers: RecentPapersList;
  /** Cite-key completion and Add to Bibliography. */
  readonly citeCompletion: CiteCompletion;
  /** Cite-key hover and links. */
  readonly citeHover: CiteHover;

  constructor(private readonly services: CiteServices) {
    super();
    this.bibliographies = this.register(new Bibliographies());
    this.recentPapers = new RecentPapersList();
    this.register(this.recentPapers.followResults(services.results));
    const assist = { bibliographies: this.bibliographies, recentPapers: this.recentPapers, log: services.log };
    this.citeCompletion = new CiteCompletion(assist);
    this.citeHover = new CiteHover(assist);
  }

  provideCompletion(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined> {
    return this.quietly('completion', () => this.citeCompletion.provide(document, position, token));
  }

  prepareCompletion(document: vscode.TextDocument): void {
    // The adapter calls this once the first list's bundle gave a list and it had time to show.
    this.citeCompletion.prepareAfterList(document, 0);
  }

  resolveCompletion(item: vscode.CompletionItem): Promise<vscode.CompletionItem> {
    return this.citeCompletion.resolve(item);
  }

  provideHover(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined> {
    return this.quietly('hover', () => this.citeHover.provideHover(document, position, token));
  }

  provideDocumentLinks(
    document: vscode.TextDocument,
    token: vscode.CancellationToken,
  ): Promise<vscode.DocumentLink[] | undefined> {
    return this.quietly('links', () => this.citeHover.provideDocumentLinks(document, token));
  }

  /** Editor features (completion, hover, links) never show errors while someone types: they are logged. */
  private async quietly<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (err) {
      this.services.log.warn(`Cite ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }
}

export function createCiteCore(services: CiteServices): CiteCore {
  return new CiteCore(services);
}

export interface CiteModule {
  createCiteCore(services: CiteServices): CiteCore;
}
