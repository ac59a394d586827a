/**
 * The multi-line brief of Ask the Research Agent: VS Code has no multi-line input box, so the
 * brief is written in an untitled Markdown document that starts with a heading and a header comment (VS Code names
 * an untitled tab after its first line, so the heading is what the tab shows; neither is sent). CodeLenses
 * above it send it (pro, deep, or under the current search filters); the command Send Brief to
 * the Research Agent does the same from the palette. The document is the draft while it is open;
 * a brief that could not be sent is also kept in globalState and restored into the next one.
 */
import * as vscode from 'vscode';
import { Commands } from '../platform/ids';

export const BRIEF_HEADER_START = '<!-- Research brief for the Research Desk agent.';
/** The header: an optional first-line heading (ours; a brief of an older version has none), then the comment. */
const HEADER_RE = /^\uFEFF?\s*(?:#[^\n]*\n\s*)?<!-- Research brief for the Research Desk agent\.[\s\S]*?-->\s*/;

export function briefHeader(): string {
  return `# ${vscode.l10n.t('Research brief')}\n\n${BRIEF_HEADER_START} ${vscode.l10n.t(
    'Write the whole brief below this comment (1 to 10,000 characters): the agent works on its own and asks no questions. Send it with the links above, or the command "Send Brief to the Research Agent". This comment is not sent.',
  )} -->\n\n`;
}

export function isBriefDocument(doc: vscode.TextDocument): boolean {
  // The header is one line at the top; positions past the end are clamped to it.
  return (
    doc.languageId === 'markdown' && HEADER_RE.test(doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 20), 0)))
  );
}

/** The brief without its heading and header comment, trimmed. */
export function briefText(text: string): string {
  return text.replace(HEADER_RE, '').trim();
}

export async function openBriefDocument(draft?: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: briefHeader() + (draft ?? '') });
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  const end = doc.lineAt(doc.lineCount - 1).range.end;
  editor.selection = new vscode.Selection(end, end);
  return editor;
}

export class BriefCodeLensProvider implements vscode.CodeLensProvider {
  constructor(
    private readonly filters: () => string,
    private readonly isFreePlan: () => boolean,
  ) {}

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!isBriefDocument(doc)) return [];
    const at = new vscode.Range(0, 0, 0, 0);
    const uri = doc.uri.toString();
    // With search filters active, the plain lenses say that they send without them (the last lens sends with them).
    const f = this.filters();
    const lenses = [
      new vscode.CodeLens(at, {
        title: f
          ? vscode.l10n.t('$(send) Send to the Research Agent (pro, no filters)')
          : vscode.l10n.t('$(send) Send to the Research Agent (pro)'),
        command: Commands.sendBrief,
        arguments: [{ uri, mode: 'pro' }],
      }),
      new vscode.CodeLens(at, {
        title: this.isFreePlan()
          ? vscode.l10n.t('Deep mode (needs a paid plan)')
          : f
            ? vscode.l10n.t('Send in deep mode (no filters)')
            : vscode.l10n.t('Send in deep mode'),
        command: Commands.sendBrief,
        arguments: [{ uri, mode: 'deep' }],
      }),
    ];
    if (f)
      lenses.push(
        new vscode.CodeLens(at, {
          title: vscode.l10n.t('Send under the current filters ({0})', f),
          command: Commands.sendBrief,
          arguments: [{ uri, mode: 'pro', useFilters: true }],
        }),
      );
    return lenses;
  }
}
