import * as vscode from 'vscode';
import { MAX_SELECTION_QUERY, pushRecent, queryArg, selectionToQuery } from './query';
import { askSearchQuery, recentQueries } from './queryPick';
import type { Filters, SearchOutcome, SearchSession } from './searchSession';
import { showInfo } from '../platform/notify';
import { StorageKeys } from '../platform/ids';

/**
 * The argument `researchDesk.searchPapers` accepts from keybindings, other extensions and
 * tests: a query string, or `{ query, filters? }` where `filters` replaces the active filters
 * for that one search. Without an argument the command asks for the query.
 */
export type SearchPapersArg = string | { query: string; filters?: Filters };

const NONE: SearchOutcome = { outcome: 'none', shown: 0, fetched: 0, requests: 0, more: false };

/** Search Papers, Search Selection, Load More, Refresh and Clear. */
export class SearchCommands {
  constructor(
    private readonly session: SearchSession,
    private readonly state: vscode.Memento,
    private readonly describeFilters: () => string = () => '',
  ) {}

  recentQueries(): string[] {
    return recentQueries(this.state);
  }

  private async remember(query: string): Promise<void> {
    await this.state.update(StorageKeys.recentQueries, pushRecent(this.recentQueries(), query));
  }

  async searchPapers(arg?: unknown): Promise<SearchOutcome> {
    const given = queryArg(arg);
    const query = given ? given.query : await askSearchQuery(this.recentQueries(), this.describeFilters()).query;
    if (query === undefined || !query.trim()) return NONE;
    await this.remember(query.replace(/\s+/g, ' ').trim());
    return this.session.search(query, { filters: given?.filters as Filters | undefined });
  }

  /** The editor's selection (trimmed, whitespace collapsed, cut when over-long) becomes the query. */
  async searchSelection(): Promise<SearchOutcome> {
    const editor = vscode.window.activeTextEditor;
    const text = editor
      ? editor.selections
          .filter((s) => !s.isEmpty)
          .map((s) => editor.document.getText(s))
          .join(' ')
      : '';
    const { query, truncated } = selectionToQuery(text);
    if (!query) {
      const message = vscode.l10n.t('Select some text in an editor first: the selection becomes the search query.');
      void showInfo(message);
      return { ...NONE, message };
    }
    await this.remember(query);
    const note = truncated
      ? vscode.l10n.t(
          'The selection was long, so its first {0} characters (cut at a word) were searched.',
          MAX_SELECTION_QUERY,
        )
      : undefined;
    return this.session.search(query, { note });
  }

  loadMore(): Promise<SearchOutcome> {
    return this.session.loadMore();
  }

  refresh(): Promise<SearchOutcome> {
    return this.session.refresh();
  }

  clear(): SearchOutcome {
    this.session.clear();
    return NONE;
  }
}
