/**
 * The offer to declare a bibliography in a document that declares none, after Insert Citation wrote its entries to the
 * default or a chosen .bib (LaTeX, Pandoc and Typst would not read that file otherwise). A notification offers
 * Declare It once per document and session; notifications hide after a few seconds, so the offer also stays in the
 * status bar while that document is active, and the command Declare Bibliography in This Document takes it up later.
 * It is withdrawn once the document declares a bibliography (ours, or one the writer added by hand).
 */
import * as vscode from 'vscode';
import { locateBibliographies } from '../bib/locate';
import { flavourOf } from '../bib/syntax';
import { Commands, StatusItems } from '../platform/ids';
import { showInfo, showWarning, statusMessage } from '../platform/notify';
import { Disposable } from '../shared/disposable';
import { plainText } from '../shared/plainText';
import { declarablePath, declarationEdit, relativePath } from './declare';

const relativeBib = (document: vscode.TextDocument, bib: vscode.Uri): string =>
  relativePath(vscode.Uri.joinPath(document.uri, '..').path, bib.path);

const declaresAny = (document: vscode.TextDocument): boolean =>
  locateBibliographies(document.getText(), flavourOf(document.languageId, document.fileName)).fromDocument.length > 0;

export class DeclarationOffers extends Disposable {
  /** Documents already offered a notification this session. */
  private readonly offered = new Set<string>();
  /** Declarations still on offer: document URI → the .bib it should declare. */
  private readonly pending = new Map<string, vscode.Uri>();
  private readonly item: vscode.StatusBarItem;
  private visible = false;

  constructor(private readonly lastEditor: () => vscode.TextEditor | undefined) {
    super();
    this.item = this.register(
      vscode.window.createStatusBarItem(StatusItems.declareBibliography, vscode.StatusBarAlignment.Left, 40),
    );
    this.item.name = vscode.l10n.t('Research Desk: bibliography to declare');
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.pending.has(e.document.uri.toString())) this.update();
      }),
    );
  }

  /**
   * Insert Citation wrote `bib` for `document`, which declares none: the notification (once per document and
   * session), and the offer kept until it is taken up or no longer needed.
   */
  offer(document: vscode.TextDocument, bib: vscode.Uri): void {
    const id = document.uri.toString();
    if (document.isUntitled) return;
    const first = !this.offered.has(id);
    this.offered.add(id);
    const flavour = flavourOf(document.languageId, document.fileName);
    const name = vscode.workspace.asRelativePath(document.uri);
    const bibName = vscode.workspace.asRelativePath(bib);
    // It declares bibliographies we cannot write (CSL JSON/YAML, Hayagriva): where and how to add a BibTeX file to
    // them is the writer's call; they are told.
    const others = locateBibliographies(document.getText(), flavour).fromDocument;
    if (others.length) {
      if (first)
        void showWarning(
          vscode.l10n.t(
            '{0} declares {1}, which Research Desk does not write (BibTeX only); the entries went to {2}. Add it to the document’s bibliographies.',
            name,
            others.join(', '),
            bibName,
          ),
        );
      return;
    }
    if (!declarablePath(flavour, relativeBib(document, bib))) {
      // A path from a setting or a file name that would break out of the declaration: the writer declares it.
      if (first)
        void showWarning(
          vscode.l10n.t(
            '{0} does not declare {1}, and its path has characters Research Desk does not write into the document. Declare it yourself so the citations resolve.',
            name,
            bibName,
          ),
        );
      return;
    }
    this.pending.set(id, bib);
    this.update();
    if (!first) return;
    const declare = vscode.l10n.t('Declare It');
    void showInfo(
      vscode.l10n.t(
        '{0} does not declare {1}, so its citations will not resolve when it is built. Declare it in the document? (Also later, from the status bar.)',
        name,
        bibName,
      ),
      declare,
    ).then((choice) => (choice === declare ? this.declareFor(document) : undefined));
  }

  /** The command: declares the pending bibliography of the given document, else of the active (or last) editor's. */
  async declareCommand(arg?: unknown): Promise<boolean> {
    const uri =
      arg instanceof vscode.Uri
        ? arg.toString()
        : typeof arg === 'string'
          ? arg
          : this.currentDocument()?.uri.toString();
    const document = uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri) : undefined;
    if (!document || !this.pending.has(uri!)) {
      void showInfo(
        vscode.l10n.t(
          'This document has no bibliography waiting to be declared: Research Desk offers one after Insert Citation writes to a bibliography the document does not declare.',
        ),
      );
      return false;
    }
    return this.declareFor(document);
  }

  /** Adds the bibliography's declaration to the document (one WorkspaceEdit). */
  async declare(document: vscode.TextDocument, bib: vscode.Uri): Promise<boolean> {
    const e = declarationEdit(
      document.getText(),
      flavourOf(document.languageId, document.fileName),
      relativeBib(document, bib),
    );
    if (!e) return false;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(
      document.uri,
      new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)),
      e.text,
    );
    const done = await vscode.workspace.applyEdit(edit);
    if (done) this.pending.delete(document.uri.toString());
    this.update();
    return done;
  }

  private async declareFor(document: vscode.TextDocument): Promise<boolean> {
    const bib = this.pending.get(document.uri.toString());
    if (!bib || document.isClosed) return false;
    const done = await this.declare(document, bib);
    if (done)
      void statusMessage(
        vscode.l10n.t(
          'Declared {0} in {1}.',
          vscode.workspace.asRelativePath(bib),
          vscode.workspace.asRelativePath(document.uri),
        ),
        5000,
      );
    return done;
  }

  private currentDocument(): vscode.TextDocument | undefined {
    const active = vscode.window.activeTextEditor?.document;
    if (active && this.pending.has(active.uri.toString())) return active;
    const last = this.lastEditor()?.document;
    return last && !last.isClosed ? last : active;
  }

  /** The status-bar offer, shown while a document with a pending declaration is active. */
  private update(): void {
    if (this.isDisposed) return;
    for (const [id] of this.pending) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === id);
      // Declared meanwhile (by the writer, or by us): nothing left to offer.
      if (doc && declaresAny(doc)) this.pending.delete(id);
    }
    const active = vscode.window.activeTextEditor?.document;
    const bib = active && this.pending.get(active.uri.toString());
    this.visible = !!active && !!bib;
    if (!active || !bib) {
      this.item.hide();
      return;
    }
    const bibName = plainText(vscode.workspace.asRelativePath(bib), 80);
    this.item.text = `$(book) ${vscode.l10n.t('Declare {0}', bibName)}`;
    this.item.tooltip = vscode.l10n.t(
      '{0} cites entries of {1} but does not declare it, so its citations will not resolve when it is built. Click to add the declaration.',
      plainText(vscode.workspace.asRelativePath(active.uri), 120),
      bibName,
    );
    this.item.command = { command: Commands.declareBibliography, title: this.item.text, arguments: [active.uri] };
    this.item.accessibilityInformation = { label: vscode.l10n.t('Declare {0}', bibName) };
    this.item.show();
  }

  /** Status-bar item as shown (tests). */
  statusItem(): { visible: boolean; text: string } {
    return { visible: this.visible, text: this.item.text };
  }
}
