import * as vscode from 'vscode';
import { StatusItems, StorageKeys } from '../platform/ids';

/**
 * The status-bar item of the monthly calls, restored at start from one globalState value the
 * core wrote when it last showed the item, so the figure is visible before any command loads
 * the core (and the client). Entry-bundle code: no import of the client or of anything heavy.
 */
export interface CachedUsageStatus {
  /** `YYYY-MM` (UTC) the figure belongs to. */
  month: string;
  /** Service origin the figure belongs to. */
  origin: string;
  text: string;
  /** Markdown of the tooltip (shown untrusted, without HTML). */
  tooltip: string;
  /** Theme colour id of the background, if any. */
  background?: string;
  /** Text for a new month (the pool reset), when the plan is known. */
  textAfterReset?: string;
}

const month = (d: Date): string => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/** Creates the item from the cached status of this origin; undefined when there is none. */
export function restoreUsageStatusItem(
  state: vscode.Memento,
  origin: string | undefined,
  command: string,
  now = new Date(),
): vscode.StatusBarItem | undefined {
  const cached = state.get<CachedUsageStatus>(StorageKeys.usageStatus);
  if (!cached || typeof cached.text !== 'string' || cached.origin !== origin) return undefined;
  const current = cached.month === month(now);
  if (!current && !cached.textAfterReset) return undefined;
  const item = vscode.window.createStatusBarItem(StatusItems.usage, vscode.StatusBarAlignment.Right, 100);
  item.name = vscode.l10n.t('Research Desk: monthly calls');
  item.command = command;
  item.text = current ? cached.text : (cached.textAfterReset ?? '');
  const tip = new vscode.MarkdownString(
    current ? cached.tooltip : vscode.l10n.t('Research Desk: a new month began; the monthly calls were reset.'),
    true,
  );
  tip.isTrusted = false;
  tip.supportHtml = false;
  item.tooltip = tip;
  if (current && cached.background) item.backgroundColor = new vscode.ThemeColor(cached.background);
  item.show();
  return item;
}
