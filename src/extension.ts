import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Wired by the composition root in later steps.
}

export function deactivate(): void {}
