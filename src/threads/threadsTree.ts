/**
 * The Threads view's tree: the caller's threads (newest first), their interactions as children,
 * a Load More node while the service has more. It lives in the entry bundle (the view exists from
 * activation) and asks the core for data only when the view is shown: the first getChildren loads
 * the core, whose ThreadsModel attaches itself as the source. The rows themselves are built by threadItems.ts, which
 * activation does not load.
 */
import * as vscode from 'vscode';
import { Disposable } from '../shared/disposable';
import type * as ThreadItems from './threadItems';
import type { InteractionRow, ThreadNode, ThreadRow } from './threadItems';

export type { InteractionRow, ThreadNode, ThreadRow, ThreadStatusName } from './threadItems';

/** What the tree needs of threadItems.ts, which builds the rows. */
export type ThreadRows = Pick<typeof ThreadItems, 'threadTreeItem' | 'resolveThreadTreeItem'>;

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

export class ThreadsTreeProvider extends Disposable implements vscode.TreeDataProvider<ThreadNode> {
  private readonly changed = this.register(new vscode.EventEmitter<ThreadNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private source: ThreadsSource | undefined;
  private view: vscode.TreeView<ThreadNode> | undefined;
  private roots: ThreadNode[] = [];

  /**
   * `rows` gives the module that builds the rows (threadItems.ts, loaded after activation).
   * `loadCore` loads the core bundle, which attaches the source (called on first display only).
   * `hasKey` says whether a key is set: without one the view stays empty (its welcome content asks for a
   * key) and neither the core nor a listing request is spent on it; `onKeyChange` refreshes it.
   */
  constructor(
    private readonly rows: () => ThreadRows,
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
    return this.rows().threadTreeItem(node);
  }

  resolveTreeItem(item: vscode.TreeItem, node: ThreadNode): vscode.TreeItem {
    return this.rows().resolveThreadTreeItem(item, node);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }
}
