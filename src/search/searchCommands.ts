import * as vscode from 'vscode';
import { MAX_SELECTION_QUERY, pushRecent, selectionToQuery } from './query';
import type { Filters, SearchOutcome, SearchSession } from './searchSession';
import { showInfo } from '../platform/notify';
import { plainText } from '../shared/plainText';
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
    const v = this.state.get<unknown>(StorageKeys.recentQueries);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  private async remember(query: string): Promise<void> {
    await this.state.update(StorageKeys.recentQueries, pushRecent(this.recentQueries(), query));
  }

  async searchPapers(arg?: unknown): Promise<SearchOutcome> {
    let query: string | undefined;
    let filters: Filters | undefined;
    if (typeof arg === 'string') query = arg;
    else if (arg && typeof arg === 'object' && typeof (arg as { query?: unknown }).query === 'string') {
      query = (arg as { query: string }).query;
      const f = (arg as { filters?: unknown }).filters;
      if (f && typeof f === 'object') filters = f;
    } else query = await this.askQuery();
    if (query === undefined || !query.trim()) return NONE;
    await this.remember(query.replace(/\s+/g, ' ').trim());
    return this.session.search(query, { filters });
  }

  /** A Quick Pick: the typed text as the first item, recent queries below it. */
  private askQuery(): Promise<string | undefined> {
    const recent = this.recentQueries();
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { query: string }>();
    const filters = this.describeFilters();
    pick.title = filters ? vscode.l10n.t('Search Papers (filters: {0})', filters) : vscode.l10n.t('Search Papers');
    pick.placeholder = vscode.l10n.t('Type a question or keywords, e.g. creatine supplementation and memory');
    pick.matchOnDescription = false;
    // A recent query may be a paper's title (Find Similar): shown without icon syntax.
    const recentItems = recent.map((q) => ({
      label: plainText(q, 200),
      query: q,
      iconPath: new vscode.ThemeIcon('history'),
      description: vscode.l10n.t('recent'),
    }));
    const update = (): void => {
      const typed = pick.value.replace(/\s+/g, ' ').trim();
      const fresh =
        typed && !recent.some((q) => q.toLowerCase() === typed.toLowerCase())
          ? [
              {
                label: typed,
                query: typed,
                iconPath: new vscode.ThemeIcon('search'),
                description: vscode.l10n.t('search'),
                alwaysShow: true,
              },
            ]
          : [];
      pick.items = [...fresh, ...recentItems];
    };
    update();
    return new Promise<string | undefined>((resolve) => {
      let done = false;
      const finish = (value: string | undefined): void => {
        if (done) return;
        done = true;
        resolve(value);
        pick.dispose();
      };
      pick.onDidChangeValue(update);
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0]?.query ?? pick.value.trim();
        finish(chosen || undefined);
      });
      pick.onDidHide(() => finish(undefined));
      pick.show();
    });
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
