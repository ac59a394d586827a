import * as vscode from 'vscode';
import { Disposable } from '../util/disposable';

/**
 * The Research view's tree. A placeholder until the search issue fills it: while it is
 * empty, VS Code shows the view's welcome content (set a key, get a key, use the emulator).
 */
export class ResultsTreeProvider extends Disposable implements vscode.TreeDataProvider<vscode.TreeItem> {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.TreeItem | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
    return element;
  }

  getChildren(): vscode.TreeItem[] {
    return [];
  }

  refresh(): void {
    this.changed.fire(undefined);
  }
}
