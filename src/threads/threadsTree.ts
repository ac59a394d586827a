/**
 * The Threads view's tree: the caller's threads (newest first), their interactions as children,
 * a Load More node while the service has more. It lives in the entry bundle (the view exists from
 * activation) and asks the core for data only when the view is shown: the first getChildren loads
 * the core, whose ThreadsModel attaches itself as the source. Service text is untrusted: labels
 * are plain text (`plainText`), tooltips MarkdownStrings with trust and HTML off, text escaped and its only links
 * those the one link rule allows (`markdownWithSafeLinks`).
 */
import * as vscode from 'vscode';
import { Commands } from '../platform/ids';
import { Disposable } from '../shared/disposable';
import { markdownWithSafeLinks } from '../shared/markdown';
import { clip, oneLine, plainText } from '../shared/plainText';
import { briefGist } from './briefGist';
import { statusLabel } from './statusWords';

export type ThreadStatusName = 'running' | 'idle' | 'failed';

export interface ThreadRow {
  threadId: string;
  title: string;
  url?: string;
  /** Undefined when the list leaves it out (inactive past the status window) and no poll has told it yet. */
  status?: ThreadStatusName;
  preview?: string;
  interactionCount?: number;
  lastActivity?: string;
  /** The filters its latest turn sent from here ran under: '' none, undefined not known (not sent from here). */
  filters?: string;
}

export interface InteractionRow {
  threadId: string;
  interactionId: string;
  index: number;
  status?: ThreadStatusName;
  mode?: string;
  /** The turn's question (the service's, else what was sent from here). */
  input?: string;
  /** Its filters as for ThreadRow.filters. */
  filters?: string;
  stats?: { retrieved?: number | null; screened?: number | null; included?: number | null } | null;
  url?: string;
}

/** What the core's ThreadsModel provides. */
export interface ThreadsSource {
  readonly onDidChange: vscode.Event<void>;
  readonly loaded: boolean;
  /** Lists the first page (with the current title search). */
  load(): Promise<void>;
  snapshot(): { threads: readonly ThreadRow[]; more: boolean; query: string; message?: string };
  /** The thread's interactions (one poll; also settles its status). */
  interactions(threadId: string): Promise<InteractionRow[]>;
}

export type ThreadNode =
  { kind: 'thread'; row: ThreadRow } | { kind: 'interaction'; row: InteractionRow } | { kind: 'more' };

export const THREAD_CONTEXT = 'thread';
export const INTERACTION_CONTEXT = 'threadInteraction';

