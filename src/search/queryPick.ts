import * as vscode from 'vscode';
import { StorageKeys } from '../platform/ids';
import { plainText } from '../shared/plainText';

/** The recent queries kept in globalState, newest first (anything else stored there is ignored). */
export function recentQueries(state: vscode.Memento): string[] {
  const v = state.get<unknown>(StorageKeys.recentQueries);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Search Papers' Quick Pick, shown. */
export interface QueryPick {
  /** The query accepted; undefined when the pick was closed without one. */
  readonly query: Promise<string | undefined>;
  /** Names the active filters in the title ('' for none); the entry bundle learns them once the core has loaded. */
  showFilters(filters: string): void;
  /** The Quick Pick itself (tests read its title and items and accept through it). */
  readonly pick: vscode.QuickPick<vscode.QuickPickItem & { query: string }>;
}

/**
 * Asks for a query: the typed text as the first item, recent queries below it. Shown by the core, or by the entry
 * bundle when Search Papers is the first command (the core then loads while the person types).
 */
export function askSearchQuery(recent: readonly string[], filters = ''): QueryPick {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { query: string }>();
  const showFilters = (text: string): void => {
    pick.title = text ? vscode.l10n.t('Search Papers (filters: {0})', text) : vscode.l10n.t('Search Papers');
  };
  showFilters(filters);
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
  let done = false;
  const query = new Promise<string | undefined>((resolve) => {
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
  return {
    query,
    showFilters: (text) => {
      if (!done) showFilters(text);
    },
    pick,
  };
}
