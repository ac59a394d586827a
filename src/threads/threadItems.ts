/**
 * The Threads view's rows: tree items for threads, their turns and the Load More node, and the tooltips. Not in the
 * entry bundle: the view has rows only once the core's ThreadsModel has listed threads, so this is loaded
 * (dist/deferred.js) after activation, not during it. Service text is untrusted: labels are plain text (`plainText`),
 * tooltips MarkdownStrings with trust and HTML off, text escaped and its only links those the one link rule allows
 * (`markdownWithSafeLinks`).
 */
import * as vscode from 'vscode';
import { Commands } from '../platform/ids';
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

export type ThreadNode =
  { kind: 'thread'; row: ThreadRow } | { kind: 'interaction'; row: InteractionRow } | { kind: 'more' };

export const THREAD_CONTEXT = 'thread';
export const INTERACTION_CONTEXT = 'threadInteraction';

export function threadTreeItem(node: ThreadNode): vscode.TreeItem {
  switch (node.kind) {
    case 'thread': {
      const r = node.row;
      const title = plainText(r.title, 200) || vscode.l10n.t('(untitled thread)');
      const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `thread/${r.threadId}`;
      item.iconPath = statusIcon(r.status);
      const parts = [statusLabel(r.status)];
      if (r.interactionCount !== undefined)
        parts.push(r.interactionCount === 1 ? vscode.l10n.t('1 turn') : vscode.l10n.t('{0} turns', r.interactionCount));
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

/** A thread's or a turn's tooltip, built when hovered. */
export function resolveThreadTreeItem(item: vscode.TreeItem, node: ThreadNode): vscode.TreeItem {
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