export class ThreadsTreeProvider extends Disposable implements vscode.TreeDataProvider<ThreadNode> {
  private readonly changed = this.register(new vscode.EventEmitter<ThreadNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private source: ThreadsSource | undefined;
  private view: vscode.TreeView<ThreadNode> | undefined;
  private roots: ThreadNode[] = [];

  /**
   * `loadCore` loads the core bundle, which attaches the source (called on first display only).
   * `hasKey` says whether a key is set: without one the view stays empty (its welcome content asks for a
   * key) and neither the core nor a listing request is spent on it; `onKeyChange` refreshes it.
   */
  constructor(
    private readonly loadCore: () => void,
    private readonly hasKey: () => Promise<boolean> = () => Promise.resolve(true),
    onKeyChange?: vscode.Event<boolean>,
  ) {
    super();
    if (onKeyChange)
      this.register(
        onKeyChange((has) => {
          if (has && this.source?.loaded) void this.source.load();
          else this.changed.fire(undefined);
        }),
      );
  }

  bindView(view: vscode.TreeView<ThreadNode>): void {
    this.view = view;
  }

  get treeView(): vscode.TreeView<ThreadNode> | undefined {
    return this.view;
  }

  attach(source: ThreadsSource): vscode.Disposable {
    this.source = source;
    const sub = source.onDidChange(() => this.changed.fire(undefined));
    this.changed.fire(undefined);
    return {
      dispose: () => {
        sub.dispose();
        if (this.source === source) this.source = undefined;
      },
    };
  }

  async getChildren(element?: ThreadNode): Promise<ThreadNode[]> {
    if (!element && !(await this.hasKey())) {
      if (this.view) {
        this.view.message = undefined;
        this.view.description = '';
      }
      this.roots = [];
      return this.roots;
    }
    if (!this.source) {
      try {
        this.loadCore();
      } catch {
        return [];
      }
    }
    const source = this.source;
    if (!source) return [];
    if (!element) {
      if (!source.loaded) await source.load();
      const s = source.snapshot();
      if (this.view) {
        this.view.description = s.query ? vscode.l10n.t('title contains “{0}”', s.query) : '';
        this.view.message = s.message;
      }
      this.roots = [
        ...s.threads.map((row): ThreadNode => ({ kind: 'thread', row })),
        ...(s.more ? [{ kind: 'more' } as const] : []),
      ];
      return this.roots;
    }
    if (element.kind !== 'thread') return [];
    try {
      return (await source.interactions(element.row.threadId)).map((row) => ({ kind: 'interaction', row }));
    } catch {
      return [];
    }
  }

  /** An interaction's parent is its thread's node (what `reveal` walks); threads and Load More are roots. */
  getParent(node: ThreadNode): ThreadNode | undefined {
    if (node.kind !== 'interaction') return undefined;
    return this.roots.find((r) => r.kind === 'thread' && r.row.threadId === node.row.threadId);
  }

  getTreeItem(node: ThreadNode): vscode.TreeItem {
    switch (node.kind) {
      case 'thread': {
        const r = node.row;
        const title = plainText(r.title, 200) || vscode.l10n.t('(untitled thread)');
        const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `thread/${r.threadId}`;
        item.iconPath = statusIcon(r.status);
        const parts = [statusLabel(r.status)];
        if (r.interactionCount !== undefined)
          parts.push(
            r.interactionCount === 1 ? vscode.l10n.t('1 turn') : vscode.l10n.t('{0} turns', r.interactionCount),
          );
        if (r.lastActivity) parts.push(shortDate(r.lastActivity));
        if (r.filters) parts.push(vscode.l10n.t('filtered'));
        item.description = parts.join(' · ');
        item.contextValue = THREAD_CONTEXT;
        item.command = { command: Commands.openThread, title: vscode.l10n.t('Open'), arguments: [node] };
        item.accessibilityInformation = { label: `${title}, ${item.description}` };
        return item;
      }
      case 'interaction': {
        const r = node.row;
        // The question's first words: a selection brief is named by its passage, not by its instruction sentence.
        const label = plainText(briefGist(r.input ?? '', 120), 120) || vscode.l10n.t('Turn {0}', r.index + 1);
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.id = `thread/${r.threadId}/${r.interactionId}`;
        item.iconPath = statusIcon(r.status);
        const parts = [statusLabel(r.status)];
        if (r.mode) parts.push(r.mode);
        if (r.filters) parts.push(vscode.l10n.t('filtered'));
        if (r.stats && typeof r.stats.included === 'number')
          parts.push(
            r.stats.included === 1
              ? vscode.l10n.t('1 paper included')
              : vscode.l10n.t('{0} papers included', r.stats.included),
          );
        item.description = parts.join(' · ');
        item.contextValue = INTERACTION_CONTEXT;
        item.command = { command: Commands.openThread, title: vscode.l10n.t('Open'), arguments: [node] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(vscode.l10n.t('Load More Threads'), vscode.TreeItemCollapsibleState.None);
        item.id = 'thread/more';
        item.iconPath = new vscode.ThemeIcon('fold-down');
        item.command = { command: Commands.loadMoreThreads, title: vscode.l10n.t('Load More Threads') };
        item.contextValue = 'loadMoreThreads';
        return item;
      }
    }
  }

  resolveTreeItem(item: vscode.TreeItem, node: ThreadNode): vscode.TreeItem {
    if (node.kind === 'more') return item;
    const md = new vscode.MarkdownString('', false);
    md.isTrusted = false;
    md.supportHtml = false;
    // Escaped (appendText would leave a URL for VS Code's Markdown to link by itself); a URL is a link only when
    // the one link rule allows it.
    const paragraph = (text: string | undefined, max: number): void => {
      if (!text) return;
      if (md.value) md.appendMarkdown('\n\n');
      md.appendMarkdown(markdownWithSafeLinks(clip(oneLine(text), max)));
    };
    if (node.kind === 'thread') {
      paragraph(node.row.title, 1000);
      paragraph(node.row.preview, 400);
    } else paragraph(node.row.input, 1000);
    paragraph(filtersLine(node.row.filters), 400);
    if (md.value) item.tooltip = md;
    return item;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }
}

export function statusIcon(status: ThreadStatusName | undefined): vscode.ThemeIcon {
  switch (status) {
    case 'running':
      return new vscode.ThemeIcon('sync~spin');
    case 'idle':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    default:
      return new vscode.ThemeIcon('circle-outline');
  }
}

/** The filters a turn ran under, as a sentence; undefined when not known (a turn not sent from this machine). */
export function filtersLine(filters: string | undefined): string | undefined {
  if (filters === undefined) return undefined;
  return filters
    ? vscode.l10n.t('Filters: {0}', filters)
    : vscode.l10n.t('Filters: none (sent without search filters)');
}

function shortDate(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 16).replace('T', ' ') : '';
}
