/**
 * Tidy Bibliography: sorts a .bib, removes entries that repeat another's DOI and lists the uncited ones (bibTidy.ts
 * computes the new text). Which .bib: the argument (the explorer), the .bib being edited, or the active document's
 * (picked when it has several); written under the same rules as any write (a .bib; outside the workspace, asked).
 *
 * - "Cited" keys: every key cited by the .tex/.md/.qmd/.Rmd/.typ files of the bibliography's workspace folder (open
 *   buffers first, at most 2,000 files) and by the open documents; `\nocite{*}` cites all. Tidy never removes an
 *   entry a document cites; when some documents could not be read (or there were more), it removes no duplicate.
 * - It edits the .bib in an editor and shows it, unsaved: the writer reviews, then saves or undoes. A .bib whose bytes
 *   that editor would change (mixed line breaks, a lone CR, not UTF-8) is not tidied.
 *
 * Apart from citationCommands.ts because it shares nothing with citing but the result it returns.
 */
import * as vscode from 'vscode';
import { editorKeepsLineBreaks, lineBreakKinds } from '../bib/bibBytes';
import { tidyBibliography } from '../bib/bibTidy';
import { citedKeys, flavourOf } from '../bib/syntax';
import type { Logger } from '../platform/logger';
import { showError, showInfo } from '../platform/notify';
import { clip } from '../shared/plainText';
import type { Bibliographies } from './bibliography';
import { blockedMessage } from './bibliographyWrite';
import { CitationError } from './errors';
import { failed, isWritingDocument, type CitationCommandResult } from './commandSupport';

const CITE_FILES = '**/*.{tex,ltx,md,markdown,qmd,Rmd,rmd,typ}';
const MAX_SCANNED_FILES = 2000;
/** Larger documents are not read for their citations (a path may name a device that never ends, or a huge file). */
const MAX_SCANNED_BYTES = 16 * 1024 * 1024;

export interface TidyCommandDeps {
  bibliographies: Bibliographies;
  log: Logger;
  /** The text editor that was last active (the active one comes first). */
  lastEditor: () => vscode.TextEditor | undefined;
}

export class TidyCommand {
  constructor(private readonly deps: TidyCommandDeps) {}

  async run(arg?: unknown): Promise<CitationCommandResult> {
    const target = await this.tidyTarget(arg);
    if (!target) return { done: false, message: 'cancelled' };
    if ('message' in target) return failed(target.message);
    const bibs = this.deps.bibliographies;
    try {
      // Tidy rewrites the file in an editor: the same rules as any write (a .bib; outside the workspace, asked).
      if (!(await bibs.permitWrite(target.uri))) return { done: false, message: 'cancelled' };
    } catch (err) {
      if (err instanceof CitationError) return failed(err.message, 'error');
      throw err;
    }
    const bib = await bibs.load({ uri: target.uri, source: 'chosen' });
    const name = vscode.workspace.asRelativePath(bib.uri);
    if (!bib.exists) return failed(vscode.l10n.t('{0} does not exist yet: nothing to tidy.', name));
    if (bib.unwritable) return failed(bib.unwritable, 'error');
    // The editor would turn every line break into one kind on opening it: Tidy would change bytes it does not move.
    if (bib.origin === 'disk' && !editorKeepsLineBreaks(bib.text)) {
      const k = lineBreakKinds(bib.text);
      return failed(
        vscode.l10n.t(
          "Tidy Bibliography: {0} ends its lines in more than one way ({1} CRLF, {2} LF, {3} lone CR), which VS Code's editor would change throughout. Nothing was changed.",
          name,
          k.crlf,
          k.lf,
          k.cr,
        ),
        'error',
      );
    }
    const cited = await this.citedKeys(bib.uri);
    const result = tidyBibliography(bib.text, cited.keys, {
      everyKeyCited: cited.everyKey,
      citedComplete: cited.complete,
    });
    if (result.text === undefined) {
      bibs.publish(bib.uri, result.diagnostics);
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      const message =
        !errors.length && result.blocked
          ? `${vscode.l10n.t('Tidy Bibliography:')} ${blockedMessage(name, result.blocked)} ${vscode.l10n.t('Nothing was changed.')}`
          : errors.length <= 1
            ? vscode.l10n.t(
                'Tidy Bibliography: {0} has 1 error (see Problems, at line {1}); fix it first. Nothing was changed.',
                name,
                (errors[0]?.range.start.line ?? 0) + 1,
              )
            : vscode.l10n.t(
                'Tidy Bibliography: {0} has {1} errors (see Problems, first at line {2}); fix them first. Nothing was changed.',
                name,
                errors.length,
                (errors[0]?.range.start.line ?? 0) + 1,
              );
      const show = vscode.l10n.t('Show Problems');
      void showError(message, show).then((c) =>
        c === show ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined,
      );
      return { done: false, bib: bib.uri, message };
    }
    if (result.text !== bib.text) {
      // The range from the editor's own buffer (what the edit applies to), which must read as the bytes did.
      const doc = await vscode.workspace.openTextDocument(bib.uri);
      if (doc.getText() !== bib.text)
        return failed(
          vscode.l10n.t(
            'Tidy Bibliography: the editor reads {0} differently from its bytes (its encoding?); nothing was changed.',
            name,
          ),
          'error',
        );
      const edit = new vscode.WorkspaceEdit();
      edit.replace(bib.uri, new vscode.Range(new vscode.Position(0, 0), doc.positionAt(bib.text.length)), result.text);
      if (!(await vscode.workspace.applyEdit(edit)))
        return failed(vscode.l10n.t('VS Code could not edit {0} (read-only?); nothing was changed.', name), 'error');
      // Shown, not saved: the writer reviews the new order and saves (or undoes) it there.
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
    }
    const parts = [
      result.text === bib.text ? vscode.l10n.t('{0} is already tidy', name) : vscode.l10n.t('Tidied {0}: sorted', name),
    ];
    if (result.removed.length)
      parts.push(
        result.removed.length === 1
          ? vscode.l10n.t('1 duplicate removed ({0})', result.removed.map((r) => `${r.key} → ${r.keptKey}`).join(', '))
          : vscode.l10n.t(
              '{0} duplicates removed ({1})',
              result.removed.length,
              result.removed.map((r) => `${r.key} → ${r.keptKey}`).join(', '),
            ),
      );
    if (result.keptDuplicates.length)
      parts.push(
        cited.complete
          ? vscode.l10n.t(
              'kept entries with the same DOI because documents cite each: {0}',
              clip(result.keptDuplicates.map((d) => d.keys.join(' = ')).join(', '), 300),
            )
          : vscode.l10n.t(
              'no duplicate removed, because not every document could be read: {0}',
              clip(result.keptDuplicates.map((d) => d.keys.join(' = ')).join(', '), 300),
            ),
      );
    if (cited.everyKey) parts.push(vscode.l10n.t('every key is cited (\\nocite{*})'));
    else if (result.uncited.length)
      parts.push(vscode.l10n.t('not cited by any document: {0}', clip(result.uncited.join(', '), 300)));
    else parts.push(vscode.l10n.t('every entry is cited'));
    const message = `${parts.join('; ')}.`;
    void showInfo(message);
    return { done: true, bib: bib.uri, removed: result.removed, uncited: result.uncited, message };
  }

