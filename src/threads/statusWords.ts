/**
 * The one wording of a thread's or a run's status, wherever the writer reads it (the Threads view, the answer view):
 * the service's `idle` means the agent has answered, so it reads "answered", never the raw value.
 */
import * as vscode from 'vscode';

export function statusLabel(status: string | null | undefined): string {
  switch (status) {
    case 'running':
      return vscode.l10n.t('running');
    case 'idle':
      return vscode.l10n.t('answered');
    case 'failed':
      return vscode.l10n.t('failed');
    default:
      return vscode.l10n.t('status not known yet');
  }
}
