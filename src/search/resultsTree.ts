import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { Disposable } from '../shared/disposable';
import type * as ResultItems from './resultItems';
import type { ResultNode } from './resultItems';
import type { ResultsDisplay, ResultsModel } from './resultsModel';

export type { ResultNode } from './resultItems';

/** What the tree needs of resultItems.ts, which builds the rows. */
export type ResultRows = Pick<typeof ResultItems, 'resultTreeItem' | 'resolveResultTreeItem' | 'excerptNodes'>;

/**
 * The Research view's tree: the papers the search session shows, their excerpts as
 * children, and a Load More node while more results can be shown. It lives in the entry
 * bundle (the view exists from activation); the core's SearchSession pushes a model into it.
 * The rows themselves are built by resultItems.ts, which activation does not load.
 */

export class ResultsTreeProvider extends Disposable implements vscode.TreeDataProvider<ResultNode>, ResultsDisplay {
  private readonly changed = this.register(new vscode.EventEmitter<ResultNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private model: ResultsModel | undefined;
  private roots: ResultNode[] = [];
  private view: vscode.TreeView<ResultNode> | undefined;

  /** `rows` gives the module that builds the rows (resultItems.ts, loaded after activation). */
  constructor(private readonly rows: () => ResultRows) {
    super();
  }

  /** The view this provider fills (description, message and selection are set through it). */
  bindView(view: vscode.TreeView<ResultNode>): void {
    this.view = view;
    // A new view has no description or message: setting them empty would only cost messages to the workbench.
    if (this.model) this.applyViewText();
  }

  get treeView(): vscode.TreeView<ResultNode> | undefined {
    return this.view;
  }

  get current(): ResultsModel | undefined {
    return this.model;
  }

  /** Shows a new model (undefined clears the view, bringing back its welcome content). */
  show(model: ResultsModel | undefined): void {
    this.model = model;
    this.roots = [];
    if (model) {
      model.papers.forEach((paper, index) =>
        this.roots.push({ kind: 'paper', paper, index, generation: model.generation }),
      );
      if (model.more) this.roots.push({ kind: 'more', generation: model.generation });
    }
    this.applyViewText();
    this.changed.fire(undefined);
  }

  private applyViewText(): void {
    if (!this.view) return;
    this.view.description = this.model?.description ?? '';
    this.view.message = this.model?.message;
  }

  /** Papers the user selected (several with canSelectMany), in view order. */
  selectedPapers(): Paper[] {
    return (this.view?.selection ?? []).flatMap((n) =>
      n.kind === 'paper' ? [n.paper] : n.kind === 'excerpt' ? [n.paper] : [],
    );
  }

  getChildren(element?: ResultNode): ResultNode[] {
    if (!element) return this.roots;
    return this.rows().excerptNodes(element);
  }

  getParent(element: ResultNode): ResultNode | undefined {
    if (element.kind !== 'excerpt') return undefined;
    return this.roots.find((r) => r.kind === 'paper' && r.index === element.paperIndex);
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    return this.rows().resultTreeItem(node, this.model);
  }

  resolveTreeItem(item: vscode.TreeItem, node: ResultNode): vscode.TreeItem {
    return this.rows().resolveResultTreeItem(item, node, this.model);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }
}