  private async tidyTarget(arg: unknown): Promise<{ uri: vscode.Uri } | { message: string } | undefined> {
    // A file given as an argument (the explorer's context menu) goes through the same questions as any write.
    if (arg instanceof vscode.Uri) return { uri: arg };
    const editor = vscode.window.activeTextEditor ?? this.deps.lastEditor();
    if (!editor)
      return { message: vscode.l10n.t('Open a .bib file, or a document that uses one, to tidy its bibliography.') };
    const doc = editor.document;
    if (doc.languageId === 'bibtex' || /\.bib$/iu.test(doc.uri.path)) {
      // The .bib the writer is editing: their choice.
      this.deps.bibliographies.approve(doc.uri);
      return { uri: doc.uri };
    }
    const found = await this.deps.bibliographies.find(doc);
    if (!found.length)
      return {
        message: vscode.l10n.t(
          '{0} uses no BibTeX bibliography yet: nothing to tidy.',
          vscode.workspace.asRelativePath(doc.uri),
        ),
      };
    if (found.length === 1) return { uri: found[0]!.uri };
    const pick = await vscode.window.showQuickPick(
      found.map((f) => ({ label: vscode.workspace.asRelativePath(f.uri), uri: f.uri })),
      { title: vscode.l10n.t('Tidy which bibliography?') },
    );
    return pick ? { uri: pick.uri } : undefined;
  }

  /**
   * Keys cited (lower case) by the writing documents of the bibliography's workspace folder and the open documents;
   * `everyKey` for `\nocite{*}`; `complete` false when some document could not be read or there were more to read.
   */
  private async citedKeys(bib: vscode.Uri): Promise<{ keys: Set<string>; everyKey: boolean; complete: boolean }> {
    const keys = new Set<string>();
    const seen = new Set<string>();
    let complete = true;
    const add = (uri: vscode.Uri, text: string, languageId: string): void => {
      seen.add(uri.toString());
      const flavour = flavourOf(languageId, uri.path);
      if (flavour === 'plain') return;
      for (const k of citedKeys(text, flavour)) keys.add(k.toLowerCase());
    };
    for (const d of vscode.workspace.textDocuments)
      if (isWritingDocument(d) && d.uri.toString() !== bib.toString()) add(d.uri, d.getText(), d.languageId);
    const folder = vscode.workspace.getWorkspaceFolder(bib);
    if (folder) {
      const files = await vscode.workspace.findFiles(
        new vscode.RelativePattern(folder, CITE_FILES),
        '**/{node_modules,.git}/**',
        MAX_SCANNED_FILES,
      );
      if (files.length >= MAX_SCANNED_FILES) complete = false;
      for (const uri of files) {
        if (seen.has(uri.toString())) continue;
        try {
          // Only regular files of sensible size: a document's name may lead to a device that never ends.
          const stat = await vscode.workspace.fs.stat(uri);
          if (!(stat.type & vscode.FileType.File) || stat.size > MAX_SCANNED_BYTES)
            throw new Error(`not a readable document (${stat.size} bytes)`);
          add(uri, new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri)), '');
        } catch (err) {
          complete = false;
          this.deps.log.warn(
            `Tidy Bibliography: could not read ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }
    }
    const everyKey = keys.delete('*');
    return { keys, everyKey, complete };
  }
}
