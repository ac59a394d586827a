/**
 * Export Answer as Markdown: the interaction an answer panel shows (its text and references, as the pure
 * `exportAnswerMarkdown` writes them) into a file the person picks. Apart from the panel: it is a file operation (a
 * save dialog and a write that never leaves half a file), not part of showing the answer.
 */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import type { Interaction, Thread } from '../api/index';
import { exportAnswerMarkdown } from '../render/exportMarkdown';
import { showInfo, statusMessage } from '../platform/notify';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/**
 * Asks where to save (unless `target` is given) and writes the answer there whole; undefined when nothing was written.
 */
export async function exportAnswer(
  answer: { thread: Thread; interaction: Interaction | undefined } | undefined,
  target?: vscode.Uri,
): Promise<vscode.Uri | undefined> {
  if (!answer) {
    void showInfo(t('Open an answer first, then export it.'));
    return undefined;
  }
  const i = answer.interaction;
  const text = exportAnswerMarkdown(i?.response, i?.citations, { title: answer.thread.title, url: answer.thread.url });
  const base =
    (answer.thread.title ?? 'answer')
      .replace(/[^\p{L}\p{N} _-]+/gu, '')
      .trim()
      .slice(0, 60) || 'answer';
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, `${base}.md`) : undefined,
      filters: { Markdown: ['md'] },
      saveLabel: t('Export Answer'),
    }));
  if (!uri) return undefined;
  // Written whole to a sibling temporary file, then renamed over the target: a failure midway
  // leaves the old file (or none), never half an answer.
  const tmp = uri.with({ path: `${uri.path}.${randomBytes(4).toString('hex')}.tmp` });
  try {
    await vscode.workspace.fs.writeFile(tmp, new TextEncoder().encode(text));
    await vscode.workspace.fs.rename(tmp, uri, { overwrite: true });
  } catch (err) {
    await Promise.resolve(vscode.workspace.fs.delete(tmp)).catch(() => undefined);
    throw err;
  }
  void statusMessage(t('Answer exported to {0}.', uri.fsPath || uri.toString()), 5000);
  return uri;
}
