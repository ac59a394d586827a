/**
 * Export Answer as Markdown: the interaction an answer panel shows (its text and references, as the pure
 * `exportAnswerMarkdown` writes them) into a file the person picks. Apart from the panel: it is a file operation (a
 * save dialog and a write that never leaves half a file), not part of showing the answer.
 */
import * as vscode from 'vscode';
import type { Interaction, Thread } from '../api/index';
import { exportAnswerMarkdown } from '../render/exportMarkdown';
import { showInfo } from '../platform/notify';
import { writeWhole } from '../platform/writeWhole';
import { exportFileName, freeName } from './exportName';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/**
 * Asks where to save (unless `target` is given) and writes the answer there whole, then says so with an Open button;
 * undefined when nothing was written.
 */
export async function exportAnswer(
  answer: { thread: Thread; interaction: Interaction | undefined; title?: string } | undefined,
  target?: vscode.Uri,
): Promise<vscode.Uri | undefined> {
  if (!answer) {
    void showInfo(t('Open an answer first, then export it.'));
    return undefined;
  }
  const i = answer.interaction;
  const title = answer.title ?? answer.thread.title;
  const text = exportAnswerMarkdown(i?.response, i?.citations, { title, url: answer.thread.url });
  const uri = target ?? (await askWhere(exportFileName(title)));
  if (!uri) return undefined;
  await writeWhole(uri, text);
  // Said where the writer will see it (a status-bar message passes unnoticed), with the file one click away.
  const open = t('Open');
  void showInfo(t('Answer exported to {0}.', vscode.workspace.asRelativePath(uri)), open).then((choice) =>
    choice === open ? vscode.window.showTextDocument(uri, { preview: false }) : undefined,
  );
  return uri;
}

/**
 * The save dialog, proposing a name that is free in the workspace folder (so accepting it never replaces a file; the
 * dialog asks before replacing a file the writer picks).
 */
async function askWhere(base: string): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = folder
    ? await freeName(base, (n) =>
        Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(folder, n))).then(
          () => true,
          () => false,
        ),
      )
    : `${base}.md`;
  return vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: { Markdown: ['md'] },
    saveLabel: t('Export Answer'),
  });
}
