/** The status-bar item that lists the research agent's runs being followed, and how a run is named in it. */
import * as vscode from 'vscode';
import type { RunningThread } from './persisted';
import { StatusItems } from '../platform/ids';
import { markdownWithSafeLinks } from '../shared/markdown';
import { plainText } from '../shared/plainText';
import { threadLabel } from './briefGist';

/**
 * A run's name (the service's title, else the brief's gist: briefGist.ts) as one short line that a notification or
 * the status bar cannot render as a link or an icon.
 */
export function shown(run: { title?: string | null; gist?: string }): string {
  return plainText(threadLabel(run.title, run.gist), 80) || vscode.l10n.t('(untitled thread)');
}

export class RunningStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(StatusItems.threads, vscode.StatusBarAlignment.Left, 50);
  private visible = false;

  /** `command` is what a click runs (the Threads view). */
  constructor(command: string) {
    this.item.name = vscode.l10n.t('Research Desk: running threads');
    this.item.command = command;
  }

  /** Shows the runs (hidden when there are none). */
  update(runs: readonly RunningThread[]): void {
    this.visible = runs.length > 0;
    if (!this.visible) {
      this.item.hide();
      return;
    }
    this.item.text =
      runs.length === 1
        ? vscode.l10n.t('$(sync~spin) 1 thread running')
        : vscode.l10n.t('$(sync~spin) {0} threads running', runs.length);
    const md = new vscode.MarkdownString('', false);
    md.isTrusted = false;
    md.supportHtml = false;
    md.appendText(vscode.l10n.t('Research agent runs in progress (click for the Threads view):'));
    // Escaped, with a URL a link only when the one link rule allows it (appendText leaves URLs for VS Code to link).
    for (const r of runs) md.appendMarkdown(`\n- ${markdownWithSafeLinks(`${shown(r)} (${r.mode})`)}`);
    this.item.tooltip = md;
    this.item.accessibilityInformation = { label: this.item.text.replace('$(sync~spin) ', '') };
    this.item.show();
  }

  /** Text and tooltip as shown (tests). */
  shown(): { visible: boolean; text: string; tooltip: string } {
    const t = this.item.tooltip;
    return { visible: this.visible, text: this.item.text, tooltip: typeof t === 'string' ? t : (t?.value ?? '') };
  }

  dispose(): void {
    this.item.dispose();
  }
}
