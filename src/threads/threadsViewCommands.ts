/**
 * The Threads view's commands: Refresh, Search Titles, Load More, Open (in the answer view), Open in Browser and Copy
 * Link. Apart from the commands that send briefs (threadCommands.ts, threadSender.ts): these only read the listing.
 */
import * as vscode from 'vscode';
import { safeHttpsUrl } from '../shared/url';
import { showWarning, statusMessage } from '../platform/notify';
import type { ThreadsModel } from './threadsModel';

/** A thread id from a tree node (thread or interaction), a `{ threadId }` object or a string. */
function threadTarget(arg: unknown): { threadId: string; interactionId?: string; url?: string } | undefined {
  if (typeof arg === 'string') return { threadId: arg };
  const n = arg as
    | { kind?: string; row?: { threadId?: unknown; interactionId?: unknown; url?: unknown }; threadId?: unknown }
    | undefined;
  const row = n?.row ?? n;
  if (!row || typeof row.threadId !== 'string') return undefined;
  return {
    threadId: row.threadId,
    interactionId:
      n?.kind === 'interaction' && typeof (row as { interactionId?: unknown }).interactionId === 'string'
        ? (row as { interactionId: string }).interactionId
        : undefined,
    url: typeof (row as { url?: unknown }).url === 'string' ? (row as { url: string }).url : undefined,
  };
}

export class ThreadsViewCommands {
  constructor(
    private readonly model: ThreadsModel,
    private readonly answers: () =>
      { show(threadId: string, opts?: { interactionId?: string }): Promise<void> } | undefined,
  ) {}

  async refresh(): Promise<number> {
    await this.model.load();
    return this.model.snapshot().threads.length;
  }

  async loadMore(): Promise<number> {
    await this.model.loadMore();
    return this.model.snapshot().threads.length;
  }

  /** Title search; a string argument sets it directly ('' clears it). */
  async search(arg?: unknown): Promise<number> {
    let q = typeof arg === 'string' ? arg : undefined;
    if (q === undefined) {
      q = await vscode.window.showInputBox({
        title: vscode.l10n.t('Search Thread Titles'),
        prompt: vscode.l10n.t('Part of a thread title (case does not matter); empty shows every thread.'),
        value: this.model.query,
      });
      if (q === undefined) return this.model.snapshot().threads.length;
    }
    await this.model.search(q);
    return this.model.snapshot().threads.length;
  }

  async open(arg?: unknown): Promise<boolean> {
    const t = threadTarget(arg);
    const answers = this.answers();
    if (!t || !answers) return false;
    await answers.show(t.threadId, t.interactionId ? { interactionId: t.interactionId } : {});
    return true;
  }

  private link(arg: unknown): string | undefined {
    const t = threadTarget(arg);
    if (!t) return undefined;
    const safe = safeHttpsUrl(t.url ?? this.model.find(t.threadId)?.url);
    if (!safe)
      void showWarning(
        vscode.l10n.t(
          'This thread has no https link to open or copy (the service sent none, or one that is not https).',
        ),
      );
    return safe;
  }

  async openInBrowser(arg?: unknown): Promise<string | undefined> {
    const url = this.link(arg);
    if (url) await vscode.env.openExternal(vscode.Uri.parse(url, true));
    return url;
  }

  async copyLink(arg?: unknown): Promise<string | undefined> {
    const url = this.link(arg);
    if (url) {
      await vscode.env.clipboard.writeText(url);
      void statusMessage(vscode.l10n.t('Thread link copied.'), 3000);
    }
    return url;
  }
}
