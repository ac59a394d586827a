import * as vscode from 'vscode';
import { ResearchDesk, type ResearchDeskTestApi } from './composition/entry';

let desk: ResearchDesk | undefined;

/**
 * Builds and wires only. Returns the test API in development and test runs; in production
 * nothing is exported (the API reaches the key store, and other extensions can read exports).
 */
export function activate(context: vscode.ExtensionContext): ResearchDeskTestApi | undefined {
  const started = performance.now();
  try {
    desk = new ResearchDesk(context);
    context.subscriptions.push(desk);
    const ms = performance.now() - started;
    const log = desk.log;
    setTimeout(() => log.debug(`Activated in ${ms.toFixed(1)} ms.`), 0); // the log channel is created after activation
    return context.extensionMode === vscode.ExtensionMode.Production ? undefined : desk.testApi(ms);
  } catch (err) {
    // Report our own failure: otherwise the person sees commands that silently do nothing.
    const detail = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(vscode.l10n.t('Research Desk failed to start: {0}', detail));
    throw err;
  }
}

export function deactivate(): void {
  desk = undefined;
}
